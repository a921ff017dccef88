import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// What an open conversation tells its list row, step by step (`ConversationListEvent.reporting`).
@Suite("An open conversation's steps, as its list row hears them")
struct ListReportingTests {
  /// The list actions one step of `chat` makes, for `action`.
  func reported(_ chat: Chat, _ action: ConversationAction) -> [ConversationListAction] {
    let before = chat.state
    chat.send(action)
    return ConversationListEvent.reporting(
      from: before, to: chat.state, changes: chat.state.messages.changes(since: before.messages))
  }

  @Test("the user's message at once, the answer once committed (not at its first delta), then the read")
  func aTurnReachesTheRow() {
    // Given an open conversation
    let chat = Chat.existing([.server("Hi, how can I help?", id: "s1", at: 1)])
    chat.connected()

    // When the user asks, the answer streams and is committed, and the user reads it
    let send = chat.nextRequestID
    let asked = reported(
      chat, .send(OutgoingMessage(clientID: "c1", text: "Where is order 1042?", createdAt: .story(2))))
    chat.send(
      .sendAccepted(
        send, confirmed: .confirmed("Where is order 1042?", clientID: "c1", serverID: "s2", at: 2),
        conversationID: "conv-1"))
    chat.send(.replyStarted(send, agent: nil, at: .story(3)))
    let streamed = reported(chat, .replyDelta(send, "It ships"))
    let answered = reported(chat, .replyFinished(send, message: .server("It ships Thursday.", id: "s3", at: 3)))
    let read = reported(chat, .markRead(upTo: "s3"))

    // Then the row hears the question, nothing while it streams, the answer, and that it was read
    #expect(
      asked == [
        ConversationListAction.realtime(
          .messageCreated("conv-1", preview: "Where is order 1042?", role: .user, at: .story(2)))
      ])
    #expect(streamed.isEmpty)
    #expect(
      answered == [
        ConversationListAction.realtime(
          .messageCreated("conv-1", preview: "It ships Thursday.", role: .assistant, at: .story(3), messageID: "s3"))
      ])
    #expect(read == [.markRead("conv-1")])
  }

  @Test("a conversation the server has not created yet tells the list nothing")
  func newConversationIsSilent() {
    let chat = Chat()
    #expect(reported(chat, .send(OutgoingMessage(clientID: "c1", text: "Hello", createdAt: .story(1)))).isEmpty)
  }
}
