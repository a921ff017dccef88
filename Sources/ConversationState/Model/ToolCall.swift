/// A tool the agent called while producing a reply.
public struct ToolCall: Identifiable, Hashable, Sendable, Codable {

  /// Who runs the tool.
  public enum Execution: String, Hashable, Sendable, Codable {
    /// The app runs the tool and sends its result back; such calls count toward `ChatPolicy.clientToolCallLimit`.
    case client
    /// The server runs the tool; the app only shows it.
    case server
  }

  /// Where the call is.
  public enum Outcome: Hashable, Sendable, Codable {
    /// Called; no result yet.
    case running
    /// The tool returned this result.
    case succeeded(JSONValue)
    /// The tool failed, or its result was refused (for example over `ChatPolicy.maximumToolResultBytes`).
    case failed(ChatError)
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
