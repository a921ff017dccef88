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

  /// Tells open conversations the titles their rows take, so that a conversation's header and its row in the
  /// sidebar agree: a rename (here or on another device) and a generated title reach the open store as
  /// `titleChanged`. A title the list made up from the first message of an untitled conversation stays the
  /// list's. `tell` gets each step's titles at once, from this task, with no lock held.
  static func forwardTitles(
    from list: ConversationListStore, to tell: @escaping @Sendable ([(ConversationID, String)]) -> Void
  ) -> Task<Void, Never> {
    let snapshots = list.snapshots()
    return Task {
      var previous: ConversationList?
      for await snapshot in snapshots {
        let rows = snapshot.state.conversations
        defer { previous = rows }
        guard let previous else { continue }
        let titles = renamed(from: previous, to: rows)
        if !titles.isEmpty { tell(titles) }
      }
    }
  }

  /// The rows of `rows` whose title changed from `previous` to one worth an open conversation's header: a
  /// user's, or one that replaced a title the row already had.
  static func renamed(from previous: ConversationList, to rows: ConversationList) -> [(ConversationID, String)] {
    let changes = rows.changes(since: previous)
    let candidates = changes.isReset ? Array(rows.lazy.map(\.id)) : Array(changes.updated)
    return candidates.compactMap { id in
      guard let row = rows[id], !row.title.isEmpty, let before = previous[id], before.title != row.title,
        row.isTitleSetByUser || !before.title.isEmpty
      else { return nil }
      return (id, row.title)
    }
  }

  /// Saves each list snapshot to the scope `target` names for its epoch (none while the identity changes,
  /// or after a sign-out until the new list), on the client's worker, after what was handed to it before:
  /// the list file (the first rows, shown at once after a relaunch) and, for every row that changed, the
  /// scope's index of stored conversations (what a backend without a list pages from); a conversation whose
  /// deletion is done leaves the index.
  static func persist(
    list: ConversationListStore, worker: ClientWorker,
    target: @escaping @Sendable (IdentityEpoch) -> ScopeDirectory?,
    onStorageError: @escaping @Sendable (PersistenceError) -> Void, onWritten: @escaping @Sendable () -> Void
  ) -> Task<Void, Never> {
    let snapshots = list.snapshots()
    return Task {
      var saved: ConversationListState?
      for await snapshot in snapshots {
        let state = snapshot.state
        if let saved, ConversationListFile.keepsSame(saved, state) { continue }
        let previous = saved
        let written = await worker.run { () -> Bool in
          guard let scope = target(state.epoch) else { return false }
          do throws(PersistenceError) {
            try scope.conversationList.save(state)
            let (rows, removed) = indexChanges(from: previous, to: state)
            try scope.saveListRows(rows, removing: removed)
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

  /// The rows to store in the index, and the conversations to take out of it, going from `previous` (the
  /// state last saved) to `state`: the rows that changed (all of them after a reset), and the deletions done
  /// since. A row that only left the list (a refresh no longer returns it) stays stored.
  static func indexChanges(from previous: ConversationListState?, to state: ConversationListState)
    -> (rows: [ConversationSummary], removed: [ConversationID])
  {
    let changes = previous.map { state.conversations.changes(since: $0.conversations) } ?? .reset
    let rows: [ConversationSummary] =
      changes.isReset
      ? Array(state.conversations)
      : changes.inserted.union(changes.updated).sorted { $0.rawValue < $1.rawValue }.compactMap {
        state.conversations[$0]
      }
    let removed = state.deleted.subtracting(previous?.deleted ?? []).sorted { $0.rawValue < $1.rawValue }
    return (rows, removed)
  }
}
