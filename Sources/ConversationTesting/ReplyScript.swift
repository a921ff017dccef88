public import ConversationState
import Foundation

/// An agent reply written as timed chunks: `"Hel|lo |wor|ld.|<finish>"`.
///
/// Pieces are separated by `|`. Plain pieces are text deltas. Bracketed pieces are directives:
///
/// | piece | meaning |
/// |---|---|
/// | `<finish>` | the server finishes the reply (its message carries the whole text) |
/// | `<end>` | the stream closes without finishing (the reply is left `truncated`) |
/// | `<drop>` | the connection drops mid-reply (a retryable `NETWORK` error) |
/// | `<wait 1.5>` | 1.5 more seconds pass before the next piece |
/// | `<tool NAME>` / `<tool NAME client>` | the agent calls a tool (server-executed unless `client`) |
/// | `<result NAME JSON>` | that tool's result, e.g. `<result lookup {"status":"shipped"}>` |
/// | `<ask NAME JSON>` | the agent asks the app to run tool `NAME` with these arguments, and waits for the result |
/// | `<realtime>` | first piece only: the reply streams over the realtime connection, not on the send |
/// | `<error STATUS CODE>` / `<error 429 RATE_LIMITED retry-after=2>` | the send itself fails; first piece only |
///
/// Every piece arrives one `interval` after the one before it (see `ScriptedBackend`). A reply without
/// `<finish>`, `<end>` or `<drop>` finishes after its last piece.
public struct ReplyScript: Equatable, Sendable {
  /// One piece of a script, as read from its notation.
  public enum Step: Equatable, Sendable {
    /// A piece of reply text.
    case delta(String)
    /// Extra time, in seconds on the backend's clock, before the next piece.
    case wait(Double)
    /// The agent calls the tool `name`, run on the server or the client.
    case toolCall(name: String, execution: ToolCall.Execution)
    /// The tool `name` returned this JSON.
    case toolResult(name: String, JSONValue)
    /// The agent asks the app to run tool `name` with `arguments`; the reply goes on once the app's result
    /// arrives (`ChatBackend.submitToolResult`).
    case ask(name: String, arguments: JSONValue)
    /// The reply's text and finish go over the realtime connection (keyed by the reply's server ID, named
    /// in the send's start), as servers that stream replies on their socket do.
    case viaRealtime
    /// The server finishes the reply with a message carrying the whole text.
    case finish
    /// The stream closes without finishing, leaving the reply `truncated`.
    case end
    /// The connection drops mid-reply with a retryable `NETWORK` error.
    case drop
    /// The send itself fails with this error; only ever the first step.
    case fail(ChatError)
  }

  /// A notation that could not be read: which piece, and why.
  public struct SyntaxError: Error, Equatable, CustomStringConvertible {
    /// The piece as written, brackets included.
    public var piece: String
    /// What is wrong with it, and the form that was expected.
    public var reason: String
    /// The piece and the reason, in one line for a test report.
    public var description: String { "reply script piece \"\(piece)\": \(reason)" }
  }

  /// The pieces in order, ending in `finish`, `end`, `drop` or a failure.
  public var steps: [Step]

  /// A script of `steps` as given; nothing is appended.
  public init(steps: [Step]) { self.steps = steps }

  /// Reads `notation`, appending `finish` when it ends neither way; throws `SyntaxError` on a malformed piece.
  public init(_ notation: String) throws {
    var steps: [Step] = []
    for piece in notation.split(separator: "|", omittingEmptySubsequences: false).map(String.init) {
      steps.append(try Self.step(piece, isFirst: steps.isEmpty))
    }
    if !steps.contains(where: { [.finish, .end, .drop].contains($0) }) && !steps.contains(where: \.isFailure) {
      steps.append(.finish)
    }
    self.steps = steps
  }

  /// The text the reply's deltas add up to.
  public var text: String {
    steps.reduce(into: "") { text, step in
      if case .delta(let delta) = step { text += delta }
    }
  }

  private static func step(_ piece: String, isFirst: Bool) throws -> Step {
    guard piece.hasPrefix("<") && piece.hasSuffix(">") else { return .delta(piece) }
    let words = piece.dropFirst().dropLast().split(separator: " ", maxSplits: 2).map(String.init)
    func fail(_ reason: String) -> SyntaxError { SyntaxError(piece: piece, reason: reason) }
    switch words.first {
    case "finish": return .finish
    case "end": return .end
    case "drop": return .drop
    case "wait":
      guard words.count == 2, let seconds = Double(words[1]), seconds >= 0 else {
        throw fail("expected <wait SECONDS>")
      }
      return .wait(seconds)
    case "tool":
      guard words.count >= 2 else { throw fail("expected <tool NAME> or <tool NAME client>") }
      return .toolCall(name: words[1], execution: words.count == 3 && words[2] == "client" ? .client : .server)
    case "realtime":
      guard isFirst else { throw fail("<realtime> says where the whole reply streams, so it must come first") }
      return .viaRealtime
    case "ask":
      guard words.count == 3 else { throw fail("expected <ask NAME JSON>") }
      guard let json = try? JSONValue(parsing: words[2]) else { throw fail("the arguments are not valid JSON") }
      return .ask(name: words[1], arguments: json)
    case "result":
      guard words.count == 3 else { throw fail("expected <result NAME JSON>") }
      guard let json = try? JSONValue(parsing: words[2]) else { throw fail("the result is not valid JSON") }
      return .toolResult(name: words[1], json)
    case "error":
      guard isFirst else { throw fail("<error …> describes the send failing, so it must come first") }
      let parts = piece.dropFirst().dropLast().split(separator: " ").map(String.init)
      guard parts.count >= 3, let status = Int(parts[1]) else { throw fail("expected <error STATUS CODE>") }
      var retryAfter: Double?
      if parts.count == 4 {
        guard parts[3].hasPrefix("retry-after="), let seconds = Double(parts[3].dropFirst("retry-after=".count))
        else { throw fail("expected retry-after=SECONDS") }
        retryAfter = seconds
      }
      return .fail(ChatError(ChatError.Code(parts[2]), "scripted failure", status: status, retryAfter: retryAfter))
    default:
      throw fail("unknown directive; see ReplyScript for the notation")
    }
  }
}

extension ReplyScript.Step {
  var isFailure: Bool {
    if case .fail = self { return true }
    return false
  }
}

extension JSONValue {
  /// Parses JSON text.
  public init(parsing text: String) throws {
    self = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
  }
}
