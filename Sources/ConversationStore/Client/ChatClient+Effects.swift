import ConversationState
import Foundation
import Persistence
import Reducers

/// How a client performs its reducer's effects: on its worker, in reduce order, outside its lock. Results
/// come back as actions.
extension ChatClient {
  func perform(_ effect: ClientEffect) {
    switch effect {
    case .openScope(let userID):
      openScopeIfNeeded(userID)
    case .openConversation(let handle, let id):
      // The store was made when the host asked for it; here it is restored and goes live.
      guard let open = core.withLock({ $0.stores[handle] }) else { return }
      restoreIfNeeded(open, id: id)
      open.store.send(.connect)
    case .closeConversations(let handles):
      for (_, store) in takeStores(handles) { store.close() }
    case .forward(let action, let handles):
      for store in stores(handles) { store.send(action) }
    case .moveGuestData(let userID, let handles):
      moveGuestData(to: userID, handles)
    case .switchScope(let userID, let handles, let clearing, let outboxEpoch):
      switchScope(to: userID, closing: handles, with: clearing, outboxEpoch: outboxEpoch)
    case .resetScope(let handles):
      resetScope(closing: handles)
    case .deleteStoredConversation(let id, let handle):
      deleteStoredConversation(id, closing: handle)
    case .connectRealtime(let request):
      let updates = backend.realtime(conversation: nil)
      let list = list
      hub.open(
        request, updates,
        toList: { id, event, storeHasIt in ListBridge.route(event, of: id, isOpen: storeHasIt, to: list) },
        listEvent: { list.send(.realtime($0)) },
        report: { [weak self] in self?.send($0) }, clock: environment.clock, jitter: environment.jitter)
    case .cancel(let request):
      hub.cancel(request)
      requests.cancel(request)
    case .startTimer(.idleCheck, let seconds):
      timers.start(.idleCheck, after: seconds, on: environment.clock) { [weak self] in self?.releaseIdle() }
    case .startTimer(let timer, let seconds):
      timers.start(timer, after: seconds, on: environment.clock) { [weak self] in self?.send(.timerFired(timer)) }
    case .cancelTimer(let timer):
      timers.cancel(timer)
    case .refreshCredentials(let request):
      guard let credentials else {
        return send(.credentialsAnswered(request, ChatError(.unauthorized, "No provider.")))
      }
      requests.run(request) { [weak self] in
        var failure: ChatError?
        do { try await credentials.refresh() } catch {
          failure = chatError(error) ?? ChatError(.cancelled, "Cancelled.")
        }
        if Task.isCancelled { return }
        self?.send(.credentialsAnswered(request, failure))
      }
    case .prepareBatch(let request):
      prepareBatch(request)
    case .uploadBatch(let request, let batch):
      let backend = backend
      let clock = environment.clock
      let jitter = environment.jitter
      requests.run(request) { [weak self] in
        do {
          let receipt = try await backend.uploadOutbox(batch)
          if let sequencing = receipt.resync {
            self?.send(.batchOutOfSync(request, sequencing, at: clock.now(), jitter: jitter()))
          } else {
            self?.send(.batchUploaded(request, receipt))
          }
        } catch {
          guard let error = chatError(error) else { return }  // cancelled: the next client sends it again
          self?.send(.batchFailed(request, error, at: clock.now(), jitter: jitter()))
        }
      }
    case .sendContactDetails(let request, let details):
      let backend = backend
      let clock = environment.clock
      let jitter = environment.jitter
      requests.run(request) { [weak self] in
        do {
          try await backend.updateContactDetails(details)
          self?.send(.contactDetailsSent(request))
        } catch {
          guard let error = chatError(error) else { return }  // cancelled: replaced, or the person changed
          self?.send(.contactDetailsFailed(request, error, at: clock.now(), jitter: jitter()))
        }
      }
    case .finishBatch(let id):
      guard let outbox = currentOutbox() else { return }
      do throws(PersistenceError) {
        try outbox.finishBatch(id)
        storageErrors.wrote()
      } catch {
        storageErrors.deliver(error)
      }
      countOutbox()
    case .resynchronizeOutbox(let batchID, let sequencing):
      guard let outbox = currentOutbox() else { return }
      do throws(PersistenceError) {
        // The installation's epoch first: a scope opened next numbers its outbox from it.
        try options.storage?.adoptOutboxEpoch(sequencing.epoch)
        backend.outboxEpochChanged(sequencing.epoch)
        try outbox.resynchronize(
          epoch: sequencing.epoch, nextSequence: sequencing.nextSequence, droppingBatch: batchID)
        storageErrors.wrote()
      } catch {
        storageErrors.deliver(error)
      }
    case .returnRefused(let refused):
      for item in refused { returnToConversation(item.operation, item.error) }
    case .reportHostOperations(let outcomes):
      for outcome in outcomes { hostOperations?.deliver(outcome) }
    case .shutDown(let handles):
      // The list is not closed here: `close()` closes it once every follower has reported its store's last
      // snapshot to it.
      let closing = takeStores(handles)
      for (_, store) in closing { store.close() }
      requests.cancelAll(closing: true)
      timers.cancelAll(closing: true)
      hub.close()
    }
  }

  /// The stores of `handles` that are still open, in order.
  func stores(_ handles: [ConversationHandle]) -> [ChatStore] {
    core.withLock { core in handles.compactMap { core.stores[$0]?.store } }
  }

  /// Removes the stores of `handles` from the table and returns them (with their conversation) to close.
  private func takeStores(_ handles: [ConversationHandle]) -> [(ConversationID?, ChatStore)] {
    core.withLock { core in
      handles.compactMap { handle in
        core.stores.removeValue(forKey: handle).map { ($0.store.state.conversationID, $0.store) }
      }
    }
  }

  /// An operation went back: its conversation undoes what it showed, with the reason (a message fails; a
  /// rating or feedback answer goes back). A conversation not open is opened for it. A host operation's
  /// refusal goes to the host instead.
  func returnToConversation(_ operation: OutboxOperation, _ error: ChatError) {
    if let outcome = HostOperationOutcome(operation, .refused(error)) {
      hostOperations?.deliver(outcome)
      return
    }
    guard let id = operation.conversationID, !core.withLock({ $0.state.isClosed }) else { return }
    let store = conversation(id)
    // On the worker already: restored now, so the message the operation was for is there to fail.
    if let open = openConversation(of: store) { restoreIfNeeded(open, id: id) }
    store.send(.outboxRejected(operation.kind, error))
  }
}
