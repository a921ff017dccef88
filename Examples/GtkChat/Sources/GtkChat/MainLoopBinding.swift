import ConversationStore
import Synchronization

/// Delivers a store's snapshots to a toolkit's main loop without blocking it and without a backlog.
///
/// A task reads `store.snapshots()` off the main thread and keeps only the latest state in a locked slot. The
/// first state after the slot was drained schedules one main-loop callback; later ones only replace the state
/// waiting there. The callback takes the latest state and renders what changed since the state it rendered
/// last (`state.changes(since:)`), so a burst of a thousand deltas costs a few callbacks, each as cheap as the
/// rows it touches. Works for any toolkit with a main loop: pass its "run this on the main thread" as
/// `schedule` (GTK: `g_idle_add`, here `GLibMainLoop.schedule`; AppKit: `DispatchQueue.main.async`).
///
/// ```swift
/// let binding = MainLoopBinding(store, schedule: GLibMainLoop.schedule) { state, previous, changes in
///   messageList.apply(changes, from: previous, to: state)   // positional updates of the changed rows only
/// }
/// // … when the view goes away:
/// binding.cancel()
/// ```
// README-MAINLOOP-BEGIN
final class MainLoopBinding<State: ChangeTracking>: Sendable {
  /// Runs a closure once, soon, on the main thread.
  typealias Schedule = @Sendable (@escaping @Sendable @MainActor () -> Void) -> Void
  /// Shows `state`; `changes` lists the rows that differ from `previous`, the state shown before (nil, and a
  /// reset, the first time).
  typealias Render = @Sendable @MainActor (State, _ previous: State?, ChangeSet<State.RowID>) -> Void

  private struct Slot {
    var latest: State?
    var rendered: State?
    var isScheduled = false
  }

  private let slot = Mutex(Slot())
  private let reader = Mutex<Task<Void, Never>?>(nil)

  /// Starts reading `store`'s snapshots; `render` is called on the main loop until `cancel()` or the store closes.
  init<R: Reducer>(_ store: Store<R>, schedule: @escaping Schedule, render: @escaping Render) where R.State == State {
    let task = Task { [weak self] in
      for await snapshot in store.snapshots() {
        guard let self else { return }
        if self.offer(snapshot.state) { schedule { self.drain(render) } }
      }
    }
    reader.withLock { $0 = task }
  }

  /// Stops reading; a callback already scheduled still renders the state it finds. (The task is taken out
  /// under the lock and cancelled after it: nothing is cancelled while a lock is held.)
  func cancel() { reader.withLock { $0 }?.cancel() }

  /// Leaves `state` for the main loop; true when no callback is pending, so the caller schedules one.
  private func offer(_ state: State) -> Bool {
    slot.withLock { slot in
      slot.latest = state
      defer { slot.isScheduled = true }
      return !slot.isScheduled
    }
  }

  @MainActor private func drain(_ render: Render) {
    let (state, previous) = slot.withLock { slot in
      defer { (slot.rendered, slot.latest, slot.isScheduled) = (slot.latest ?? slot.rendered, nil, false) }
      return (slot.latest, slot.rendered)
    }
    guard let state else { return }
    render(state, previous, previous.map { state.changes(since: $0) } ?? .reset)
  }
}
// README-MAINLOOP-END
