public import ConversationState
public import Observation
public import Reducers

/// A store's latest state as an `@Observable` model on the main actor, for UIs built on Observation
/// (SwiftUI, or any toolkit that tracks `withObservationTracking`).
///
/// What `send` changes is visible on return (a text field bound to the draft never jumps back); changes
/// made elsewhere (the runtime, other threads) arrive through the store's snapshots. Reading `state`
/// tracks every change; for a conversation, `ObservableConversation` tracks each area on its own.
///
/// ```swift
/// let model = ObservableStore(store)
/// model.send(.setDraft("Hi"))  // model.state.draft == "Hi" here
/// ```
@MainActor
@Observable
public final class ObservableStore<R: Reducer> where R.State: ChangeTracking & Equatable {
  /// The latest state on the main actor.
  public private(set) var state: R.State
  /// The store version `state` is from.
  public private(set) var version: UInt64
  /// What changed in the last update, for views that update rows selectively.
  public private(set) var changes: ChangeSet<R.State.RowID>

  @ObservationIgnored private let follower: StoreFollower<R>

  /// A model at `store`'s current state, following its snapshots from now on. Holds the store for as long as the
  /// model lives.
  public init(_ store: Store<R>) {
    let (version, state) = store.current
    self.state = state
    self.version = version
    changes = .reset
    follower = StoreFollower(store)
    follower.start { [weak self] version, state in self?.apply(version, state) }
  }

  /// Sends `action` to the store; its effect on `state` is visible when this returns.
  public func send(_ action: R.Action) {
    follower.send(action) { version, state in apply(version, state) }
  }

  private func apply(_ version: UInt64, _ state: R.State) {
    guard version > self.version else { return }
    changes = state.changes(since: self.state)
    self.state = state
    self.version = version
  }
}

/// Keeps a main-actor model in step with a store: the store's snapshots, plus a synchronous read after
/// each `send`, delivered in version order (older versions are dropped by the model).
@MainActor
final class StoreFollower<R: Reducer> where R.State: ChangeTracking & Equatable {
  let store: Store<R>
  private var updates: Task<Void, Never>?

  init(_ store: Store<R>) { self.store = store }

  isolated deinit { updates?.cancel() }

  func start(_ apply: @escaping @MainActor (UInt64, R.State) -> Void) {
    let snapshots = store.snapshots()
    updates = Task { @MainActor in
      for await snapshot in snapshots { apply(snapshot.version, snapshot.state) }
    }
  }

  func send(_ action: R.Action, then apply: (UInt64, R.State) -> Void) {
    store.send(action)
    let (version, state) = store.current
    apply(version, state)
  }
}

extension Store {
  /// The version and state, read together.
  var current: (version: UInt64, state: State) { core.withLock { ($0.version, $0.state) } }
}
