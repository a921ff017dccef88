import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// Starter prompts and follow-up suggestions: what the user may send next with one tap.
@Suite("Suggestions")
struct SuggestionsTests {
  @Test("an empty conversation shows the host's starter prompts; tapping one sends it, and they go")
  func starters() {
    let chat = Chat.existing([])
    chat.send(.setStarterPrompts(["Where is my order?", "  ", "Where is my order?", "Change my address"]))
    #expect(
      chat.state.shownSuggestions == ["Where is my order?", "Change my address"], "trimmed, no blanks or repeats")

    let request = chat.nextRequestID
    let effects = chat.send(.sendSuggestion(1, clientID: "c1", at: time(1)))
    #expect(FollowUpQueueTests.sent(effects) == ["c1"])
    #expect(chat.texts == ["Change my address"])
    #expect(chat.state.requests[request] != nil)
    #expect(chat.state.shownSuggestions.isEmpty, "the conversation is no longer empty")
  }

  @Test("follow-ups the backend offers with an answer show under it, until the user writes again")
  func followUpsFromTheReply() {
    let (chat, request) = StreamingTests.replying()
    chat.send(.replyDelta(request, "It ships Monday."))
    let answer = chat.state.streamingReply!.clientID
    chat.send(.replySuggested(request, ["Track it", "Change the delivery day"]))
    #expect(chat.state.shownSuggestions.isEmpty, "not while the answer streams")
    _ = FollowUpQueueTests.finishes(request, as: "s2", in: chat, at: 5)
    #expect(chat.state.messages.last?.clientID == answer)
    #expect(chat.state.shownSuggestions == ["Track it", "Change the delivery day"])

    chat.send(.sendSuggestion(0, clientID: "c9", at: time(6)))
    #expect(chat.texts.last == "Track it")
    #expect(chat.state.shownSuggestions.isEmpty, "they went with the answer they followed")
  }

  @Test("a suggestion for a reply no longer streaming, or one that does not exist, changes nothing")
  func staleAndMissing() {
    let chat = Chat.existing([.server("Hello", id: "s1", at: 1)])
    chat.send(.replySuggested(RequestID(epoch: chat.state.epoch, sequence: 99), ["Hi"]))
    #expect(chat.state.suggestions.isEmpty)
    #expect(chat.send(.sendSuggestion(0, clientID: "c1", at: time(2))) == [])
    #expect(chat.state.userError?.code == .invalidAction)
    #expect(chat.state.messages.count == 1)
  }

  @Test("the host may offer follow-ups for an answer; a flood is cut to what a screen can show")
  func hostFollowUps() {
    let answer = Message.server("Here is your invoice", id: "s1", at: 1)
    let chat = Chat.existing([answer])
    let long = String(repeating: "a", count: 500)
    chat.send(.suggestFollowUps((1...20).map { "Option \($0)" } + [long], after: answer.clientID))
    #expect(chat.state.shownSuggestions.count == Suggestions.maximumCount)
    #expect(Suggestions.cleaned([long]).first?.count == Suggestions.maximumLength)
  }

  @Test("suggestions are stored with the conversation")
  func stored() throws {
    let answer = Message.server("Hi", id: "s1", at: 1)
    let chat = Chat.existing([answer])
    chat.send(.suggestFollowUps(["More"], after: answer.clientID))
    let data = try JSONEncoder().encode(chat.state)
    let restored = try JSONDecoder().decode(ConversationState.self, from: data)
    #expect(restored.shownSuggestions == ["More"])
  }
}
