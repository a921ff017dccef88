/// What changed between two versions of a collection, by element ID: enough for a list view to touch
/// only the rows that changed, or for a persister to write only what changed.
///
/// `isReset` means "too much to list, or unrelated versions": reload everything. Merging a reset with
/// anything stays a reset, which keeps what a slow consumer has missed bounded.
public struct ChangeSet<ID: Hashable & Sendable>: Equatable, Sendable {
  /// Rows present in the new version but not in the old one.
  public var inserted: Set<ID>
  /// Rows present in both versions whose content changed; reload them in place.
  public var updated: Set<ID>
  /// Rows present in the old version but gone from the new one.
  public var removed: Set<ID>
  /// True when the rows cannot be listed (too many, or unrelated versions): reload everything and ignore the sets.
  public var isReset: Bool

  /// A change set listing the given rows; all empty means nothing changed.
  public init(inserted: Set<ID> = [], updated: Set<ID> = [], removed: Set<ID> = [], isReset: Bool = false) {
    self.inserted = inserted
    self.updated = updated
    self.removed = removed
    self.isReset = isReset
  }

  /// Reload everything.
  public static var reset: ChangeSet { ChangeSet(isReset: true) }

  /// Nothing changed.
  public var isEmpty: Bool { !isReset && inserted.isEmpty && updated.isEmpty && removed.isEmpty }

  /// Adds what `other` changed after this change set, as if both had been computed in one step: a row
  /// inserted then removed is gone from both lists, one removed then inserted again is updated, and a reset
  /// on either side stays a reset. A row that moved and moved back may be listed as updated where one diff
  /// of both steps would not list it: a reload too many, never one too few.
  public mutating func formUnion(_ other: ChangeSet) {
    if isReset || other.isReset {
      self = .reset
      return
    }
    for id in other.inserted {
      if removed.remove(id) != nil { updated.insert(id) } else { inserted.insert(id) }
    }
    for id in other.updated where !inserted.contains(id) { updated.insert(id) }
    for id in other.removed {
      if inserted.remove(id) == nil {
        updated.remove(id)
        removed.insert(id)
      }
    }
  }

  /// This change set followed by `other` (see `formUnion(_:)`).
  public func union(_ other: ChangeSet) -> ChangeSet {
    var result = self
    result.formUnion(other)
    return result
  }

  /// Files one row by where it was and is: present in both versions and `changed` is updated, only in the
  /// new one inserted, only in the old one removed.
  public mutating func record(_ id: ID, wasPresent: Bool, isPresent: Bool, changed: Bool = true) {
    switch (wasPresent, isPresent) {
    case (true, true): if changed { updated.insert(id) }
    case (false, true): inserted.insert(id)
    case (true, false): removed.insert(id)
    case (false, false): break
    }
  }
}
