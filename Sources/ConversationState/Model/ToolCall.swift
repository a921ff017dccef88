/// A tool the agent called while producing a reply.
public struct ToolCall: Identifiable, Hashable, Sendable, Codable {

  /// Who runs the tool.
  public enum Execution: String, Hashable, Sendable, Codable {
    /// The app runs the tool and sends its result back; such calls count toward `ChatPolicy.clientToolCallLimit`.
    case client
    /// The server runs the tool; the app only shows it.
    case server
  }

  /// Where the call is: `inputStreaming → running → succeeded | failed`, or straight to `running` when the
  /// call arrives whole; a call the agent asks the user about waits in `awaitingApproval` and goes on to
  /// `running` (approved) or `denied`.
  public enum Outcome: Hashable, Sendable, Codable {
    /// The agent is still writing the call's arguments: they stream as JSON text into the call's part
    /// (`StreamingPart.text`), and `input` is empty until the call is complete. A reply that ends meanwhile
    /// leaves the call `failed`.
    case inputStreaming
    /// Called; no result yet.
    case running
    /// The tool returned this result.
    case succeeded(JSONValue)
    /// The tool failed, or its result was refused (for example over `ChatPolicy.maximumToolResultBytes`).
    case failed(ChatError)
    /// Waiting for the user to approve it (an `InputRequest` of kind `toolApproval` names it). An app-run
    /// call does not run meanwhile.
    case awaitingApproval
    /// The user denied it, with the reason they gave; it never ran.
    case denied(reason: String?)
  }

  /// Identifies the call within its reply, so its result can be matched to it.
  public var id: ToolCallID
  /// The tool's name, as the agent's configuration defines it.
  public var name: String
  /// The arguments the agent passed; an empty object when it passed none.
  public var input: JSONValue
  /// Whether the app or the server runs the tool.
  public var execution: Execution
  /// Whether the call is still running, succeeded or failed.
  public var outcome: Outcome

  /// A call as the agent made it; it starts `running`.
  public init(
    id: ToolCallID, name: String, input: JSONValue = .object([:]), execution: Execution,
    outcome: Outcome = .running
  ) {
    self.id = id
    self.name = name
    self.input = input
    self.execution = execution
    self.outcome = outcome
  }
}

extension ToolCall {
  /// The call as a committed message may hold it: one whose input was still streaming failed
  /// (`INCOMPLETE_STREAM`), since it never ran; any other as it is.
  public var settled: ToolCall {
    guard outcome == .inputStreaming else { return self }
    var cut = self
    cut.outcome = .failed(ChatError(.incompleteStream, "The reply ended before the call's input was complete."))
    return cut
  }
}
