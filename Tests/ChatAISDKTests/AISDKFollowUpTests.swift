import ChatAISDK
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The follow-up queue (`ConversationState.followUps`) as a host on Pydantic AI's `VercelAIAdapter` sees it
/// (`Tests/AgentProducers/pydantic_agent_server.py`): what the user writes while the answer streams reaches the
/// agent only once that answer has come in whole, and nothing reaches it while a stopped answer holds the queue.
/// The first answer is "hold <gate>": it streams "Part one, " and waits until the test opens its gate.
@Suite(
  "Follow-ups against Pydantic AI (AI SDK)", .enabled(if: AgentProducers.isInstalled, AgentProducers.skipReason),
  .hangGuard)
struct AISDKFollowUpTests {
  let server: LocalServerProcess
  var base: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

  init() async throws { server = try await AgentProducers.shared("pydantic_agent_server.py") }

  func store() throws -> ChatStore {
    ChatStore.onAISDK(try AISDKBackend(endpoint: base.appendingPathComponent("vercel/v6/chat")))
  }

  /// A gate of this test's own: the server is shared by every test in the process.
  static func gate() -> String { "gate-\(UUID().uuidString.prefix(8).lowercased())" }

  /// Lets the "hold `gate`" answer go on to its end.
  func open(_ gate: String) async throws {
    var request = URLRequest(url: base.appendingPathComponent("gates/\(gate)"))
    request.httpMethod = "POST"
    let (_, response) = try await URLSession.shared.data(for: request)
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
  }

  /// What the server received for the conversation that began "hold `gate`", oldest first: each with its
  /// `body` and the server's ticks `started` (it came in) and `ended` (its response's last piece went out),
  /// and `completed` (the response went out whole).
  func received(_ gate: String) async throws -> [[String: Any]] {
    let (data, _) = try await URLSession.shared.data(from: base.appendingPathComponent("requests"))
    let all = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    return all.filter { Self.history($0).first == "user: hold \(gate)" }
  }

  /// Each UI message of a received request as "role: its text parts joined".
  static func history(_ request: [String: Any]) -> [String] {
    let body = request["body"] as? [String: Any] ?? [:]
    return (body["messages"] as? [[String: Any]] ?? []).map { message in
      let parts = message["parts"] as? [[String: Any]] ?? []
      let text = parts.filter { $0["type"] as? String == "text" }.compactMap { $0["text"] as? String }.joined()
      return "\(message["role"] as? String ?? "?"): \(text)"
    }
  }

  /// Whether `later` came in after `earlier`'s response went out whole, by the server's ticks.
  static func cameAfter(_ later: [String: Any], _ earlier: [String: Any]) -> Bool {
    guard let ended = earlier["ended"] as? Int, let started = later["started"] as? Int else { return false }
    return started > ended
  }

  @Test("a follow-up written while the answer streams waits, and reaches the agent after that answer, with it")
  func followUpWaitsForTheAnswer() async throws {
    // Given an answer that has streamed "Part one, " and holds there
    let gate = Self.gate()
    let store = try store()
    defer { store.close() }
    store.sendMessage("hold \(gate)")
    _ = try #require(await store.state(where: { $0.streamingReply?.text.string == "Part one, " }))

    // When the user writes a follow-up while it streams
    let followUp = store.sendMessage("and after that?")

    // Then it waits in the queue instead of going out beside the answer
    #expect(store.state.followUps.turns.map(\.clientID) == [followUp])
    #expect(store.state.messages.count == 1, "only the question is in the conversation")
    #expect(try await received(gate).count == 1, "the agent has been asked once")

    // When the agent finishes the answer
    try await open(gate)

    // Then the follow-up goes by itself and is answered
    let done = try #require(await store.ended(4))
    #expect(done.messages.map(\.reply) == [nil, .completed, nil, .completed])
    #expect(done.messages[2].clientID == followUp && done.messages[2].delivery == .sent)
    #expect(done.messages[1].text == "Part one, part two.")
    #expect(done.messages[3].text == "Hello! How can I help?")
    #expect(done.followUps.isEmpty && done.followUps.pause == nil)

    // And the agent received it only after the first answer's response went out whole
    let received = try await received(gate)
    try #require(received.count == 2, "the agent was asked \(received.count) times")
    #expect(received[0]["completed"] as? Bool == true)
    #expect(Self.cameAfter(received[1], received[0]), "the follow-up came in while the first answer streamed")
    // And with the conversation as the user sees it: the whole first answer before the follow-up
    #expect(
      Self.history(received[1]) == ["user: hold \(gate)", "assistant: Part one, part two.", "user: and after that?"])
  }

  @Test("stopping the answer while a follow-up waits pauses the queue: nothing reaches the agent until it resumes")
  func stopHoldsTheQueue() async throws {
    // Given an answer that has streamed "Part one, " and holds there, and a follow-up waiting behind it
    let gate = Self.gate()
    let store = try store()
    defer { store.close() }
    store.sendMessage("hold \(gate)")
    _ = try #require(await store.state(where: { $0.streamingReply?.text.string == "Part one, " }))
    let followUp = store.sendMessage("and after that?")
    #expect(store.state.followUps.turns.map(\.clientID) == [followUp])

    // When the user stops the answer
    store.send(.stopReply)

    // Then the answer stays as far as it came, stopped, and the queue holds the follow-up, paused by it
    let stopped = try #require(
      await store.state(where: { state in
        state.isSettled && state.streamingReply == nil && state.messages.contains { $0.reply == .cancelled }
      }))
    let answer = try #require(stopped.messages.last)
    #expect(answer.reply == .cancelled && answer.text == "Part one, ")
    #expect(stopped.followUps.turns.map(\.clientID) == [followUp])
    #expect(stopped.followUps.pause == .answerEnded(answer.clientID, .cancelled))
    // And the agent was asked once, for the answer that never went out whole
    let beforeResume = try await received(gate)
    #expect(beforeResume.count == 1, "the agent was asked \(beforeResume.count) times")
    #expect(beforeResume.first?["completed"] as? Bool == false)

    // When the user resumes the queue
    store.send(.resumeQueue)

    // Then the follow-up goes, after the stopped answer, and is answered
    let done = try #require(await store.ended(4))
    #expect(done.messages.map(\.reply) == [nil, .cancelled, nil, .completed])
    #expect(done.messages[2].clientID == followUp)
    #expect(done.followUps.isEmpty && done.followUps.pause == nil)
    // And it is the second request the agent received, carrying the stopped answer as the user sees it
    let received = try await received(gate)
    try #require(received.count == 2, "the agent was asked \(received.count) times")
    #expect(Self.cameAfter(received[1], received[0]))
    #expect(Self.history(received[1]) == ["user: hold \(gate)", "assistant: Part one, ", "user: and after that?"])
    try await open(gate)  // should the server still hold the stopped run, it ends now
  }
}
