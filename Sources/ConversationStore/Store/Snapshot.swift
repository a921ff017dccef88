public import ConversationState

/// One state a subscriber sees: its version and what changed since that subscriber's previous snapshot.
///
/// The first snapshot of every subscription is the current state with `changes.isReset`. A subscriber that
/// fell behind gets the latest state with the union of what it missed, computed by diffing its previous
/// state against the new one: never a queue of states.
public struct Snapshot<State: ChangeTracking>: Sendable {
  /// Increases with every action the store applied.
  public let version: UInt64
  /// The store's state at `version`.
  public let state: State
  /// The rows that changed since this subscriber's previous snapshot; a reset for its first one.
  public let changes: ChangeSet<State.RowID>

  /// A snapshot of `state` at `version`; the store makes these, tests may too.
  public init(version: UInt64, state: State, changes: ChangeSet<State.RowID>) {
    self.version = version
    self.state = state
    self.changes = changes
  }
}
