import ChatHTTP
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ServerSentEvents
import Testing

/// Follow-up suggestions on our protocol: the reference server offers them with an answer (`suggestions`
/// event), and a store shows them under it until the user sends one.
@Suite("Suggestions on our protocol", .hangGuard)
struct ReferenceServerSuggestionsTests {
  @Test("the server's follow-ups show under its answer; tapping one sends it, answered in turn")
  func followUpsUnderTheAnswer() async throws {
    // Given the reference server (typed events), which offers follow-ups when asked for suggestions
    let server = try await ReferenceServer.start()
    let store = ChatStore(backend: try server.backend())
    defer { store.close() }
    store.send(.connect)

    // When the user asks, and the answer completes
    store.sendMessage("Please suggest what to do about my order")
    let answered = await store.state(within: 30) { !$0.shownSuggestions.isEmpty && $0.streamingReply == nil }

    // Then the server's follow-ups show under the answer
    #expect(answered?.shownSuggestions == ["Track my order", "Change the delivery day"])
    #expect(answered?.messages.last?.role == .assistant)

    // And tapping one sends its text, which is answered in turn; the chips go
    store.sendSuggestion(0)
    let again = await store.state(within: 30) { state in
      state.messages.count == 4 && state.streamingReply == nil && state.messages.last?.role == .assistant
    }
    #expect(again?.messages.map(\.text)[2] == "Track my order")
    #expect(again?.shownSuggestions.isEmpty == true)
  }

  @Test("a suggestions frame that is not a list of texts ends the reply as any unreadable frame does")
  func malformedFrame() throws {
    let payload = SendPayload(conversationID: "conv-1", clientID: "c-1", text: "Hi", attachments: [])
    var mapper = ReplyStreamMapper(sending: payload, at: Date())
    #expect(throws: ChatError.self) {
      try mapper.map(ServerSentEvent(type: "suggestions", data: #"{"suggestions": "Track it"}"#, lastEventID: ""))
    }
    var fresh = ReplyStreamMapper(sending: payload, at: Date())
    let events = try fresh.map(
      ServerSentEvent(type: "suggestions", data: #"{"suggestions": ["Track it"]}"#, lastEventID: ""))
    #expect(events.last == .suggested(["Track it"]))
  }
}
