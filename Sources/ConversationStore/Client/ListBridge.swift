import ConversationState
import Foundation
import Persistence
import Reducers

/// The list's side of a client: realtime events of conversations that are not open go to the list (open
/// ones report through their follower), and the list's snapshots go to the scope's list file.
enum ListBridge {
  /// Routes the client's realtime connection to the list until cancelled, resubscribing with the policy's
  /// reconnect backoff when the connection drops. As in a conversation's connection, opening proves
  /// nothing: the backoff starts again from its base only once the connection delivers an event or has
  /// stayed open for `ChatPolicy.healthyConnectionAfter`, so a stream that opens and closes at once is
  /// retried at the backoff's pace.
  static func routeRealtime(
    hub: RealtimeHub, list: ConversationListStore, policy: ChatPolicy, environment: StoreEnvironment,
    isOpen: @escaping @Sendable (ConversationID) -> Bool, onOpened: @escaping @Sendable () -> Void
  ) -> Task<Void, Never> {
    Task {
      var failures = 0
      while !Task.isCancelled {
        var openedAt: Date?
        do {
          for try await update in hub.subscribe(nil) {
            guard case .event(let id, let event) = update else {
              openedAt = environment.clock.now()
              onOpened()
              continue
            }
            failures = 0
            if case .messageCreated = event, isOpen(id) { continue }
            if case .replyFinished = event, isOpen(id) { continue }
            if let listEvent = ConversationListEvent(event, in: id) { list.send(.realtime(listEvent)) }
          }
        } catch let error as ChatError where error.isAuthorizationFailure {
          return  // the stores show it and ask for a fresh credential; retrying with this one cannot help
        } catch {}
        if Task.isCancelled { return }
        if let openedAt, environment.clock.now().timeIntervalSince(openedAt) >= policy.healthyConnectionAfter {
          failures = 0
        }
        failures += 1
        let delay = policy.reconnectBackoff.delay(attempt: failures, jitter: environment.jitter())
        do { try await environment.clock.sleep(seconds: delay) } catch { return }
      }
    }
  }

  /// Saves each list snapshot of the current epoch to the scope's list file. `target` answers, under the
  /// client's lock, which file the list of an epoch belongs to (none after a sign-out until the new list).
  static func persist(
    list: ConversationListStore, target: @escaping @Sendable (IdentityEpoch) -> ConversationListFile?,
    onStorageError: (@Sendable (PersistenceError) -> Void)?
  ) -> Task<Void, Never> {
    let snapshots = list.snapshots()
    return Task {
      var saved: ConversationListState?
      for await snapshot in snapshots {
        let state = snapshot.state
        guard let file = target(state.epoch) else { continue }
        if let saved, saved.conversations == state.conversations, saved.cursor == state.cursor,
          saved.hasMore == state.hasMore
        {
          continue
        }
        do throws(PersistenceError) {
          try file.save(state)
          saved = state
        } catch {
          onStorageError?(error)
        }
      }
    }
  }
}
