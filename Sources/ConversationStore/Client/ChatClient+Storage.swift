import ConversationState
import Foundation
import Persistence
import Reducers

/// The client's storage work, on its worker: scopes, the outbox, and moving data between scopes.
extension ChatClient {
  /// Opens `storage`'s scope of `storage.userID` and its outbox, reporting what fails.
  static func openScope(
    _ storage: inout ClientStorage, _ options: ChatClientOptions, report: (PersistenceError) -> Void
  ) {
    storage.opened = true
    guard let root = options.storage else { return }
    do throws(PersistenceError) {
      let scope = try root.scope(StorageScope(workspace: options.workspace, userID: storage.userID))
      storage.scope = scope
      loadStandingApprovals(&storage, scope, report: report)
      let outbox = try scope.outbox(limits: options.outboxLimits)
      if let error = outbox.restoreError { report(error) }
      // Numbered in the installation's epoch, whichever scope it is (the epoch a sign-out raised).
      try outbox.adopt(epoch: root.outboxEpoch())
      storage.outbox = outbox
    } catch {
      report(error)
    }
  }

  /// The outbox of the scope in use. When opening it failed (a full disk when the person signed in), it is
  /// opened again here, on the worker: one failed write must not leave the client without a durable outbox
  /// for the rest of the session.
  func currentOutbox() -> Outbox? {
    let current = storage.withLock { $0 }
    if let outbox = current.outbox { return outbox }
    guard options.storage != nil, current.opened else { return nil }
    var reopened = ClientStorage(userID: current.userID, listEpoch: current.listEpoch)
    Self.openScope(&reopened, options) { storageErrors.deliver($0) }
    guard reopened.outbox != nil else { return nil }
    return storage.withLock { storage -> Outbox? in
      // Only into the same person's scope: a change of identity since has its own.
      guard storage.userID == current.userID, storage.outbox == nil else { return storage.outbox }
      storage.scope = storage.scope ?? reopened.scope
      storage.outbox = reopened.outbox
      return storage.outbox
    }
  }

  func openScopeIfNeeded(_ userID: String?) {
    let current = storage.withLock { $0 }
    guard !current.opened || current.userID != userID else { return }
    var next = ClientStorage(userID: userID, listEpoch: list.state.epoch)
    Self.openScope(&next, options) { storageErrors.deliver($0) }
    use(next)
  }

  /// Hands `operation` to the worker, which makes it durable and then calls `done`; an operation that
  /// pushed others out of the outbox's bounds fails theirs. Called in effect order by the stores.
  func record(_ operation: OutboxOperation, _ done: @escaping @Sendable (ChatError?) -> Void) {
    let clock = environment.clock
    worker.async { [weak self] in
      guard let self, let outbox = self.currentOutbox() else {
        return done(ChatError(.storageFailed, "There is no outbox to keep this in."))
      }
      var stamped = operation
      stamped.enqueuedAt = clock.now()
      let waiting = Self.waiting(in: outbox)
      do throws(PersistenceError) {
        let evicted = try outbox.enqueue(stamped, at: stamped.enqueuedAt)
        self.storageErrors.wrote()
        done(nil)
        self.returnEvicted(evicted, from: waiting)
        self.send(.outboxChanged)
        self.countOutbox()
      } catch {
        self.storageErrors.deliver(error)
        done(ChatError(.storageFailed, "This could not be kept: \(error)"))
      }
    }
  }

  /// The outbox's operations by ID, before a change that may evict some.
  private static func waiting(in outbox: Outbox) -> [OutboxOperationID: OutboxOperation] {
    Dictionary(outbox.operations.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// Each operation the outbox's bounds dropped fails where it was made: a message shows `failed` with
  /// `OUTBOX_EVICTED` (retry or discard), a host operation is reported to the host.
  private func returnEvicted(_ evictions: [OutboxEviction], from waiting: [OutboxOperationID: OutboxOperation]) {
    for eviction in evictions {
      guard let dropped = waiting[eviction.id] else { continue }
      let why =
        switch eviction.reason {
        case .age: "It waited longer than the outbox keeps anything (\(Int(options.outboxLimits.maximumAge)) s)."
        case .count, .bytes: "The outbox made room for newer operations (\(eviction.reason.rawValue))."
        }
      returnToConversation(dropped, ChatError(.outboxEvicted, why))
    }
  }

  /// Drops what waited past the outbox's age bound (failing it where it was made), then reads the batch to
  /// upload next and reports it. A batch once begun is kept whole for its retry, whatever its age: it may
  /// have reached the server.
  func prepareBatch(_ request: RequestID) {
    guard let outbox = currentOutbox() else { return send(.batchPrepared(request, nil)) }
    do throws(PersistenceError) {
      let waiting = Self.waiting(in: outbox)
      let expired = try outbox.expire(at: environment.clock.now())
      returnEvicted(expired, from: waiting)
      if !expired.isEmpty { countOutbox() }
      let batch = try outbox.beginBatch(limit: 100, makeID: environment.makeID)
      send(.batchPrepared(request, batch))
    } catch {
      storageErrors.deliver(error)
      send(
        .batchFailed(
          request, ChatError(.storageFailed, "The outbox could not be read: \(error)"), at: environment.clock.now(),
          jitter: environment.jitter()))
    }
  }

  /// The guest's data moves into the account's scope: each open conversation written whole to the
  /// account's file (which may be new, or hold an older copy), the guest's file removed, the list saved
  /// there, the outbox's operations carried over; then the account's scope is the one in use.
  func moveGuestData(to userID: String, _ handles: [ConversationHandle]) {
    let previous = storage.withLock { $0 }
    var next = ClientStorage(userID: userID, listEpoch: previous.listEpoch)
    Self.openScope(&next, options) { storageErrors.deliver($0) }
    let now = environment.clock.now()
    let open = core.withLock { core in handles.compactMap { core.stores[$0] } }
    for conversation in open {
      let state = conversation.store.state
      var moved: ConversationFile?
      do throws(PersistenceError) {
        // The older history it pages from disk first, so the account's file opens knowing it is there.
        if let to = next.scope { try previous.scope?.copyArchivedMessages(of: state.conversationID, to: to) }
        moved = try next.scope?.conversation(state.conversationID, as: options)
        try moved?.persist(state, changes: .reset, at: now)
        if next.scope != nil { try previous.scope?.removeConversation(state.conversationID) }
      } catch {
        storageErrors.deliver(error)
      }
      // Whatever failed (a full disk), nothing more of it reaches the guest's scope: its next snapshot goes
      // to the account's file, which a failed write leaves to be rewritten whole, or nowhere.
      conversation.follower.file.withLock { $0 = moved }
    }
    if let from = previous.scope, let to = next.scope {
      moveStoredConversations(from: from, to: to, skipping: Set(open.map { $0.store.state.conversationID }), at: now)
    }
    do throws(PersistenceError) {
      if let scope = next.scope { try scope.conversationList.save(list.state) }
      if let from = previous.outbox, let to = next.outbox, from !== to {
        // The same epoch goes on (signing up is not signing out): the account's numbers follow the guest's.
        try Self.continueNumbering(of: from.sequencing, in: to)
        for operation in from.operations { try to.enqueue(operation, at: now) }
        try from.clear()
      }
      if next.scope != nil, let root = options.storage {
        // Nothing of the guest stays behind: after a sign-out and a relaunch the anonymous scope is empty.
        try root.forget(StorageScope(workspace: options.workspace, userID: nil))
      }
    } catch {
      storageErrors.deliver(error)
    }
    use(next)
  }

  /// Another person: nothing more reaches the previous scope (the file slots are emptied here, on the
  /// worker, before any later write), the stores are cleared and closed, the old outbox is emptied and the
  /// list reset; then the new scope is opened.
  func switchScope(
    to userID: String?, closing handles: [ConversationHandle], with clearing: ConversationAction,
    outboxEpoch: OutboxEpochChange
  ) {
    let closing = core.withLock { core in handles.compactMap { core.stores.removeValue(forKey: $0) } }
    let now = environment.clock.now()
    let previousOutbox = storage.withLock { $0.outbox }
    // The queue ends with the epoch: what it held for a store being closed fails in what that person finds
    // when they sign in again, instead of showing `queued` forever.
    let ending = previousOutbox?.operations ?? []
    let dropped = ChatError(.outboxEvicted, "Signing out ended the queue this was waiting in.")
    for conversation in closing {
      // What the previous person last saw is theirs to find again: written whole to their own scope before
      // the slot empties (their follower's pending writes then find no file).
      let file = conversation.follower.file.withLock { file in
        defer { file = nil }
        return file
      }
      let last = conversationReducer.endingQueue(conversation.store.state, dropping: ending, with: dropped)
      do throws(PersistenceError) {
        try file?.persist(last, changes: .reset, at: now)
        try file?.flush(at: now)
      } catch {
        storageErrors.deliver(error)
      }
    }
    let open = Set(closing.map { $0.store.state.conversationID })
    failStored(ending.filter { !open.contains($0.conversationID) }, with: dropped, at: now)
    for outcome in ending.compactMap({ HostOperationOutcome($0, .refused(dropped)) }) {
      hostOperations?.deliver(outcome)
    }
    let previous = storage.withLock { current -> ClientStorage in
      defer { current.listEpoch = nil }
      return current
    }
    for conversation in closing {
      conversation.store.send(clearing)
      conversation.store.close()
    }
    let endsEpoch = outboxEpoch == .raised
    let carried = previous.outbox?.sequencing
    do throws(PersistenceError) {
      try previous.outbox?.clear()
      if endsEpoch, let epoch = try options.storage?.raiseOutboxEpoch() { backend.outboxEpochChanged(epoch) }
      if previous.userID == nil, userID != nil, let root = options.storage {
        // A guest who signed in without their conversations leaves nothing behind to reappear after a
        // sign-out: their scope goes (its files are closed above).
        try root.forget(StorageScope(workspace: options.workspace, userID: nil))
      }
    } catch {
      storageErrors.deliver(error)
    }
    openAfresh(userID, numberingOnFrom: endsEpoch ? nil : carried)
  }

  /// The end of a change of person or a reset: nothing parked of the scope before, the list reset,
  /// `userID`'s scope opened (its outbox numbering on from `carried`, when given; `prepare` adds to it before
  /// it is used) and put in use.
  func openAfresh(
    _ userID: String?, numberingOnFrom carried: (epoch: UInt64, nextSequence: Int)?,
    prepare: (inout ClientStorage) throws(PersistenceError) -> Void = { _ throws(PersistenceError) in }
  ) {
    core.withLock { $0.parked = [] }
    list.send(.identityChanged)
    var next = ClientStorage(userID: userID, listEpoch: list.state.epoch)
    Self.openScope(&next, options) { storageErrors.deliver($0) }
    do throws(PersistenceError) {
      if let carried, let outbox = next.outbox { try Self.continueNumbering(of: carried, in: outbox) }
      try prepare(&next)
    } catch {
      storageErrors.deliver(error)
    }
    use(next)
  }

  /// `next` is the storage in use from now on, and its person's standing approvals go to every open store.
  func use(_ next: ClientStorage) {
    storage.withLock { $0 = next }
    handOutStandingApprovals()
    countOutbox()
  }

  /// Tells the reducer how many operations the outbox in use holds, after anything changed it. Called on
  /// the worker, which makes every change of the outbox, so the counts arrive in the order of the changes.
  func countOutbox() {
    send(.outboxCounted(storage.withLock { $0.outbox }?.count))
  }

  /// The messages of `operations` in conversations that are not open fail with `error` in their files in
  /// the scope in use (which is about to end), so signing in again shows them ready to retry, not queued.
  private func failStored(_ operations: [OutboxOperation], with error: ChatError, at now: Date) {
    guard let scope = storage.withLock({ $0.scope }) else { return }
    let byConversation = Dictionary(
      grouping: operations.filter { operation in
        if case .send = operation.kind { return operation.conversationID != nil }
        return false
      }, by: \.conversationID)
    for (id, sends) in byConversation.sorted(by: { ($0.key?.rawValue ?? "") < ($1.key?.rawValue ?? "") }) {
      do throws(PersistenceError) {
        let file = try scope.conversation(id, as: options)
        guard let stored = file.restored else { continue }
        let state = conversationReducer.endingQueue(stored, dropping: sends, with: error)
        try file.persist(state, changes: .reset, at: now)
        try file.flush(at: now)
      } catch {
        storageErrors.deliver(error)
      }
    }
  }

  /// `outbox` goes on numbering where `sequencing` (the guest's) left off, in the same epoch.
  static func continueNumbering(of sequencing: (epoch: UInt64, nextSequence: Int), in outbox: Outbox)
    throws(PersistenceError)
  {
    let own = outbox.sequencing
    let next = own.epoch == sequencing.epoch ? max(own.nextSequence, sequencing.nextSequence) : sequencing.nextSequence
    try outbox.adopt(epoch: sequencing.epoch, nextSequence: next)
  }

  /// The guest's stored conversations that are not open move too; where the account already has a copy of
  /// one, the account's stays.
  private func moveStoredConversations(
    from: ScopeDirectory, to: ScopeDirectory, skipping: Set<ConversationID?>, at now: Date
  ) {
    guard let root = options.storage else { return }
    do throws(PersistenceError) {
      let inventory = try root.inventory()
      guard let stored = inventory.scopes.first(where: { "\(root.root)/\($0.directory)" == from.directory }) else {
        return
      }
      for conversation in stored.conversations where !skipping.contains(conversation.state.conversationID) {
        try from.copyArchivedMessages(of: conversation.state.conversationID, to: to)
        let file = try to.conversation(conversation.state.conversationID, as: options)
        if file.restored == nil { try file.persist(conversation.state, changes: .reset, at: now) }
        try file.flush(at: now)
      }
    } catch {
      storageErrors.deliver(error)
    }
  }
}
