/// A state that can say which rows changed between two of its versions, so a snapshot can carry a
/// `ChangeSet` without the store keeping a log of changes.
public protocol ChangeTracking: Sendable {
  /// How a row is identified in a `ChangeSet`; for a conversation, the message's client ID.
  associatedtype RowID: Hashable & Sendable
  /// The rows that differ between `old` and `self`. Should cost O(changes), not O(rows), for versions
  /// that share structure.
  func changes(since old: Self) -> ChangeSet<RowID>
}

extension ConversationState: ChangeTracking {
  /// Changed message rows, by client ID. The reply being streamed counts as a row under its client ID, so a
  /// delta shows up as an update of that row, and its commit (finished or interrupted) as a replacement.
  public func changes(since old: ConversationState) -> ChangeSet<ClientMessageID> {
    // The common frame: a delta of the reply that streamed before too, and the message list not touched (the
    // same storage). Its row is simply updated, with the reply's one-row set, made once per reply (making it
    // per frame was an allocation and a hash); the general case below diffs the lists and looks rows up.
    let sameOverlapping = cold.value.run.overlappingReplies == old.cold.value.run.overlappingReplies
    if messages.storage.box === old.messages.storage.box, sameOverlapping, let id = streamingReply?.clientID,
      id == old.streamingReply?.clientID
    {
      if StreamingReply.areEqual(streamingReply, old.streamingReply) { return ChangeSet() }
      return ChangeSet(updated: streamingReply?.row ?? [])
    }
    var changes = messages.changes(since: old.messages)
    if changes.isReset { return changes }
    guard !sameOverlapping || !StreamingReply.areEqual(old.streamingReply, streamingReply) else { return changes }
    // The replies' rows, before and after: each one that appeared, went, or changed (a reply committed as a
    // message of the same ID is a changed row).
    let before = Dictionary(old.liveReplies.map { ($0.clientID, $0) }, uniquingKeysWith: { $1 })
    let after = Dictionary(liveReplies.map { ($0.clientID, $0) }, uniquingKeysWith: { $1 })
    for clientID in Set(before.keys).union(after.keys) {
      let reply = (before[clientID], after[clientID])
      if let was = reply.0, let now = reply.1, was == now { continue }
      changes.inserted.remove(clientID)
      changes.updated.remove(clientID)
      changes.removed.remove(clientID)
      let wasShown = old.messages.contains(clientID) || reply.0 != nil
      let isShown = messages.contains(clientID) || reply.1 != nil
      changes.record(clientID, wasPresent: wasShown, isPresent: isShown)
    }
    return changes
  }
}
