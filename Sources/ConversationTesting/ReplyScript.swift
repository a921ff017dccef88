public import ConversationState
public import Foundation

/// An agent reply written as timed chunks: `"Hel|lo |wor|ld.|<finish>"`.
///
/// Pieces are separated by `|`. Plain pieces are text deltas. Bracketed pieces are directives; each maps to
/// the `ReplyEvent`s the agent protocols' mappers emit for the same thing:
///
/// | piece | meaning |
/// |---|---|
/// | `<finish>` | the server finishes the reply (its message carries the whole text) |
/// | `<end>` | the stream closes without finishing (the reply is left `truncated`) |
/// | `<drop>` | the connection drops mid-reply (a retryable `NETWORK` error) |
/// | `<wait 1.5>` | 1.5 more seconds pass before the next piece |
/// | `<reasoning TEXT>` | the model's reasoning: a reasoning part (`partStarted`, `partDelta`); the pieces that follow it directly, `<wait …>` aside, stream into the same part, which ends (`partEnded`) at the first other piece |
/// | `<source URL>` / `<source URL TITLE>` | the reply cites a source: a whole source part, titled `TITLE` (the URL when none), `external` |
/// | `<tool NAME>` / `<tool NAME client>` | the agent calls a tool (server-executed unless `client`); the call's ID is `NAME` |
/// | `<result NAME JSON>` | that tool's result, e.g. `<result lookup {"status":"shipped"}>` |
/// | `<fail NAME MESSAGE>` | that tool failed: the call ends `failed` with a `TOOL_FAILED` error saying `MESSAGE` |
/// | `<approve NAME>` / `<approve NAME QUESTION>` | the agent asks the user to approve the call `NAME` before it runs (`inputRequested`, a `toolApproval` with `QUESTION` as its message, its ID `approve-NAME-N` for the `N`th reply the backend played: read it from the state to answer it); the answer waits (`awaitingInput`) and the user's answer starts the continuation (see `ScriptedBackend.continueRun`) |
/// | `<ask NAME JSON>` | the agent asks the app to run tool `NAME` with these arguments, and waits for the result |
/// | `<realtime>` | first piece only: the reply streams over the realtime connection, not on the send |
/// | `<error STATUS CODE>` / `<error 429 RATE_LIMITED retry-after=2>` | the send itself fails; first piece only |
///
/// `<result>`, `<fail>` and `<approve>` name a call by the `NAME` of its `<tool NAME>`, earlier in the same
/// reply or in the run it continues. Text that ends a directive (the reasoning, a failure's message, an
/// approval's question, a source's title) is taken as written after its one separating space, spaces
/// included; it cannot hold `|`, which separates pieces.
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
    /// The tool `name` failed with `message` (the AI SDK's `tool-output-error`): a `TOOL_FAILED` error.
    case toolFailed(name: String, message: String)
    /// The agent asks the user to approve the call `name` before it runs (the AI SDK's
    /// `tool-approval-request`), saying `question` when given. The call waits `awaitingApproval`; once the
    /// reply ends the answer waits `awaitingInput`, and the user's answer continues it.
    case approval(name: String, question: String?)
    /// A piece of the model's reasoning. Consecutive pieces (`wait`s between them aside) stream into one
    /// reasoning part, which ends at the next other piece.
    case reasoning(String)
    /// The reply cites the page at `url`, titled `title` (the URL when nil).
    case source(url: URL, title: String?)
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
    // What follows `directive` and one space, as written (`words` drops a space that leads the text).
    func argument(after directive: String) -> String? {
      let inner = piece.dropFirst().dropLast()
      guard inner.hasPrefix(directive + " ") else { return nil }
      return String(inner.dropFirst(directive.count + 1))
    }
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
    case "reasoning":
      guard let text = argument(after: "reasoning"), !text.isEmpty else { throw fail("expected <reasoning TEXT>") }
      return .reasoning(text)
    case "source":
      guard words.count >= 2, let url = URL(string: words[1]), url.scheme != nil, url.host != nil else {
        throw fail("expected <source URL> or <source URL TITLE>, the URL absolute, such as https://example.com/help")
      }
      return .source(url: url, title: words.count == 3 ? words[2] : nil)
    case "fail":
      guard words.count == 3 else { throw fail("expected <fail NAME MESSAGE>, the message saying why the tool failed") }
      return .toolFailed(name: words[1], message: words[2])
    case "approve":
      guard words.count >= 2 else { throw fail("expected <approve NAME> or <approve NAME QUESTION>") }
      return .approval(name: words[1], question: words.count == 3 ? words[2] : nil)
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

extension ReplyScript {
  /// Whether the request itself fails (`<error …>`), before anything is accepted.
  var failsTheSend: Bool { steps.first?.isFailure == true }
}

extension JSONValue {
  /// Parses JSON text.
  public init(parsing text: String) throws {
    self = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
  }
}
