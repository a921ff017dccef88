import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

@Suite("Retrying an answer the server never named")
struct RetryUnnamedAnswerTests {
  @Test("an answer cut off before the server gave it an ID is regenerated through the question it answers")
  func unnamedAnswerRegenerates() throws {
    // Given a question the server confirmed, whose answer's stream broke before the server named it
    let chat = Chat.existing()
    let send = chat.userSends("Where is my order?", id: "c1")
    chat.send(
      .sendAccepted(
        send,
        confirmed: Message(clientID: "c1", serverID: "s1", role: .user, text: "Where is my order?", createdAt: time(0)),
        conversationID: "conv-1"))
    chat.send([.replyStarted(send, agent: nil, at: time(1)), .replyDelta(send, "It ship")])
    chat.send(.requestFailed(send, ChatError(.network, "lost")))
    let answer = try #require(chat.state.messages.last)
    #expect(answer.role == .assistant && answer.serverID == nil && answer.reply == .truncated)

    // When the user retries it
    let request = chat.nextRequestID
    let effects = chat.send(.regenerate(answer.clientID))

    // Then it is regenerated as an answer to the question, with no answer ID to replace on the server
    #expect(effects == [.regenerate(request, "conv-1", replyTo: "s1", answer: nil)])
    #expect(chat.state.userError == nil)

    // And the new answer takes the cut-off one's place when it finishes
    chat.send(.replyFinished(request, message: .server("It shipped today.", id: "s2", at: 2)))
    #expect(chat.texts == ["Where is my order?", "It shipped today."])
  }
}
