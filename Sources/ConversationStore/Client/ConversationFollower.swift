import ConversationState
import Foundation
import Persistence
import Reducers

/// Follows one conversation store of a client: persists each snapshot to the conversation's file, tells the
/// list what happened in the conversation (a message sent or received, the conversation read or created), and,
/// with diagnostics on, reports its catch-up.
///
/// The file sits in a slot the client fills once the store is restored, and can empty (sign-out: nothing
/// more may reach the old user's scope) or swap (a guest upgraded to an account: the conversation moves to
/// the account's scope).
final class ConversationFollower: Sendable {
  let file: StateLock<ConversationFile?>
  /// Whether the client has still to read the conversation's file and put it in the slot (once).
  let awaitsFile: StateLock<Bool>
  private let task: StateLock<Task<Void, Never>?>
  private let progress: StateLock<Progress>

  /// The last snapshot written and reported, and whether the store closed and its last one was handled.
  private struct Progress: Sendable {
    var state: ConversationState?
    var version: UInt64 = 0
    var isFinished = false
  }

  /// Where a follower reports its conversation's catch-up: the client's sink, the store's handle (the
  /// conversation's name in diagnostics), and the connection mode the events are read under.
  struct Diagnostics: Sendable {
    let sink: ClientDiagnostic.Sink
    let conversation: ConversationHandle
    let mode: ConnectionMode
  }

  init(
    store: ChatStore, file: StateLock<ConversationFile?>, awaitsFile: Bool, list: ConversationListStore,
    clock: any ChatClock,
    worker: ClientWorker, diagnostics: Diagnostics?, onStorageError: @escaping @Sendable (PersistenceError) -> Void,
    onWritten: @escaping @Sendable () -> Void,
    onCreated: @escaping @Sendable (ConversationID) -> Void
  ) {
    self.file = file
    self.awaitsFile = StateLock(awaitsFile)
    self.task = StateLock(nil)
    let progress = StateLock(Progress())
    self.progress = progress
    let slot = self.file
    let snapshots = store.snapshots()
    // Read now, before the host can act on the store: the first snapshot this task reads may already hold
    // what the host did (a message sent at once), and it is reported against this state.
    let initial = store.state
    let task = Task { [weak store] in
      var previous = initial
      var isFirst = true
      for await snapshot in snapshots {
        let state = snapshot.state
        // Stamped as the snapshot arrives, before its write: outside every lock, off the worker.
        if let diagnostics, !isFirst {
          let events = DiagnosticRules.events(
            of: diagnostics.conversation, from: previous, to: state, mode: diagnostics.mode, at: clock.now())
          for event in events { diagnostics.sink.yield(event) }
        }
        // On the client's worker, after what was handed to it before (a sign-out empties the slot there
        // first); the lock is held only to read which file is current, never across the write. A state
        // still restoring is not the conversation yet: it would overwrite the file with nothing.
        if !state.isRestoring {
          await worker.run {
            do throws(PersistenceError) {
              guard let file = slot.withLock({ $0 }) else { return }
              try file.persist(state, changes: snapshot.changes, at: clock.now())
              onWritten()
            } catch {
              onStorageError(error)
            }
          }
          // The waiting answer's results are on disk with this state: its continuation may go. A write that
          // failed reports too: storage that cannot keep the results (reported to the host) must not hold
          // the agent's answer for ever.
          if let answer = state.continuationAwaitingStorage { store?.send(.toolResultsStored(answer)) }
        }
        let now = clock.now()
        // Created in any step, also the one that brought the stored copy (the server may name the new
        // conversation while its file is read): the client adopts the store and the list gets its row.
        if previous.conversationID == nil, let id = state.conversationID {
          onCreated(id)
          list.send(.realtime(.conversationCreated(Self.createdRow(id, state, at: now))))
        }
        // Opened (its file read, or nothing to read): a title the user gave in the list, maybe while the
        // conversation was closed, wins over the one its file kept.
        if !state.isRestoring && (isFirst || previous.isRestoring), let id = state.conversationID,
          let row = list.state.conversations[id], row.isTitleSetByUser, row.title != state.title
        {
          store?.send(.realtime(id, .titleChanged(row.title)))
        }
        // What was stored is not news for the list; what the user did while it was read was reported then.
        if previous.isRestoring == state.isRestoring {
          // The first snapshot is a reset: its change is worked out against the state the store opened with.
          let changes = snapshot.changes.isReset ? state.messages.changes(since: previous.messages) : snapshot.changes
          // Messages count once: the realtime hub leaves a message it handed to this store to be reported
          // from here (`ListBridge.route`), and the list counts one told twice once.
          for action in ConversationListEvent.reporting(from: previous, to: state, changes: changes) {
            list.send(action)
          }
        }
        previous = state
        isFirst = false
        progress.withLock {
          $0.state = state
          $0.version = snapshot.version
        }
      }
      await worker.run {
        do throws(PersistenceError) {
          try slot.withLock { $0 }?.flush(at: clock.now())
        } catch {
          onStorageError(error)
        }
      }
      progress.withLock { $0.isFinished = true }
    }
    self.task.withLock { $0 = task }
  }

  /// The row of a conversation the server just named: its title, or else (as the list titles any row) its
  /// first message's, and its newest message's preview. Its messages were written before it had an ID, so the
  /// list hears of them here or never (they are not news in a later step).
  static func createdRow(_ id: ConversationID, _ state: ConversationState, at now: Date) -> ConversationSummary {
    let firstUserMessage = state.messages.first { $0.role == .user }
    return ConversationSummary(
      id: id, title: state.title ?? firstUserMessage.map { ConversationSummary.title(fromFirstMessage: $0.text) },
      lastActivityAt: now, lastMessagePreview: state.messages.last?.text)
  }

  /// Whether the state `store` has now was written and reported to the list (or the store closed and its
  /// last snapshot was handled). It compares states: a check for tests and the demo, which poll it, not for
  /// a hot path. Nothing waits on it, so no wakeup can be lost when a state changes and changes back.
  func isCaughtUp(with store: ChatStore) -> Bool { hasHandled(through: .max, of: store) }

  /// Waits until the state `store` had at `version` (or a later one) was written and reported, or the store
  /// closed and its last snapshot was handled. It polls memory (a millisecond apart): a store whose state
  /// changes and changes back makes no new snapshot, so no wake-up would come.
  func handled(through version: UInt64, of store: ChatStore) async {
    while !hasHandled(through: version, of: store) { try? await Task.sleep(nanoseconds: 1_000_000) }
  }

  /// Whether the store closed and its last snapshot was handled, or a snapshot at `version` or later was, or
  /// the state handled last is the store's state now (the store's lock is taken after this one's, never
  /// inside it).
  private func hasHandled(through version: UInt64, of store: ChatStore) -> Bool {
    let (handled, handledVersion, isFinished) = progress.withLock { ($0.state, $0.version, $0.isFinished) }
    return isFinished || handledVersion >= version || handled == store.state
  }

  /// Waits until the store closed and the last snapshot was written.
  func finished() async { await task.withLock { $0 }?.value }
}
