public import ConversationState
public import Reducers
public import Observation

/// A store's latest snapshot as an `@Observable` model on the main actor, for UIs built on Observation
/// (SwiftUI, or any toolkit that tracks `withObservationTracking`).
///
/// ```swift
/// let model = ObservableStore(store)
/// // in a view: model.state.messages, model.state.streamingReply?.text.string
/// model.send(.setDraft("Hi"))
/// ```
@MainActor
@Observable
public final class ObservableStore<R: Reducer> where R.State: ChangeTracking & Equatable {
  /// The latest state delivered to the main actor.
  public private(set) var state: R.State
  public private(set) var version: UInt64
  /// What changed in the last update, for views that update rows selectively.
  public private(set) var changes: ChangeSet<R.State.RowID>

  @ObservationIgnored private let store: Store<R>
  @ObservationIgnored private var updates: Task<Void, Never>?

  public init(_ store: Store<R>) {
    self.store = store
    state = store.state
    version = store.version
    changes = .reset
    updates = Task { [weak self, snapshots = store.snapshots()] in
      for await snapshot in snapshots {
        guard let self else { return }
        self.apply(snapshot)
      }
    }
  }

  isolated deinit { updates?.cancel() }

  public func send(_ action: R.Action) { store.send(action) }

  private func apply(_ snapshot: Snapshot<R.State>) {
    guard snapshot.version > version || snapshot.changes.isReset else { return }
    state = snapshot.state
    version = snapshot.version
    changes = snapshot.changes
  }
}
