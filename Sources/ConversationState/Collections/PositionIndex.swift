/// Positions by ID, keyed by the ID's hash rather than the ID: each entry is two integers, and the caller
/// confirms a hit by reading the ID of the message at the position found.
///
/// It indexes the message list (client ID and server ID to logical position). Storing the hash, not the ID,
/// takes 16 bytes an entry instead of 24, and makes entries plain bits, so copying a trie path retains
/// nothing; the list holds the messages, so confirming a hit is the read it makes anyway. Two IDs whose
/// hashes are equal are both kept: the second goes to a small dictionary of its own, almost always empty.
///
/// ```swift
/// var index = PositionIndex<ClientMessageID>()
/// if let displaced = index.set(0, for: "c1"), messages[displaced].clientID != "c1" {
///   index.separate("c1", at: 0, from: displaced)  // another ID has c1's hash
/// }
/// let position = index.candidate(for: "c1")  // 0: the list checks messages[0].clientID == "c1"
/// ```
struct PositionIndex<ID: Hashable & Sendable>: Sendable {
  private var byHash = HashTrie<PrehashedKey, Int>()
  /// IDs whose hash an ID in `byHash` already has, with their positions.
  private var colliding: [ID: Int] = [:]

  /// How many IDs the index holds.
  var count: Int { byHash.count + colliding.count }

  /// The position stored for `id`, or nil. It is `id`'s only if the message there has `id`: the index keeps
  /// hashes, and another ID may share this one's.
  func candidate(for id: ID) -> Int? {
    if !colliding.isEmpty, let position = colliding[id] { return position }
    return byHash[PrehashedKey(id)]
  }

  /// Indexes `id` at `position`, replacing the position it had, and returns the position stored under its
  /// hash before, if any. When the message at that position has another ID, that ID shares `id`'s hash:
  /// call `separate(_:at:from:)` so both are kept. The caller removes an ID before its message moves, so a
  /// position the index holds always has the message it was stored for.
  mutating func set(_ position: Int, for id: ID) -> Int? {
    if !colliding.isEmpty, colliding[id] != nil {
      colliding[id] = position
      return nil
    }
    return byHash.updateValue(position, forKey: PrehashedKey(id))
  }

  /// Undoes a `set` that displaced another ID with the same hash: that ID keeps `displaced`, and `id` is
  /// kept apart at `position`.
  mutating func separate(_ id: ID, at position: Int, from displaced: Int) {
    byHash[PrehashedKey(id)] = displaced
    colliding[id] = position
  }

  /// Removes `id`, which the index holds.
  mutating func remove(_ id: ID) {
    if !colliding.isEmpty, colliding.removeValue(forKey: id) != nil { return }
    byHash[PrehashedKey(id)] = nil
  }
}

/// A key that is a hash already (an ID's `hashValue`): a `HashTrie` places it by that value rather than
/// hashing it a second time, which cost about 100 instructions a lookup, a dozen lookups a send turn.
///
/// `hashValue` is seeded anew in each process, so a `PrehashedKey` must never be stored; nothing stores one
/// (a `MessageList` encodes its messages, and rebuilds its indexes when decoded).
struct PrehashedKey: Hashable, Sendable {
  let hash: Int

  init<ID: Hashable>(_ id: ID) { hash = id.hashValue }
}
