import ChatOpenAI
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The follow-up queue (`ConversationState.followUps`) as a host on LLMock sees it: what the user writes while
/// the answer streams goes to the model only once that answer has come in whole, checked in LLMock's journal.
extension OpenAILLMockTests {
  /// What LLMock journaled for `model`, oldest first (`seq`, `started_at` and `ended_at` on LLMock's monotonic
  /// clock, `completed`, `body`, …). A read waits while any request on the server is in flight.
  func journal(_ model: String) async throws -> [[String: Any]] {
    var components = URLComponents(
      url: base.appendingPathComponent("_llmock/scoped/requests"), resolvingAgainstBaseURL: false)!
    components.queryItems = [URLQueryItem(name: "model", value: model)]
    let (data, _) = try await URLSession.shared.data(from: components.url!)
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    return object?["requests"] as? [[String: Any]] ?? []
  }

  @Test(
    "a follow-up written while the answer streams waits, and reaches the model after that answer ended, with it in the history",
    arguments: [OpenAIAPI.chatCompletions, .responses])
  func followUpWaitsForTheAnswer(api: OpenAIAPI) async throws {
    // Given an answer whose first word streams, then holds (an LLMock stall) before the rest comes
    let model = Self.model("queue")
    let firstAnswer = "The first answer, in full."
    // The stall acts on the event after the first text delta: Chat's role delta then "The ", or the
    // Responses API's four opening events then "The ". Its 20 s are the time the user has to write the
    // follow-up while the answer streams (3 s were not enough in a loaded CI run: the test's task resumed
    // after the stall had ended); nothing is timed against them, and the stall stays under the 60 s idle
    // timeout.
    let firstTextEvent = api == .chatCompletions ? 1 : 4
    try await script(
      model,
      [
        ["type": "reply", "text": firstAnswer],
        [
          "type": "stream_fault", "kind": "stall", "after_chunks": firstTextEvent + 1, "stall_seconds": 20,
          "match": ["stream": true],
        ],
      ])
    let store = try store(model, api: api)
    defer { store.close() }
    store.sendMessage("Tell me about queues")
    _ = try #require(await store.state(where: { $0.streamingReply?.text.string.isEmpty == false }))
    try #require(store.state.isAnswering, "the stall was over before the follow-up was written")

    // When the user writes a follow-up while it streams
    let followUp = store.sendMessage("And then?")

    // Then it waits in the queue instead of going out beside the answer
    #expect(store.state.followUps.turns.map(\.clientID) == [followUp])
    #expect(store.state.messages.count == 1, "only the question is in the conversation")

    // When the answer comes in whole, the follow-up goes by itself and is answered
    let done = try await Self.ended(store, 4)
    #expect(done.messages.map(\.reply) == [nil, .completed, nil, .completed])
    #expect(done.messages[2].clientID == followUp && done.messages[2].delivery == .sent)
    #expect(done.messages[1].text == firstAnswer)
    #expect(done.followUps.isEmpty && done.followUps.pause == nil)

    // And LLMock received two requests: the follow-up's started after the first response's last byte went out
    let journal = try await journal(model)
    try #require(journal.count == 2, "LLMock was asked \(journal.count) times")
    let (first, second) = (journal[0], journal[1])
    #expect(first["completed"] as? Bool == true, "the first answer did not stream whole: \(first)")
    let firstEnded = try #require(first["ended_at"] as? Double)
    let secondStarted = try #require(second["started_at"] as? Double)
    #expect(secondStarted >= firstEnded, "the follow-up reached LLMock while the first answer still streamed")
    // And the follow-up's request carries the conversation as the user sees it, the whole first answer in it
    let body = try #require(second["body"] as? [String: Any])
    #expect(OpenAIRelaunchTests.history(body, api: api) == ["Tell me about queues", firstAnswer, "And then?"])
    #expect(try await faults(model).errors == [])
  }
}
