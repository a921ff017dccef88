import ConversationState
import Persistence

/// Discarding the session: what the person has on this device goes, and they start afresh, still signed in.
extension ChatClient {
  /// Discards the conversations on this device and starts afresh, as a support widget's "end chat" does
  /// (DobroDesk's `resetSession()`): every open store is cleared and closed (ask the client for stores
  /// again), the stored conversations, their search entries, drafts, follow-ups and the list are deleted,
  /// and what waited in the outbox is dropped, not sent (host operations among it are reported refused). The
  /// person stays signed in; their standing approvals and the outbox's numbering (the epoch goes on: this is
  /// not a sign-out) are kept; the shared connection is opened again. Nothing on the server is deleted.
  ///
  /// To discard one conversation's messages in a store without the client, send the store `.clear`; with a
  /// client, use this.
  public func resetSession() { send(.resetSession) }

  /// On the worker: the stores' files are let go without a last write, the stores cleared and closed, the
  /// scope deleted and opened again empty.
  func resetScope(closing handles: [ConversationHandle]) {
    let closing = core.withLock { core in handles.compactMap { core.stores.removeValue(forKey: $0) } }
    for conversation in closing {
      conversation.follower.file.withLock { $0 = nil }
      conversation.store.send(.clear)
      conversation.store.close()
    }
    let previous = storage.withLock { current -> ClientStorage in
      defer { current.listEpoch = nil }
      return current
    }
    let dropped = ChatError(.cancelled, "The session was reset before this was sent.")
    for outcome in (previous.outbox?.operations ?? []).compactMap({ HostOperationOutcome($0, .refused(dropped)) }) {
      hostOperations?.deliver(outcome)
    }
    if let root = options.storage {
      do throws(PersistenceError) {
        try root.forget(StorageScope(workspace: options.workspace, userID: previous.userID))
      } catch {
        storageErrors.deliver(error)
      }
    }
    openAfresh(previous.userID, numberingOnFrom: previous.outbox?.sequencing) { next throws(PersistenceError) in
      next.standingApprovals = previous.standingApprovals
      if !next.standingApprovals.isEmpty { try next.scope?.standingApprovals.save(next.standingApprovals) }
    }
  }
}
