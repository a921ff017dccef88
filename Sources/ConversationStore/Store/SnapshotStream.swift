public import Reducers

extension Store {
  /// The snapshots as an `AsyncStream`, for code and APIs typed on one. The same rule as `snapshots()`: the
  /// current state first, then the latest state whenever it changed, each with what changed since the
  /// previous snapshot this stream gave; a slow reader skips intermediate states, nothing is queued. It
  /// ends when the store closes (after the final state) or the iterating task is cancelled.
  ///
  /// ```swift
  /// let frames: AsyncStream<Snapshot<ConversationState>> = store.snapshotStream()
  /// for await snapshot in frames { render(snapshot.state, snapshot.changes) }
  /// ```
  ///
  /// Prefer `snapshots()`, which is the same without a stream's wrapper: each `for await` over it is its own
  /// subscriber. One stream is one subscriber: iterate it from one task. A second iteration of the same
  /// stream running at the same time gets nothing (its `next()` returns nil), and the stream then ends for
  /// both, as a stream whose producer finished does. Make one stream per reader.
  public func snapshotStream() -> AsyncStream<Snapshot<R.State>> {
    let reader = SnapshotStreamReader(SnapshotSubscription(core: core))
    return AsyncStream(unfolding: { await reader.next() })
  }
}

/// The subscription behind one `snapshotStream()`, read one `next()` at a time.
///
/// `@unchecked Sendable`: `subscription` (not `Sendable`: it keeps the last state it delivered) is touched
/// only inside `next()`, between claiming `isReading` under its lock and releasing it, so never by two
/// tasks at once; a `next()` that finds it claimed returns nil without touching it.
final class SnapshotStreamReader<R: Reducer>: @unchecked Sendable where R.State: ChangeTracking & Equatable {
  private let subscription: SnapshotSubscription<R>
  private let isReading = StateLock(false)

  init(_ subscription: SnapshotSubscription<R>) { self.subscription = subscription }

  func next() async -> Snapshot<R.State>? {
    let claimed = isReading.withLock { reading in
      if reading { return false }
      reading = true
      return true
    }
    guard claimed else { return nil }
    defer { isReading.withLock { $0 = false } }
    return await subscription.next(isolation: nil)
  }
}
