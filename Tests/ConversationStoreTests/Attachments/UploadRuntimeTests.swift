import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Attachments are uploaded by the runtime, and the send waits for them.
@Suite("Attachment uploads at runtime")
struct UploadRuntimeTests {
  static func file(_ name: String, _ text: String) throws -> MessageAttachment {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString)-\(name)")
    try Data(text.utf8).write(to: url)
    return MessageAttachment(
      id: AttachmentID(name), filename: name, contentType: "image/png", byteSize: text.utf8.count, source: .file(url))
  }

  static func make() throws -> (ChatStore, ScriptedBackend, TestClock) {
    let clock = TestClock()
    let backend = try ScriptedBackend(
      clock: clock, replies: ["Got it.|<finish>", "Got it again.|<finish>"], interval: 0.1)
    let store = ChatStore(
      ConversationState(conversationID: "c1"), backend: backend, environment: .deterministic(clock: clock))
    return (store, backend, clock)
  }

  @Test("a message with attachments is sent only once every upload is stored, with the stored URLs")
  func sendWaitsForUploads() async throws {
    let (store, backend, clock) = try Self.make()
    let clientID = store.sendMessage(
      "Receipts", attachments: [try Self.file("a.png", "AAAA"), try Self.file("b.png", "BBBB")])
    #expect(store.state.messages[clientID: clientID]?.delivery == .pending, "waiting for its uploads")
    #expect(
      await clock.run {
        store.state.messages[clientID: clientID]?.attachments.contains { $0.uploadProgress == 0.5 } == true
      })
    #expect(store.state.messages[clientID: clientID]?.delivery == .pending)
    #expect(await clock.run { store.state.isSettled && store.state.messages.count == 2 })
    let sent = store.state.messages[clientID: clientID]
    #expect(sent?.delivery == .sent)
    #expect(
      sent?.attachments.map(\.url) == [
        URL(string: "https://files.example/a.png"), URL(string: "https://files.example/b.png"),
      ])
    #expect(backend.uploadedFiles.sorted() == ["a.png", "b.png"])
    store.close()
  }

  @Test("identical content is uploaded once")
  func identicalContentOnce() async throws {
    let (store, backend, clock) = try Self.make()
    store.sendMessage("Twice", attachments: [try Self.file("one.png", "SAME"), try Self.file("two.png", "SAME")])
    #expect(await clock.run { store.state.isSettled && store.state.messages.count == 2 })
    #expect(backend.uploadedFiles.count == 1, "uploaded \(backend.uploadedFiles)")
    #expect(store.state.messages.first?.attachments.allSatisfy { $0.url != nil } == true)
    store.close()
  }

  @Test("a failed upload fails the message, retryable; a retry uploads only what was not stored")
  func failedUploadRetried() async throws {
    let (store, backend, clock) = try Self.make()
    backend.failNextUpload(of: "b.png")
    let clientID = store.sendMessage(
      "Receipts", attachments: [try Self.file("a.png", "AAAA"), try Self.file("b.png", "BBBB")])
    #expect(
      await clock.run { if case .failed = store.state.messages[clientID: clientID]?.delivery { true } else { false } })
    guard case .failed(let error) = store.state.messages[clientID: clientID]?.delivery else { return }
    #expect(error.retryable)
    #expect(await clock.run { store.state.messages[clientID: clientID]?.attachments.first?.url != nil })
    store.send(.retry(clientID))
    #expect(await clock.run { store.state.messages[clientID: clientID]?.delivery == .sent })
    #expect(backend.uploadedFiles.sorted() == ["a.png", "b.png", "b.png"], "a.png was not uploaded again")
    store.close()
  }

  @Test("signing out cancels uploads of the old identity; nothing of it is sent")
  func signOutCancelsUploads() async throws {
    let (store, backend, clock) = try Self.make()
    store.sendMessage("Private", attachments: [try Self.file("secret.png", "SECRET")])
    #expect(await clock.run { !backend.uploadedFiles.isEmpty })
    store.send(.signOut)
    clock.advance(by: 5)
    #expect(store.state.messages.isEmpty && store.state.requests.isEmpty)
    store.close()
  }
}
