public import ConversationState
public import Reducers

/// Owns one state, applies actions to it with a pure reducer, has a runtime perform the effects, and
/// publishes snapshots.
///
/// `send(_:)` runs the reducer in place under one lock: no copy of the state, no actor hop and no stream
/// yield per action. Subscribers are woken only when they are waiting, and each reads the latest state, so
/// a burst of actions costs each subscriber one snapshot.
///
/// **Ordering.** Actions sent from many threads are applied one at a time, in the order they take the lock,
/// and their effects are performed in exactly that order: each action's effects join a FIFO under the same
/// lock, and one sender at a time performs what is queued. So a cancel can never overtake the start it
/// cancels. The effects of your action may therefore be performed on another sender's thread, just after
/// `send` returns there; an action sent while effects are being performed (for example by a runtime) is
/// applied at once and its effects join the queue.
///
/// **Lifecycle.** `close()` cancels the runtime's work and timers, ends every snapshot sequence and makes
/// later actions no-ops (`send` returns false). Dropping the last reference to a store closes it too: the
/// runtime's tasks and the snapshot sequences hold it weakly.
///
/// ```swift
/// let store = Store(initialState: ConversationState(), reducer: ConversationReducer())
/// Task {
///   for await snapshot in store.snapshots() {
///     render(snapshot.state, changedRows: snapshot.changes)
///   }
/// }
/// store.send(.setDraft("Hi"))
/// store.close()  // the loop above ends
/// ```
public final class Store<R: Reducer>: Sendable where R.State: ChangeTracking & Equatable {
  /// The state this store owns, as its reducer defines it.
  public typealias State = R.State

  // The hot path (`send`, `state`) is @inlinable so it is specialized for the caller's reducer; run
  // generically across the module boundary it cost about 100 ns more per action (see the benchmarks).
  @usableFromInline let core: StateLock<StoreCore<R>>
  @usableFromInline let reducer: R
  @usableFromInline let runtime: (any EffectRunner<R>)?
  /// The clock, ID generator and random source of this store's runtime.
  public let environment: StoreEnvironment

  /// A store whose effects `runtime` performs (none are performed without one: a store for tests of the
  /// reducer alone).
  public init(
    initialState: State, reducer: R, environment: StoreEnvironment = .live, runtime: (any EffectRunner<R>)? = nil
  ) {
    core = StateLock(StoreCore(state: initialState))
    self.reducer = reducer
    self.environment = environment
    self.runtime = runtime
  }

  deinit { close() }

  /// Applies `action` now, on the caller's thread, and queues its effects behind those of every action
  /// applied before it. Returns false, changing nothing, once the store is closed.
  @inlinable
  @discardableResult
  public func send(_ action: R.Action) -> Bool {
    let (applied, waiters, performs) = core.withLock { core in
      guard !core.isClosed else { return (false, [CheckedContinuation<Void, Never>](), false) }
      let effects = reducer.reduce(into: &core.state, action: action)
      core.version &+= 1
      var performs = false
      if !effects.isEmpty {
        core.queuedEffects.append(effects)
        performs = !core.isPerformingEffects
        core.isPerformingEffects = true
      }
      if core.waiters.isEmpty { return (true, [CheckedContinuation<Void, Never>](), performs) }
      let waiters = Array(core.waiters.values)
      core.waiters.removeAll(keepingCapacity: true)
      return (true, waiters, performs)
    }
    for waiter in waiters { waiter.resume() }
    if performs { performQueuedEffects() }
    return applied
  }

  /// Performs queued effects until the queue is empty. Only one caller at a time gets here (the one that
  /// found nobody performing), which is what keeps effects in the order their actions were applied.
  ///
  /// Inlinable like `send`: run generically it looked up the metadata of `[[R.Effect]]` at run time on
  /// every action that had effects, about a tenth of a send turn (`send.confirm`).
  @inlinable
  func performQueuedEffects() {
    while true {
      let batches = core.withLock { core -> [[R.Effect]] in
        if core.queuedEffects.isEmpty || core.isClosed {
          core.queuedEffects.removeAll()
          core.isPerformingEffects = false
          return []
        }
        defer { core.queuedEffects.removeAll(keepingCapacity: true) }
        return core.queuedEffects
      }
      if batches.isEmpty { return }
      for effects in batches { runtime?.perform(effects, for: self) }
    }
  }

  /// The current state.
  ///
  /// Specialized for the caller's reducer but kept out of line: inlined into a subscriber's wake, the copy
  /// of the state went through its value witnesses (`StreamingReply`'s and `AgentActivity`'s) instead of
  /// the outlined copy a call of its own makes.
  @inlinable @inline(never)
  public var state: State { core.withLock { $0.state } }

  /// How many actions have been applied.
  @inlinable
  public var version: UInt64 { core.withLock { $0.version } }

  /// Whether `close()` was called (or the store is being dropped).
  public var isClosed: Bool { core.withLock { $0.isClosed } }

  /// Live snapshot subscriptions; one ends when its iteration ends, its task is cancelled, or the store
  /// closes.
  public var subscriberCount: Int { core.withLock { $0.subscribers.count } }

  /// Snapshots for one consumer per iteration: the current state first, then the latest state whenever it
  /// changed. A slow consumer skips intermediate states; nothing is buffered per action.
  ///
  /// Each `for await` (each `makeAsyncIterator()`) is its own subscription, so one sequence can be iterated
  /// by several consumers; an iterator cannot be shared (it is not `Sendable`). The iteration ends when its
  /// task is cancelled or the store closes (after one last snapshot if the subscriber had not yet seen the
  /// state the store closed with; one that begins after the close gets that state once), and holds the
  /// store's state, not the store.
  public func snapshots() -> SnapshotSequence<R> { SnapshotSequence(core: core) }

  /// Ends the store: the runtime cancels its requests, connections and timers, every snapshot iteration
  /// ends (each subscriber first gets the final state if it had not seen it, so a persister writes it), and
  /// later actions are refused. Results that arrive afterwards are dropped. Idempotent.
  public func close() {
    let waiters = core.withLock { core -> [CheckedContinuation<Void, Never>]? in
      guard !core.isClosed else { return nil }
      core.isClosed = true
      core.queuedEffects.removeAll()
      core.subscribers.removeAll()
      defer { core.waiters.removeAll() }
      return Array(core.waiters.values)
    }
    guard let waiters else { return }
    for waiter in waiters { waiter.resume() }
    runtime?.close()
  }
}

/// Performs a store's effects: the I/O half of a store. Conversation and list stores have one each
/// (`ConversationRuntime`, `ConversationListRuntime`); a host rarely writes one.
///
/// A runtime must hold the store weakly in the work it starts (results go to a store that may be gone),
/// must register work synchronously inside `perform` (so a later effect can cancel it), and after
/// `close()` must start nothing.
public protocol EffectRunner<Runs>: Sendable {
  /// The reducer whose effects this performs.
  associatedtype Runs: Reducer where Runs.State: ChangeTracking & Equatable
  /// Starts the work `effects` ask for, in order; results come back through `store.send`.
  func perform(_ effects: [Runs.Effect], for store: Store<Runs>)
  /// Cancels everything running and refuses later work.
  func close()
}
