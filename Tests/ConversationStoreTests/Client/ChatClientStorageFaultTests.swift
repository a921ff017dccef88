import ConversationTesting
import Foundation
import Persistence
import Testing

@testable import ConversationStore

#if canImport(Glibc)
  import Glibc
#endif

/// A phone runs out of space; a folder's permissions change. Writes then fail mid-session, at every kind of
/// file the storage keeps, and the chat must go on.
@Suite("ChatClient when the disk refuses writes", .hangGuard)
struct ChatClientStorageFaultTests {
  /// What the host's storage callbacks heard.
  final class Heard: Sendable {
    private let events = StateLock<[String]>([])
    var all: [String] { events.withLock { $0 } }
    func error(_ error: PersistenceError) { events.withLock { $0.append("error \(error.kind)") } }
    func recovered(_: StorageRecovery) { events.withLock { $0.append("recovered") } }
  }

  @Test(
    "writes fail mid-session: the chat goes on from memory, the host hears once, then once that it works again",
    arguments: [("a full disk", ENOSPC), ("a folder made read-only", EACCES)])
  func writesFailThenWorkAgain(_ story: String, code: Int32) async throws {
    // Given a conversation with a message stored before the fault
    let root = TemporaryRoot()
    let heard = Heard()
    let user = UserIdentity(userID: "u-1")
    do {
      let harness = try await ClientHarness.start(
        identity: user, root: root.path, onStorageError: heard.error, onStorageRecovered: heard.recovered)
      let chat = harness.client.conversation("c1")
      _ = await chat.state(where: { $0.connection == .connected })
      harness.socket.yield(.event("c1", .messageCreated(.server("Stored before", id: "s1", at: 1))))
      _ = await chat.state(where: { $0.messages.count == 1 })
      await harness.client.settled()

      // When every write under the storage's folder starts failing, and the chat goes on: three messages
      // arrive, the draft changes, the connection drops and the user writes offline
      StorageFaults.failWrites(under: root.path, with: code)
      for index in 2...4 {
        harness.socket.yield(
          .event("c1", .messageCreated(.server("Arrived \(index)", id: "s\(index)", at: Double(index)))))
      }
      chat.send(.setDraft("typing while full"))
      let shown = await chat.state(where: { $0.messages.count == 4 && $0.draft == "typing while full" })
      _ = await harness.drop(harness.socket, throwing: ChatError(.network, "tunnel"))
      _ = await chat.state(where: { $0.connection.isOffline })
      chat.sendMessage("Written while full")
      let offline = await chat.state(where: { state in
        if case .failed = state.messages.outgoing.last?.delivery { return true }
        return false
      })
      await harness.client.settled()

      // Then everything shows from memory, the offline message says it could not be kept (never `queued`),
      // and the host heard of the failure once, whatever number of writes failed
      #expect(shown?.messages.map(\.text) == ["Stored before", "Arrived 2", "Arrived 3", "Arrived 4"])
      if case .failed(let error) = offline?.messages.outgoing.last?.delivery {
        #expect(error.code == .storageFailed)
        #expect(error.retryable)
      } else {
        Issue.record("the message written while full reads \(String(describing: offline?.messages.outgoing.last))")
      }
      _ = await waitUntil { !heard.all.isEmpty }
      #expect(heard.all == ["error io"], "\(story): \(heard.all)")

      // When writing works again and the user goes on, the host hears so, once
      StorageFaults.lift(under: root.path)
      chat.send(.setDraft("space again"))
      _ = await waitUntil { heard.all.count == 2 }
      chat.send(.setDraft("space again, and more"))
      await harness.client.settled()
      #expect(heard.all == ["error io", "recovered"])
      await harness.client.close()
    }

    // And after a relaunch what was stored before is there, with what was written once it worked again
    let again = try await ClientHarness.start(identity: user, root: root.path)
    let reopened = again.client.conversation("c1")
    let restored = await reopened.state(where: { !$0.isRestoring })
    #expect(
      restored?.messages.filter(\.isCommitted).map(\.text) == ["Stored before", "Arrived 2", "Arrived 3", "Arrived 4"])
    #expect(restored?.draft == "space again, and more")
    await again.client.close()
  }
}
