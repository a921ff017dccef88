public import Reducers

/// Everything a store guards with its one lock: the state, its version, the effects waiting to be
/// performed, and the snapshot subscribers.
@usableFromInline
struct StoreCore<R: Reducer>: Sendable where R.State: ChangeTracking & Equatable {
  @usableFromInline var state: R.State
  @usableFromInline var version: UInt64 = 0
  @usableFromInline var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
  @usableFromInline var subscribers: Set<UInt64> = []
  @usableFromInline var nextSubscriberID: UInt64 = 0
  /// Effects of applied actions, in the order the actions were applied, not yet performed.
  @usableFromInline var queuedEffects: [[R.Effect]] = []
  /// Whether a sender is performing `queuedEffects`; at most one is.
  @usableFromInline var isPerformingEffects = false
  @usableFromInline var isClosed = false

  @usableFromInline init(state: R.State) { self.state = state }
}

extension StateLock {
  /// Registers a snapshot subscriber; nil once the store is closed.
  func register<R>() -> UInt64? where Value == StoreCore<R> {
    withLock { core in
      guard !core.isClosed else { return nil }
      core.nextSubscriberID += 1
      core.subscribers.insert(core.nextSubscriberID)
      return core.nextSubscriberID
    }
  }

  func unregister<R>(_ id: UInt64) where Value == StoreCore<R> {
    let waiter = withLock { core in
      core.subscribers.remove(id)
      return core.waiters.removeValue(forKey: id)
    }
    waiter?.resume()
  }

  /// Suspends until the version passes `version`, the subscriber is gone (store closed), or the calling
  /// task is cancelled.
  func waitForVersion<R>(after version: UInt64, subscriber id: UInt64) async where Value == StoreCore<R> {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = withLock { core in
          // Checked under the lock: a cancellation handler or close that runs later finds the waiter.
          if core.version > version || Task.isCancelled || !core.subscribers.contains(id) { return true }
          core.waiters[id] = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
  }
}
