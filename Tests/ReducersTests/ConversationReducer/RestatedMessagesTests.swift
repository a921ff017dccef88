import ConversationState
import Foundation
import Reducers
import Testing

@Suite("Messages a server restates beside a reply")
struct RestatedMessagesTests {
  static func message(_ text: String, id: ServerMessageID, role: Role) -> Message {
    Message(
      clientID: ClientMessageID(rawValue: "agui-\(id.rawValue)"), serverID: id, role: role, text: text,
      createdAt: time(99))
  }

  @Test("a replayed thread lands before the question, in its order; the question keeps its row, nothing goes")
  func replayedThreadGoesFirst() throws {
    // Given a question being answered
    let (chat, request) = StreamingTests.replying()
    let question = try #require(chat.state.messages.first)

    // When the server restates the thread: two earlier messages, then the question itself
    chat.send(
      .replyRestated(
        request,
        [
          Self.message("Earlier question", id: "old-u", role: .user),
          Self.message("Earlier answer", id: "old-a", role: .assistant),
          Self.message("Question", id: "s1", role: .user),
        ]))

    // Then the earlier ones come first, the question is the same row at the same time, and the reply streams on
    #expect(chat.texts == ["Earlier question", "Earlier answer", "Question"])
    #expect(chat.state.messages[serverID: "s1"]?.clientID == question.clientID)
    #expect(chat.state.messages[serverID: "s1"]?.createdAt == question.createdAt)
    #expect(chat.state.messages[serverID: "old-a"]?.reply == .completed)
    #expect(chat.state.streamingReply?.requestID == request)
  }

  @Test("with nothing held, restated messages go before everything the device shows")
  func nothingHeld() {
    let (chat, request) = StreamingTests.replying()
    chat.send(
      .replyRestated(
        request,
        [Self.message("First", id: "x1", role: .user), Self.message("Second", id: "x2", role: .assistant)]))
    #expect(chat.texts == ["First", "Second", "Question"])
  }

  @Test("a restatement for a request that streams no reply changes nothing")
  func staleRequest() {
    let (chat, _) = StreamingTests.replying()
    let before = chat.state
    chat.send(
      .replyRestated(RequestID(epoch: IdentityEpoch(), sequence: 999), [Self.message("Stray", id: "x9", role: .user)]))
    #expect(chat.state == before)
  }
}
