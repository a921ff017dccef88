import ChatAGUI
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ServerSentEvents
import Testing

/// The ag-ui-validate 0.4.0 corpus (vendored under `Conformance/`, with its licence), run through this
/// client with AG-UI 1.0's verdicts (`Conformance/README.md` lists where they differ from the validator's).
@Suite("AG-UI conformance corpus (ag-ui-validate 0.4.0)")
struct AGUIConformanceTests {
  static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Conformance/ag-ui-validate")

  enum Verdict: Hashable, Sendable, CustomStringConvertible {
    case accepted
    case truncated
    case rejected(AGUIViolation.Rule)
    var description: String {
      switch self {
      case .accepted: "accepted"
      case .truncated: "truncated"
      case .rejected(let rule): "rejected(\(rule.rawValue))"
      }
    }
  }

  /// Each invalid fixture's rule, and what 1.0 makes of it.
  static let invalid: [(String, Verdict)] = [
    ("AGUI001", .rejected(.firstEvent)), ("AGUI002", .rejected(.runAlreadyActive)), ("AGUI003", .truncated),
    ("AGUI004", .rejected(.eventAfterRunEnded)), ("AGUI005", .accepted), ("AGUI006", .rejected(.notOpen)),
    ("AGUI007", .rejected(.leftOpen)), ("AGUI008", .rejected(.runIDsDisagree)), ("AGUI101", .rejected(.notOpen)),
    ("AGUI102", .rejected(.notOpen)), ("AGUI103", .rejected(.leftOpen)), ("AGUI104", .rejected(.leftOpen)),
    ("AGUI105", .accepted), ("AGUI106", .rejected(.alreadyOpen)), ("AGUI201", .rejected(.notOpen)),
    ("AGUI202", .rejected(.notOpen)), ("AGUI203", .rejected(.leftOpen)), ("AGUI204", .accepted),
    ("AGUI205", .rejected(.reopenedToolCall)), ("AGUI206", .accepted), ("AGUI207", .rejected(.resultForUnknownCall)),
    ("AGUI208", .accepted), ("AGUI301", .accepted), ("AGUI302", .accepted), ("AGUI303", .accepted),
    ("AGUI304", .accepted), ("AGUI305", .accepted), ("AGUI401", .rejected(.notOpen)), ("AGUI402", .rejected(.leftOpen)),
    ("AGUI501", .accepted), ("AGUI502", .rejected(.malformed)), ("AGUI503", .accepted),
    ("AGUI504", .rejected(.malformed)),
    ("AGUI506", .accepted), ("AGUI507", .accepted), ("AGUI508", .truncated), ("AGUI601", .rejected(.alreadyOpen)),
    ("AGUI602", .rejected(.subagentLane)), ("AGUI603", .rejected(.subagentLane)), ("AGUI604", .rejected(.leftOpen)),
    ("AGUI605", .accepted), ("AGUI606", .rejected(.subagentLane)), ("AGUI901", .accepted), ("AGUI902", .accepted),
    ("AGUI903", .accepted),
  ]

  @Test("every invalid fixture but the transport's one has a verdict here")
  func everyFixtureJudged() throws {
    let directories = try FileManager.default.contentsOfDirectory(
      atPath: Self.corpus.appendingPathComponent("invalid").path)
    let judged = Set(Self.invalid.map(\.0))
    let rules = Set(directories.map { String($0.prefix(7)) })
    // AGUI505 is a content type the transport refuses before any event is read (see Conformance/README.md).
    #expect(rules.subtracting(judged) == ["AGUI505"])
    #expect(judged.isSubset(of: rules))
  }

  @Test("an invalid fixture gets the verdict AG-UI 1.0 gives it", arguments: invalid)
  func invalidFixture(rule: String, expected: Verdict) throws {
    let directory = try #require(
      try FileManager.default.contentsOfDirectory(atPath: Self.corpus.appendingPathComponent("invalid").path)
        .first { $0.hasPrefix(rule) })
    let url = Self.corpus.appendingPathComponent("invalid").appendingPathComponent(directory)
    let lines = try Self.lines(in: url)
    #expect(Self.verdict(of: lines.events, droppedMidStream: lines.abnormalEnd) == expected)
  }

  @Test(
    "a valid fixture applies cleanly: the verifier accepts it, and as a reply it ends as its run says",
    arguments: [
      "agentic-chat", "agentic-generative-ui", "backend-tool-rendering", "human-in-the-loop",
      "predictive-state-updates", "shared-state", "tool-based-generative-ui",
    ])
  func validFixture(name: String) async throws {
    let text = try String(contentsOf: Self.corpus.appendingPathComponent("valid/\(name).jsonl"), encoding: .utf8)
    let lines = text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    #expect(Self.verdict(of: lines, droppedMidStream: false) == .accepted)

    // Given a store whose agent answers with this stream (its first run is the one the client asked for)
    let first = try AGUIFrame(json: lines[0])
    guard case .runStarted(_, let runID, _, _) = first.event else {
      Issue.record("\(name) does not start with RUN_STARTED")
      return
    }
    let body = sse(lines).replacingOccurrences(of: "\"runId\":\"\(runID)\"", with: "\"runId\":\"{RUN}\"")
    var policy = ChatPolicy()
    policy.toolResultDelivery = .nextRun
    let store = ChatStore(policy: policy, backend: ReplayedAGUIBackend([body]))
    defer { store.close() }
    // When the user sends
    store.sendMessage("Go")
    // Then the reply ends, never rejected, with no rule broken on the way
    let ended = try #require(
      await store.state(within: 60, where: { $0.streamingReply == nil && $0.messages.count == 2 }))
    let reply = try #require(ended.messages.last?.reply)
    #expect(reply.error?.code != .invalidEvent, "\(reply)")
    #expect(ended.backgroundError == nil, "\(String(describing: ended.backgroundError))")
    #expect(!reply.isCutShort || reply == .cancelled, "\(name) ended \(reply)")
  }

  // MARK: -

  static func verdict(of lines: [String], droppedMidStream: Bool) -> Verdict {
    var verifier = AGUIStreamVerifier()
    do throws(AGUIViolation) {
      for line in lines { _ = try verifier.accept(try AGUIFrame(json: line)) }
    } catch {
      return .rejected(error.rule)
    }
    if droppedMidStream { return .truncated }
    return verifier.finish() == .complete ? .accepted : .truncated
  }

  /// A fixture's events: the lines of `stream.jsonl`, or the `data` of the SSE events its `scenario.json`'s
  /// chunks make (and whether the connection errored after them).
  static func lines(in directory: URL) throws -> (events: [String], abnormalEnd: Bool) {
    let stream = directory.appendingPathComponent("stream.jsonl")
    if FileManager.default.fileExists(atPath: stream.path) {
      let text = try String(contentsOf: stream, encoding: .utf8)
      return (text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }, false)
    }
    struct Scenario: Decodable {
      struct Chunk: Decodable { var text: String }
      var chunks: [Chunk]
      var abnormalEof: Bool?
    }
    let scenario = try JSONDecoder().decode(
      Scenario.self, from: Data(contentsOf: directory.appendingPathComponent("scenario.json")))
    var decoder = ServerSentEventDecoder()
    var events: [String] = []
    for chunk in scenario.chunks {
      for case .event(let event) in try decoder.feed(Array(chunk.text.utf8)) { events.append(event.data) }
    }
    return (events, scenario.abnormalEof ?? false)
  }
}
