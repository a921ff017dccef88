/// The fields of a `TrieNode` before its key-value pairs.
struct TrieNodeHeader<Key: Hashable, Value> {
  /// Hash slots that hold a key-value pair (in slot order, the node's elements).
  var dataMap: UInt32
  /// Hash slots that hold a sub-trie (in slot order, `children`).
  var nodeMap: UInt32
  /// How many pairs are initialized.
  var count: Int32
  /// How many pairs fit: read from the allocator once, when the node is made (`ManagedBuffer.capacity`
  /// asks it on every read).
  var capacity: Int32
  /// The sub-tries. Most nodes of a large trie are leaves, whose empty array allocates nothing.
  var children: ContiguousArray<TrieNode<Key, Value>>
}

/// One level of a `HashTrie` (CHAMP layout, 32-way): its key-value pairs are stored in the node's own
/// allocation, after the header, so a leaf is one allocation. Past the last hash bit a node is a collision
/// bucket: its pairs are searched linearly and the maps are unused.
///
/// Why one allocation: a trie of 100,000 message IDs is mostly leaves of three or four pairs, and with the
/// pairs in an array of their own each leaf was three allocations (about 70 bytes a key in all).
///
/// Writes go through the static functions, which take the node `inout`: a shared node is copied first, and a
/// full one is moved into a larger allocation.
///
/// Not `Sendable` (no `ManagedBuffer` can be); `HashTrie` says why sharing its nodes across threads is sound.
final class TrieNode<Key: Hashable, Value>: ManagedBuffer<TrieNodeHeader<Key, Value>, (key: Key, value: Value)> {
  typealias Entry = (key: Key, value: Value)
  private static var hashBits: Int { Int.bitWidth }

  /// An empty node with room for at least `capacity` pairs.
  static func make(
    capacity: Int, dataMap: UInt32 = 0, nodeMap: UInt32 = 0, children: ContiguousArray<TrieNode> = []
  ) -> TrieNode {
    let buffer = create(minimumCapacity: capacity) { _ in
      TrieNodeHeader(dataMap: dataMap, nodeMap: nodeMap, count: 0, capacity: 0, children: children)
    }
    let node = unsafeDowncast(buffer, to: TrieNode.self)
    node.fields.pointee.capacity = Int32(clamping: node.capacity)
    return node
  }

  deinit { _ = withUnsafeMutablePointers { header, entries in entries.deinitialize(count: Int(header.pointee.count)) } }

  // Pointers rather than `header` and the element accessors: a class's stored property is checked for
  // exclusive access at run time on every use. Both are valid while the node is alive, which every caller
  // guarantees by holding it.
  private var fields: UnsafeMutablePointer<TrieNodeHeader<Key, Value>> { withUnsafeMutablePointerToHeader { $0 } }
  private var entries: UnsafeMutablePointer<Entry> { withUnsafeMutablePointerToElements { $0 } }
  private var entryCount: Int { Int(fields.pointee.count) }

  /// Where `key` goes: its `hashValue`, or, for a `PrehashedKey`, the hash it already is. The type test
  /// folds away once the trie is specialized (unspecialized code pays a cheap check); the cast is between
  /// identical types, which the test proved.
  @inline(__always) static func hash(of key: Key) -> Int {
    if Key.self == PrehashedKey.self { return unsafeBitCast(key, to: PrehashedKey.self).hash }
    return key.hashValue
  }

  private static func bit(_ hash: Int, _ shift: Int) -> UInt32 { 1 << UInt32((hash >> shift) & 31) }
  private static func slot(_ map: UInt32, _ bit: UInt32) -> Int { (map & (bit &- 1)).nonzeroBitCount }

  func value(for key: Key, hash: Int, shift: Int) -> Value? {
    if shift >= Self.hashBits { return firstIndex(of: key).map { entries[$0].value } }
    let bit = Self.bit(hash, shift)
    let dataMap = fields.pointee.dataMap
    if dataMap & bit != 0 {
      let entry = entries + Self.slot(dataMap, bit)
      return entry.pointee.key == key ? entry.pointee.value : nil
    }
    let nodeMap = fields.pointee.nodeMap
    if nodeMap & bit != 0 {
      return fields.pointee.children[Self.slot(nodeMap, bit)].value(for: key, hash: hash, shift: shift + 5)
    }
    return nil
  }

  private func firstIndex(of key: Key) -> Int? {
    (0..<entryCount).first { entries[$0].key == key }
  }

  // MARK: - Writing

  /// Inserts into `node`, copying it first while it is shared. Returns the replaced value, if any.
  static func insert(_ key: Key, _ value: Value, hash: Int, shift: Int, into node: inout TrieNode) -> Value? {
    if shift >= hashBits {
      if let index = node.firstIndex(of: key) { return replaceValue(at: index, with: value, in: &node) }
      makeWritable(&node, adding: 1)
      node.insertEntry((key, value), at: node.entryCount)
      return nil
    }
    let bit = bit(hash, shift)
    let dataMap = node.fields.pointee.dataMap
    let nodeMap = node.fields.pointee.nodeMap
    if dataMap & bit != 0 {
      let index = slot(dataMap, bit)
      if node.entries[index].key == key { return replaceValue(at: index, with: value, in: &node) }
      makeWritable(&node, adding: 0)
      let existing = node.removeEntry(at: index)
      let child = pair(existing, hash: Self.hash(of: existing.key), (key, value), hash: hash, shift: shift + 5)
      node.fields.pointee.dataMap &= ~bit
      node.fields.pointee.children.insert(child, at: slot(nodeMap, bit))
      node.fields.pointee.nodeMap |= bit
      return nil
    }
    if nodeMap & bit != 0 {
      makeWritable(&node, adding: 0)
      return insert(key, value, hash: hash, shift: shift + 5, into: &node.fields.pointee.children[slot(nodeMap, bit)])
    }
    makeWritable(&node, adding: 1)
    node.insertEntry((key, value), at: slot(dataMap, bit))
    node.fields.pointee.dataMap |= bit
    return nil
  }

  /// Removes from `node`, copying it first while it is shared. Returns the removed value, if any.
  static func remove(_ key: Key, hash: Int, shift: Int, from node: inout TrieNode) -> Value? {
    if shift >= hashBits {
      guard let index = node.firstIndex(of: key) else { return nil }
      makeWritable(&node, adding: 0)
      return node.removeEntry(at: index).value
    }
    let bit = bit(hash, shift)
    let dataMap = node.fields.pointee.dataMap
    let nodeMap = node.fields.pointee.nodeMap
    if dataMap & bit != 0 {
      let index = slot(dataMap, bit)
      guard node.entries[index].key == key else { return nil }
      makeWritable(&node, adding: 0)
      node.fields.pointee.dataMap &= ~bit
      return node.removeEntry(at: index).value
    }
    guard nodeMap & bit != 0 else { return nil }
    makeWritable(&node, adding: 0)
    let index = slot(nodeMap, bit)
    let removed = remove(key, hash: hash, shift: shift + 5, from: &node.fields.pointee.children[index])
    let child = node.fields.pointee.children[index]
    if child.fields.pointee.children.isEmpty && child.entryCount <= 1 {
      // Keep the trie compact: a child left with one pair folds back into this level.
      node.fields.pointee.children.remove(at: index)
      node.fields.pointee.nodeMap &= ~bit
      if child.entryCount == 1 {
        makeWritable(&node, adding: 1)
        node.insertEntry(child.entries.pointee, at: slot(node.fields.pointee.dataMap, bit))
        node.fields.pointee.dataMap |= bit
      }
    }
    return removed
  }

  private static func replaceValue(at index: Int, with value: Value, in node: inout TrieNode) -> Value {
    makeWritable(&node, adding: 0)
    return swap(&node.entries[index].value, value)
  }

  private static func swap(_ stored: inout Value, _ value: Value) -> Value {
    defer { stored = value }
    return stored
  }

  /// Makes `node` one this caller alone holds, with room for `adding` more pairs: a shared node is copied, a
  /// full one moved into a larger allocation.
  private static func makeWritable(_ node: inout TrieNode, adding extra: Int) {
    let unique = isWritableInPlace(&node)
    let count = node.entryCount
    if unique && count + extra <= Int(node.fields.pointee.capacity) { return }
    let header = node.fields.pointee
    let larger = make(
      capacity: count + extra, dataMap: header.dataMap, nodeMap: header.nodeMap, children: header.children)
    if unique {
      larger.entries.moveInitialize(from: node.entries, count: count)
      node.fields.pointee.count = 0
    } else {
      larger.entries.initialize(from: node.entries, count: count)
    }
    larger.fields.pointee.count = Int32(count)
    node = larger
  }

  /// Inserts at `index`; the caller made room.
  private func insertEntry(_ entry: Entry, at index: Int) {
    let count = entryCount
    (entries + index + 1).moveInitialize(from: entries + index, count: count - index)
    (entries + index).initialize(to: entry)
    fields.pointee.count += 1
  }

  /// Removes at `index` and returns the pair; the caller made the node writable.
  private func removeEntry(at index: Int) -> Entry {
    let count = entryCount
    let entry = (entries + index).move()
    (entries + index).moveInitialize(from: entries + index + 1, count: count - index - 1)
    fields.pointee.count -= 1
    return entry
  }

  private static func pair(_ first: Entry, hash firstHash: Int, _ second: Entry, hash secondHash: Int, shift: Int)
    -> TrieNode
  {
    if shift >= hashBits { return leaf([first, second]) }
    let firstBit = bit(firstHash, shift)
    let secondBit = bit(secondHash, shift)
    if firstBit == secondBit {
      let child = pair(first, hash: firstHash, second, hash: secondHash, shift: shift + 5)
      return make(capacity: 0, nodeMap: firstBit, children: [child])
    }
    return leaf(firstBit < secondBit ? [first, second] : [second, first], dataMap: firstBit | secondBit)
  }

  private static func leaf(_ pairs: [Entry], dataMap: UInt32 = 0) -> TrieNode {
    let node = make(capacity: pairs.count, dataMap: dataMap)
    for (index, entry) in pairs.enumerated() { node.insertEntry(entry, at: index) }
    return node
  }
}
