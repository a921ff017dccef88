public import Reducers

/// A store's snapshots, as an `AsyncSequence`: each iteration is one subscriber.
///
/// ```swift
/// for await snapshot in store.snapshots() {
///   if snapshot.changes.isReset { reloadAll(snapshot.state) } else { reload(snapshot.changes) }
/// }
/// ```
public struct SnapshotSequence<R: Reducer>: AsyncSequence, Sendable where R.State: ChangeTracking & Equatable {
  /// Each element is one snapshot of the store's state.
  public typealias Element = Snapshot<R.State>
  /// The sequence never throws; it ends when the store closes or the iterating task is cancelled.
  public typealias Failure = Never

  let core: StateLock<StoreCore<R>>

  /// Registers a new subscriber; its first snapshot is the state at its first `next()`.
  public func makeAsyncIterator() -> Iterator { Iterator(subscription: SnapshotSubscription(core: core)) }

  /// One subscriber's position. Not `Sendable`: a subscription has one consumer, so two tasks can never
  /// wait on the same one (where one of them would never be woken).
  public struct Iterator: AsyncIteratorProtocol {
    let subscription: SnapshotSubscription<R>

    /// The next snapshot: the current state first, then the latest state once it changed; nil when the store
    /// closed or the task was cancelled.
    public mutating func next() async -> Snapshot<R.State>? { await subscription.next(isolation: nil) }

    /// Like `next()`, staying on the caller's actor.
    public mutating func next(isolation actor: isolated (any Actor)?) async -> Snapshot<R.State>? {
      await subscription.next(isolation: actor)
    }
  }
}

@available(*, unavailable)
extension SnapshotSequence.Iterator: Sendable {}

/// The last state a consumer was given, which is all it needs to learn what changed.
///
/// Holding exactly one state (not a queue) is what bounds a slow consumer's memory. It holds the store's
/// core, never the store, so a subscriber does not keep a dropped store alive.
final class SnapshotSubscription<R: Reducer> where R.State: ChangeTracking & Equatable {
  private let core: StateLock<StoreCore<R>>
  private let id: UInt64?
  private var delivered: (version: UInt64, state: R.State)?
  /// The store closed and this subscriber was given the last state it reached: the next call ends.
  private var hasSeenClose = false

  init(core: StateLock<StoreCore<R>>) {
    self.core = core
    id = core.register()
  }

  deinit { if let id { core.unregister(id) } }

  func next(isolation actor: isolated (any Actor)?) async -> Snapshot<R.State>? {
    guard !Task.isCancelled, !hasSeenClose else { return finish() }
    guard let previous = delivered else {
      // The first snapshot is the state as it is, also when the store closed before this subscriber began
      // (then it is the only one): a persister that started late still writes the final state.
      let (isSubscribed, version, state) = core.withLock { core in
        (id.map(core.subscribers.contains) ?? false, core.version, core.state)
      }
      if !isSubscribed { hasSeenClose = true }
      delivered = (version, state)
      return Snapshot(version: version, state: state, changes: .reset)
    }
    guard let id else { return finish() }
    var seen = previous.version
    while true {
      await core.waitForVersion(after: seen, subscriber: id)
      // One lock acquisition per wake: membership, version and state are read together.
      let (isSubscribed, version, state) = core.withLock { core in
        (core.subscribers.contains(id), core.version, core.state)
      }
      guard !Task.isCancelled else { return finish() }
      if !isSubscribed {
        // The store closed. A subscriber that had not seen its last state gets it once before the end: a
        // persister must not lose the final writes, nor a UI its final frame.
        hasSeenClose = true
        guard version != previous.version, state != previous.state else { return finish() }
        delivered = (version, state)
        return Snapshot(version: version, state: state, changes: state.changes(since: previous.state))
      }
      seen = version
      // Actions that changed nothing (a stale result, a repeated intent) are not worth a frame.
      if state == previous.state { continue }
      delivered = (version, state)
      return Snapshot(version: version, state: state, changes: state.changes(since: previous.state))
    }
  }

  private func finish() -> Snapshot<R.State>? {
    if let id { core.unregister(id) }
    return nil
  }
}
