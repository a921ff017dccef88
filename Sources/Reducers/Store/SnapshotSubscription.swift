import ConversationState

/// One consumer's position: the last state it was given, which is all it needs to learn what changed.
///
/// Holding exactly one state (not a queue) is what bounds a slow consumer's memory.
final class SnapshotSubscription<R: Reducer>: Sendable where R.State: ChangeTracking & Equatable {
  private let store: Store<R>
  private let id: UInt64
  private let delivered: StateLock<(version: UInt64, state: R.State)?>

  init(store: Store<R>) {
    self.store = store
    id = store.register()
    delivered = StateLock(nil)
  }

  deinit { store.unregister(id) }

  func cancel() { store.unregister(id) }

  func next() async -> Snapshot<R.State>? {
    guard let previous = delivered.withLock({ $0 }) else {
      let (version, state) = store.core.withLock { ($0.version, $0.state) }
      delivered.withLock { $0 = (version, state) }
      return Snapshot(version: version, state: state, changes: .reset)
    }
    var seen = previous.version
    while true {
      await store.waitForVersion(after: seen, subscriber: id)
      // One lock acquisition per wake: membership, version and state are read together.
      let id = id
      let current = store.core.withLock { core in core.subscribers.contains(id) ? (core.version, core.state) : nil }
      guard !Task.isCancelled, let (version, state) = current else { return nil }
      seen = version
      // Actions that changed nothing (a stale result, a repeated intent) are not worth a frame.
      if state == previous.state { continue }
      delivered.withLock { $0 = (version, state) }
      return Snapshot(version: version, state: state, changes: state.changes(since: previous.state))
    }
  }
}
