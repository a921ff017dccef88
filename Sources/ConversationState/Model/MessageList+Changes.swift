extension MessageList {
  /// Which messages differ between `old` and this list, by client ID.
  ///
  /// Shared structure is skipped by identity, so a list one edit away from `old` compares in O(log n).
  /// Lists that do not descend from one another (rebuilt, or a different conversation) report `reset`.
  ///
  /// `inserted` and `removed` are exact, and every message that changed is in `updated`. A few unchanged
  /// ones may be there too, never in a frame where no message came, went or moved: a message that lands
  /// between committed ones (a confirmation in the middle, a history page merged in) renumbers the
  /// messages beside it in the list's storage, and each renumbered one is named. A view reloads those rows
  /// to the same content: a reload too many, never one too few.
  public func changes(since old: MessageList) -> ChangeSet<ClientMessageID> {
    if storage.box === old.storage.box { return ChangeSet() }
    guard lineage === old.lineage else { return .reset }
    var candidates: [ClientMessageID] = []
    older.appendIdentifiersAtChangedPositions(from: old.older, to: &candidates) { $0.clientID }
    newer.appendIdentifiersAtChangedPositions(from: old.newer, to: &candidates) { $0.clientID }
    if outgoing != old.outgoing {
      for message in outgoing { candidates.append(message.clientID) }
      for message in old.outgoing { candidates.append(message.clientID) }
    }
    var changes = ChangeSet<ClientMessageID>()
    for clientID in Self.distinct(candidates) {
      let before = old.slot(of: clientID)
      let after = slot(of: clientID)
      guard let before, let after else {
        changes.record(clientID, wasPresent: before != nil, isPresent: after != nil)
        continue
      }
      // Compared where each list keeps it: a copy of each side would cost more than the comparison.
      let changed =
        before.committedPosition != after.committedPosition
        || old.withMessage(in: before) { was in withMessage(in: after) { was != $0 } }
      changes.record(clientID, wasPresent: true, isPresent: true, changed: changed)
    }
    return changes
  }

  /// Where a message is kept: committed at a logical position, or at an index of `outgoing`.
  private enum Slot {
    case committed(Int)
    case outgoing(Int)

    /// A move among the committed messages, or into or out of them, is a change even when the message is
    /// equal: its row moved.
    var committedPosition: Int? {
      if case .committed(let position) = self { position } else { nil }
    }
  }

  private func slot(of clientID: ClientMessageID) -> Slot? {
    if let position = logicalPosition(of: clientID) { return .committed(position) }
    return outgoing.firstIndex { $0.clientID == clientID }.map(Slot.outgoing)
  }

  private func withMessage<Result>(in slot: Slot, _ body: (Message) -> Result) -> Result {
    switch slot {
    case .committed(let position): withCommitted(atLogical: position, body)
    case .outgoing(let index): body(outgoing[index])
    }
  }

  /// `ids` once each. A frame's diff names a handful: those are compared pairwise instead of hashed (an ID
  /// is a string, and hashing one costs more than a few comparisons).
  private static func distinct(_ ids: [ClientMessageID]) -> [ClientMessageID] {
    guard ids.count > 16 else {
      var unique: [ClientMessageID] = []
      for id in ids where !unique.contains(id) { unique.append(id) }
      return unique
    }
    var seen = Set<ClientMessageID>()
    return ids.filter { seen.insert($0).inserted }
  }
}
