public import ConversationState

/// Owns one state, applies actions to it with a pure reducer, hands the effects to a runtime, and publishes
/// snapshots.
///
/// `send(_:)` runs the reducer in place under one lock: no copy of the state, no actor hop and no stream
/// yield per action. Subscribers are woken only when they are waiting, and each reads the latest state, so
/// a burst of actions costs each subscriber one snapshot. Actions sent from many tasks are applied one at a
/// time, in the order they take the lock.
///
/// ```swift
/// let store = Store(initialState: ConversationState(), reducer: ConversationReducer())
/// Task {
///   for await snapshot in store.snapshots {
///     render(snapshot.state, changedRows: snapshot.changes)
///   }
/// }
/// store.send(.setDraft("Hi"))
/// ```
public final class Store<R: Reducer>: Sendable where R.State: ChangeTracking & Equatable {
  public typealias State = R.State
  /// Performs the effects of one action; results come back through `store.send`.
  public typealias EffectHandler = @Sendable ([R.Effect], Store<R>) -> Void

  @usableFromInline
  struct Core: Sendable {
    @usableFromInline var state: State
    @usableFromInline var version: UInt64 = 0
    @usableFromInline var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    @usableFromInline var subscribers: Set<UInt64> = []
    @usableFromInline var nextSubscriberID: UInt64 = 0

    @usableFromInline init(state: State) { self.state = state }
  }

  // The hot path (`send`, `state`) is @inlinable so it is specialized for the caller's reducer; run
  // generically across the module boundary it cost about 100 ns more per action (see the benchmarks).
  @usableFromInline let core: StateLock<Core>
  @usableFromInline let reducer: R
  @usableFromInline let performEffects: EffectHandler?
  /// The clock, ID generator and random source of this store's runtime.
  public let environment: StoreEnvironment

  public init(
    initialState: State, reducer: R, environment: StoreEnvironment = .live, effects: EffectHandler? = nil
  ) {
    core = StateLock(Core(state: initialState))
    self.reducer = reducer
    self.environment = environment
    performEffects = effects
  }

  /// Applies `action` now, on the caller's thread, then starts its effects.
  @inlinable
  public func send(_ action: R.Action) {
    let (effects, waiters) = core.withLock { core in
      let effects = reducer.reduce(into: &core.state, action: action)
      core.version &+= 1
      if core.waiters.isEmpty { return (effects, [CheckedContinuation<Void, Never>]()) }
      let waiters = Array(core.waiters.values)
      core.waiters.removeAll(keepingCapacity: true)
      return (effects, waiters)
    }
    for waiter in waiters { waiter.resume() }
    if !effects.isEmpty { performEffects?(effects, self) }
  }

  /// The current state.
  @inlinable
  public var state: State { core.withLock { $0.state } }

  /// How many actions have been applied.
  @inlinable
  public var version: UInt64 { core.withLock { $0.version } }

  /// Live snapshot subscriptions; one ends when its iteration ends or its task is cancelled.
  public var subscriberCount: Int { core.withLock { $0.subscribers.count } }

  /// A new stream of snapshots for one consumer: the current state first, then the latest state whenever
  /// it changed. A slow consumer skips intermediate states; nothing is buffered per action.
  public var snapshots: AsyncStream<Snapshot<State>> {
    let subscription = SnapshotSubscription(store: self)
    return AsyncStream(unfolding: { await subscription.next() }, onCancel: { subscription.cancel() })
  }

  func register() -> UInt64 {
    core.withLock { core in
      core.nextSubscriberID += 1
      core.subscribers.insert(core.nextSubscriberID)
      return core.nextSubscriberID
    }
  }

  func unregister(_ id: UInt64) {
    let waiter = core.withLock { core in
      core.subscribers.remove(id)
      return core.waiters.removeValue(forKey: id)
    }
    waiter?.resume()
  }

  /// Suspends until the version passes `version`, or the calling task is cancelled.
  func waitForVersion(after version: UInt64, subscriber id: UInt64) async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = core.withLock { core in
          // Checked under the lock: a cancellation handler that runs later finds the waiter to resume.
          if core.version > version || Task.isCancelled || !core.subscribers.contains(id) { return true }
          core.waiters[id] = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      core.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
  }
}
