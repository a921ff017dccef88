import ConversationStore
import ConversationTesting
import Foundation
import Persistence
import Testing

// The README's storage example, compiled and run as a test; `readmeShowsIt` keeps the README's copy verbatim.
// README-STORAGE-BEGIN
/// Opens conversation `id` of the signed-in `user`, restored from disk, and keeps it stored.
func openStoredConversation(
  _ id: ConversationID, user: String, storage: ChatStorage, backend: any ChatBackend,
  environment: StoreEnvironment = .live
) throws -> (store: ChatStore, persisting: Task<Void, Never>) {
  let file = try storage.scope(StorageScope(workspace: "acme", userID: user)).conversation(id)
  if let error = file.restoreError { print("storage: \(error)") }  // moved aside; starting clean
  let store = ChatStore(
    file.restored ?? ConversationState(conversationID: id), backend: backend, environment: environment,
    storedHistory: file.historyReader)  // older pages from disk before the server
  store.send(.relaunched)  // in flight when the app stopped: sending fails, a streaming reply resumes or is cut off
  let persisting = Task {
    for await snapshot in store.snapshots() {
      do {
        try file.persist(snapshot.state, changes: snapshot.changes, at: Date())
      } catch {
        print("storage: \(error)")  // a path and a reason, never message text
      }
    }
  }
  return (store, persisting)
}
// README-STORAGE-END

@Suite("README storage example")
struct ReadmeStorageTests {
  @Test("a conversation opened the README's way is there again, with its reply, after the store is gone")
  func storedAcrossRuns() async throws {
    // Given a conversation opened from storage, in which the user asks and the agent answers
    let root = ScratchRoot()
    let clock = TestClock()
    let backend = try ScriptedBackend(clock: clock, replies: ["Your |order |ships |today.|<finish>"], interval: 0.1)
    let first = try openStoredConversation(
      "conv-7", user: "u-1042", storage: root.storage(), backend: backend, environment: .deterministic(clock: clock))
    first.store.sendMessage("Where is my order?")
    let store = first.store
    #expect(await clock.run { store.state.messages.lastCommitted?.role == .assistant && store.state.isSettled })

    // When that store is closed and its persister has written the last snapshot
    first.store.close()
    await first.persisting.value

    // Then a new run opens the same conversation with both messages, read back from disk
    let second = try openStoredConversation("conv-7", user: "u-1042", storage: root.storage(), backend: backend)
    #expect(second.store.state.messages.map(\.text) == ["Where is my order?", "Your order ships today."])
    second.store.close()
    await second.persisting.value
  }

  @Test("the article shows the storage example verbatim")
  func readmeShowsIt() throws {
    #expect(
      try ReadmeExcerpt(marker: "README-STORAGE", in: #filePath).isShown(
        in: "Sources/ConversationStore/ConversationStore.docc/StorageAndOutbox.md"))
  }
}
