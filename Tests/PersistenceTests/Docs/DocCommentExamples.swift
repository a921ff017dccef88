import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Persistence
import Testing

// The Swift examples of the Persistence module's doc comments, compiled between `DOCC-` markers
// (`DocumentationCodeTests` checks each doc comment's Swift blocks against them) and run against a scratch
// directory where that is cheap.

/// What the host's log received, for `HostCallbacks`' example.
private let logged = StateLock<[PersistenceError]>([])
private func log(_ error: PersistenceError) { logged.withLock { $0.append(error) } }

/// Persists every snapshot of a store restored from `scope`'s conversation "c42", until the store closes.
private func persistedExample(_ scope: ScopeDirectory, _ backend: any ChatBackend) async throws {
  // DOCC-CONVERSATIONFILE-BEGIN
  let file = try scope.conversation("c42")
  let store = ChatStore(file.restored ?? ConversationState(conversationID: "c42"), backend: backend)
  store.send(.relaunched)
  for await snapshot in store.snapshots() {
    try file.persist(snapshot.state, changes: snapshot.changes, at: Date())
  }
  // DOCC-CONVERSATIONFILE-END
}

/// The default root is the user's own: opened here, never run.
private func chatStorageExample() throws -> ConversationFile {
  // DOCC-CHATSTORAGE-BEGIN
  let storage = try ChatStorage(root: ChatStorage.defaultRoot(app: "acme-chat"))
  let scope = try storage.scope(StorageScope(workspace: "acme", userID: "u-1042"))
  let file = try scope.conversation("c42")
  // DOCC-CHATSTORAGE-END
  return file
}

@Suite("Persistence's doc-comment examples")
struct PersistenceDocCommentTests {
  @Test("a conversation persisted snapshot by snapshot is restored from its file")
  func conversationFile() async throws {
    // Given a store persisted the doc comment's way, with a draft
    let root = ScratchRoot()
    let scope = try root.scope()
    let backend = ControlledBackend()
    let persisting = Task { try await persistedExample(scope, backend) }
    try await Task.sleep(for: .milliseconds(50))
    persisting.cancel()
    _ = try? await persisting.value

    // Then the conversation's file is there to be opened again
    let file = try scope.conversation("c42")
    #expect(file.restoreError == nil)
  }

  @Test("an operation queued in the outbox goes up in a batch and leaves once answered")
  func outbox() async throws {
    let root = ScratchRoot()
    let scope = try root.scope()
    let backend = ControlledBackend()
    let now = Date.story(1)
    Task {
      for await call in backend.calls {
        if case .uploadOutbox(_, let answer) = call { answer.resume(returning: OutboxReceipt()) }
      }
    }
    // DOCC-OUTBOX-BEGIN
    let outbox = try scope.outbox()
    let evicted = try outbox.enqueue(
      OutboxOperation(id: "op-1", conversationID: "c42", kind: .markRead(upTo: "m9"), enqueuedAt: now), at: now)
    if let batch = try outbox.beginBatch(makeID: { UUID().uuidString }) {
      _ = try await backend.uploadOutbox(batch)  // retried unchanged until it is answered
      try outbox.finishBatch(batch.id)  // accepted, or a duplicate of one applied
    }
    // DOCC-OUTBOX-END
    #expect(evicted.isEmpty)
    #expect(outbox.operations.isEmpty)
  }

  @Test("a search finds a stored message by the start of its words")
  func search() async throws {
    let root = ScratchRoot()
    let scope = try root.scope()
    let file = try scope.conversation("c1")
    let state = ConversationState.existing([.server("Your refund order is on its way", id: "s1", at: 1)], id: "c1")
    try file.persist(state, changes: ChangeSet(isReset: true), at: .story(2))
    var found: [String] = []
    func print(_ conversation: ConversationID, _ words: Substring) { found.append("\(conversation): \(words)") }
    // DOCC-SCOPESTORAGE-SEARCH-BEGIN
    let page = try scope.search("refund order")  // messages with a word starting "refund" and one "order"
    for result in page.results { print(result.conversationID, result.message.text[result.matches[0]]) }
    // DOCC-SCOPESTORAGE-SEARCH-END
    #expect(found == ["c1: refund"])
  }

  @Test("a signed-in user's scope and the installation's anonymous one are apart")
  func storageScope() {
    // DOCC-STORAGESCOPE-BEGIN
    let mine = StorageScope(workspace: "acme-support", userID: "u-1042")
    let guest = StorageScope(workspace: "acme-support")  // the anonymous installation
    // DOCC-STORAGESCOPE-END
    #expect(mine != guest)
  }

  @Test("callbacks are delivered in order, off the caller, and can be waited for")
  func hostCallbacks() async {
    let error = PersistenceError(.tooLarge, path: "/tmp/acme-chat")
    // DOCC-HOSTCALLBACKS-BEGIN
    let errors = HostCallbacks<PersistenceError> { error in log(error) }
    errors.deliver(error)  // returns at once; `log` runs soon after, after the ones before it
    await errors.delivered()  // every callback made so far has run
    // DOCC-HOSTCALLBACKS-END
    #expect(logged.withLock { $0 } == [error])
  }

  @Test("the default root is under the user's data directory")
  func defaultRoot() {
    #expect(ChatStorage.defaultRoot(app: "acme-chat", environment: ["XDG_DATA_HOME": "/data"]) == "/data/acme-chat")
    _ = chatStorageExample
  }

  @Test("the stored conversations page as a sidebar reads them")
  func storedConversations() throws {
    let root = NSTemporaryDirectory() + "docc-list-" + UUID().uuidString
    defer { try? FileManager.default.removeItem(atPath: root) }
    let scope = try ChatStorage(root: root).scope(StorageScope(workspace: "acme", userID: "u1"))
    try scope.saveListRows((1...40).map { ConversationSummary(id: ConversationID("c\($0)")) }, removing: [])
    // DOCC-STOREDCONVERSATIONS-BEGIN
    let first = try scope.storedConversations(after: nil, limit: 30)
    let next = try scope.storedConversations(after: first.nextCursor, limit: 30)
    // DOCC-STOREDCONVERSATIONS-END
    #expect(first.conversations.count == 30 && next.conversations.count == 10)
  }
}
