extension MessageList {
  /// Which messages differ between `old` and this list, by client ID.
  ///
  /// Shared structure is skipped by identity, so a list one edit away from `old` compares in O(log n).
  /// Lists that do not descend from one another (rebuilt, or a different conversation) report `reset`.
  public func changes(since old: MessageList) -> ChangeSet<ClientMessageID> {
    if storage.box === old.storage.box { return ChangeSet() }
    guard lineage === old.lineage else { return .reset }
    var candidates = older.identifiersAtChangedPositions(from: old.older) { $0.clientID }
    candidates.formUnion(newer.identifiersAtChangedPositions(from: old.newer) { $0.clientID })
    if outgoing != old.outgoing {
      for message in outgoing { candidates.insert(message.clientID) }
      for message in old.outgoing { candidates.insert(message.clientID) }
    }
    var changes = ChangeSet<ClientMessageID>()
    for clientID in candidates {
      let before = old[clientID: clientID]
      let after = self[clientID: clientID]
      let moved = old.logicalPosition(of: clientID) != logicalPosition(of: clientID)
      changes.record(clientID, wasPresent: before != nil, isPresent: after != nil, changed: before != after || moved)
    }
    return changes
  }
}
