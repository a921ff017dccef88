/// A tool the agent called while producing a reply.
public struct ToolCall: Identifiable, Hashable, Sendable, Codable {
  /// The most client-executed tool calls one reply may make before it is stopped (`TOOL_LOOP_LIMIT`).
  public static let clientCallLimit = 10
  /// The largest tool result accepted, in UTF-8 bytes of its JSON (`TOOL_RESULT_TOO_LARGE`).
  public static let maximumResultBytes = 20_000

  /// Who runs the tool.
  public enum Execution: String, Hashable, Sendable, Codable {
    case client
    case server
  }

  /// Where the call is.
  public enum Outcome: Hashable, Sendable, Codable {
    /// Called; no result yet.
    case running
    case succeeded(JSONValue)
    case failed(ChatError)
  }

  public var id: ToolCallID
  public var name: String
  public var input: JSONValue
  public var execution: Execution
  public var outcome: Outcome

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
