import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// The send waits for its uploads: effects and state, step by step.
@Suite("Attachment uploads")
struct UploadTests {
  static let photo = MessageAttachment(
    id: "a1", filename: "receipt.png", contentType: "image/png", byteSize: 10,
    source: .file(URL(fileURLWithPath: "/tmp/receipt.png")))

  @Test("one upload effect per attachment; progress only moves forward; the send goes out when all are stored")
  func uploadThenSend() {
    let chat = Chat.existing()
    let upload = chat.nextRequestID
    let effects = chat.send(
      .send(OutgoingMessage(clientID: "c1", text: "Here", attachments: [Self.photo], createdAt: time(0))))
    #expect(effects == [.uploadAttachment(upload, "c1", Self.photo)])
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .pending)
    chat.send(.uploadProgressed(upload, 0.6))
    chat.send(.uploadProgressed(upload, 0.3))
    #expect(chat.state.messages[clientID: "c1"]?.attachments.first?.uploadProgress == 0.6)
    let send = chat.nextRequestID
    let sent = chat.send(.uploadFinished(upload, URL(string: "https://files.example/receipt.png")!))
    var stored = Self.photo
    stored.url = URL(string: "https://files.example/receipt.png")
    stored.uploadProgress = 1
    #expect(
      sent == [
        .sendMessage(send, SendPayload(conversationID: "conv-1", clientID: "c1", text: "Here", attachments: [stored]))
      ])
  }

  @Test("a failed upload fails the message; a retry uploads again; a discard cancels the uploads")
  func failureRetryDiscard() {
    let chat = Chat.existing()
    let upload = chat.nextRequestID
    chat.send(.send(OutgoingMessage(clientID: "c1", text: "Here", attachments: [Self.photo], createdAt: time(0))))
    chat.send(.requestFailed(upload, ChatError(.network, "offline")))
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .failed(ChatError(.network, "offline")))
    let again = chat.nextRequestID
    #expect(chat.send(.retry("c1")) == [.uploadAttachment(again, "c1", Self.photo)])
    chat.send(.uploadProgressed(again, 0.5))
    #expect(chat.send(.discard("c1")) == [.cancel(again)], "discarding the waiting message cancels its upload")
    #expect(!chat.state.messages.contains("c1"))
  }

  @Test("a late upload result after sign-out lands nowhere")
  func lateResult() {
    let chat = Chat.existing()
    let upload = chat.nextRequestID
    chat.send(.send(OutgoingMessage(clientID: "c1", text: "Here", attachments: [Self.photo], createdAt: time(0))))
    let effects = chat.send(.signOut)
    #expect(effects.contains(.cancel(upload)))
    let before = chat.state
    #expect(chat.send(.uploadFinished(upload, URL(string: "https://files.example/x")!)) == [])
    #expect(chat.state == before)
  }
}
