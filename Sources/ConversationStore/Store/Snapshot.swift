public import ConversationState

/// One state a subscriber sees: its version and what changed since that subscriber's previous snapshot.
///
/// The first snapshot of every subscription is the current state with `changes.isReset`. A subscriber that
/// fell behind gets the latest state with the union of what it missed, computed by diffing its previous
/// state against the new one: never a queue of states.
public struct Snapshot<State: ChangeTracking>: Sendable {
  /// Increases with every action the store applied.
  public let version: UInt64
  public let state: State
  public let changes: ChangeSet<State.RowID>

  public init(version: UInt64, state: State, changes: ChangeSet<State.RowID>) {
    self.version = version
    self.state = state
    self.changes = changes
  }
}
