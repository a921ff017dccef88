import ConversationState
import Persistence

/// A conversation the list deleted leaves nothing on the device.
extension ChatClient {
  /// On the worker: the store open on `id`, if any, lets go of its file without a last write and closes
  /// (a screen still holding it sees it closed: ask the client for the conversation again and it is a fresh
  /// one); then the conversation's file, archived messages (and with them its search entries), draft,
  /// follow-ups and queued outbox work are deleted. A host operation dropped from the outbox is reported
  /// refused.
  func deleteStoredConversation(_ id: ConversationID, closing handle: ConversationHandle?) {
    let closing = handle.flatMap { handle in core.withLock { $0.stores.removeValue(forKey: handle) } }
    if let closing {
      closing.follower.file.withLock { $0 = nil }
      closing.store.close()
    }
    let current = storage.withLock { $0 }
    if let outbox = current.outbox {
      let dropped = ChatError(.conversationNotFound, "The conversation was deleted before this was sent.")
      var queued: [OutboxOperation] = []
      do throws(PersistenceError) {
        queued = try outbox.removeWaiting(in: id)
      } catch {
        storageErrors.deliver(error)
      }
      for outcome in queued.compactMap({ HostOperationOutcome($0, .refused(dropped)) }) {
        hostOperations?.deliver(outcome)
      }
      if !queued.isEmpty { countOutbox() }
    }
    do throws(PersistenceError) {
      try current.scope?.removeConversation(id)
    } catch {
      storageErrors.deliver(error)
    }
  }
}
