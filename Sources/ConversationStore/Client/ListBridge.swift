import ConversationState
import Foundation
import Persistence
import Reducers

/// The list's side of a client: realtime events of conversations that are not open go to the list (open
/// ones report through their follower), and the list's snapshots go to the scope's list file.
enum ListBridge {
  /// What the list learns from a realtime event of conversation `id`. Messages a store of the conversation
  /// received (`isOpen`: the hub handed it to one) are its follower's to report; any other goes to the list
  /// here, so none is told to nobody. The same message told twice counts once (`lastMessageID`).
  static func route(_ event: RealtimeEvent, of id: ConversationID, isOpen: Bool, to list: ConversationListStore) {
    if isOpen {
      if case .messageCreated = event { return }
      if case .replyFinished = event { return }
    }
    if let listEvent = ConversationListEvent(event, in: id) { list.send(.realtime(listEvent)) }
  }

  /// Saves each list snapshot to the file `target` names for its epoch (none while the identity changes,
  /// or after a sign-out until the new list), on the client's worker, after what was handed to it before.
  static func persist(
    list: ConversationListStore, worker: ClientWorker,
    target: @escaping @Sendable (IdentityEpoch) -> ConversationListFile?,
    onStorageError: @escaping @Sendable (PersistenceError) -> Void, onWritten: @escaping @Sendable () -> Void
  ) -> Task<Void, Never> {
    let snapshots = list.snapshots()
    return Task {
      var saved: ConversationListState?
      for await snapshot in snapshots {
        let state = snapshot.state
        if let saved, saved.conversations == state.conversations, saved.cursor == state.cursor,
          saved.hasMore == state.hasMore
        {
          continue
        }
        let written = await worker.run { () -> Bool in
          guard let file = target(state.epoch) else { return false }
          do throws(PersistenceError) {
            try file.save(state)
            onWritten()
            return true
          } catch {
            onStorageError(error)
            return false
          }
        }
        if written { saved = state }
      }
    }
  }
}
