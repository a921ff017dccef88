import ConversationState
import Persistence
import Reducers

/// Stores open at once and read their stored copy on the worker: the caller never waits for the disk.
extension ChatClient {
  /// On the worker: reads the file of conversation `id` (nil: the new conversation) if `open`'s follower
  /// still waits for it, hands the file to the follower, and gives the store what was stored (`.restored`;
  /// ignored if the user cleared the store meanwhile). Snapshots taken before are not written (the follower
  /// skips a restoring state), so the empty state never overwrites the file.
  func restoreIfNeeded(_ open: OpenConversation, id: ConversationID?) {
    guard
      open.follower.awaitsFile.withLock({ awaits in
        defer { awaits = false }
        return awaits
      })
    else { return }
    var stored: ConversationState?
    if let scope = storage.withLock({ $0.scope }) {
      do throws(PersistenceError) {
        let file = try scope.conversation(id, as: options)
        if let error = file.restoreError { storageErrors.deliver(error) }
        open.follower.file.withLock { $0 = file }
        stored = file.restored.map(relaunched)
      } catch {
        storageErrors.deliver(error)
      }
    }
    open.store.send(.restored(stored ?? ConversationState(conversationID: id)))
  }

  /// The open conversation whose store is `store`.
  func openConversation(of store: ChatStore) -> OpenConversation? {
    core.withLock { core in core.stores.values.first { $0.store === store } }
  }

  /// `stored` as this run takes it (`ConversationReducer.settledForThisRun`), with the outbox's messages.
  private func relaunched(_ stored: ConversationState) -> ConversationState {
    let inOutbox = Set(
      (storage.withLock { $0.outbox }?.operations ?? []).compactMap { operation -> ClientMessageID? in
        guard case .send(let outgoing) = operation.kind else { return nil }
        return outgoing.clientID
      })
    return conversationReducer.settledForThisRun(stored, inOutbox: inOutbox)
  }
}
