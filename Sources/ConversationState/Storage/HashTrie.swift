/// A persistent hash map: a compressed hash-array mapped trie (CHAMP layout, 32-way).
///
/// It backs the message indexes. A `Dictionary` copies every entry on the first write after a copy
/// was taken, so with a subscriber holding a snapshot every send would cost O(history). Here an
/// insert or removal copies only the nodes on one path: O(log₃₂ n) with a copy alive, in place without.
///
/// ```swift
/// var index = HashTrie<String, Int>()
/// index["client-1"] = 0
/// let snapshot = index          // shares every node
/// index["client-2"] = 1         // copies one path; snapshot still has one key
/// ```
public struct HashTrie<Key: Hashable, Value> {
  private var root: TrieNode<Key, Value>
  /// How many keys the trie holds, read in O(1).
  public private(set) var count: Int

  /// An empty trie; copies of it share its single empty root.
  public init() {
    root = TrieNode()
    count = 0
  }

  /// Whether the trie holds no key.
  public var isEmpty: Bool { count == 0 }

  /// The value stored for `key`, or `nil` when there is none.
  ///
  /// Assigning `nil` removes the key. A write copies only the nodes on the key's path, and only while a
  /// snapshot still shares them.
  public subscript(key: Key) -> Value? {
    get { root.value(for: key, hash: key.hashValue, shift: 0) }
    set {
      if let newValue {
        updateValue(newValue, forKey: key)
      } else {
        removeValue(forKey: key)
      }
    }
  }

  /// Inserts or replaces; returns the value that was replaced.
  @discardableResult
  public mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
    if !isWritableInPlace(&root) { root = root.copy() }
    let replaced = root.insert(key, value, hash: key.hashValue, shift: 0)
    if replaced == nil { count += 1 }
    return replaced
  }

  /// Removes `key`; returns the value it had. A missing key returns `nil` and copies no node, even while a
  /// snapshot shares the trie.
  @discardableResult
  public mutating func removeValue(forKey key: Key) -> Value? {
    guard root.value(for: key, hash: key.hashValue, shift: 0) != nil else { return nil }
    if !isWritableInPlace(&root) { root = root.copy() }
    let removed = root.remove(key, hash: key.hashValue, shift: 0)
    if removed != nil { count -= 1 }
    return removed
  }
}

extension HashTrie: Sendable where Key: Sendable, Value: Sendable {}

/// One trie level. `entries` holds key-value pairs whose hash slot is set in `dataMap`; `children` holds
/// sub-tries whose slot is set in `nodeMap`. Past the last hash bit a node is a collision bucket:
/// `entries` is searched linearly and the maps are unused.
///
/// `@unchecked Sendable` is sound for the same reason as `VectorNode`: a node is written only after
/// `isKnownUniquelyReferenced` proved a single owner; shared nodes are only read and copied.
final class TrieNode<Key: Hashable, Value>: @unchecked Sendable {
  private static var hashBits: Int { Int.bitWidth }
  var dataMap: UInt32
  var nodeMap: UInt32
  var entries: ContiguousArray<(key: Key, value: Value)>
  var children: ContiguousArray<TrieNode>

  init(
    dataMap: UInt32 = 0, nodeMap: UInt32 = 0, entries: ContiguousArray<(key: Key, value: Value)> = [],
    children: ContiguousArray<TrieNode> = []
  ) {
    self.dataMap = dataMap
    self.nodeMap = nodeMap
    self.entries = entries
    self.children = children
  }

  func copy() -> TrieNode { TrieNode(dataMap: dataMap, nodeMap: nodeMap, entries: entries, children: children) }

  private static func bit(_ hash: Int, _ shift: Int) -> UInt32 { 1 << UInt32((hash >> shift) & 31) }
  private static func slot(_ map: UInt32, _ bit: UInt32) -> Int { (map & (bit &- 1)).nonzeroBitCount }

  func value(for key: Key, hash: Int, shift: Int) -> Value? {
    if shift >= Self.hashBits { return entries.first { $0.key == key }?.value }
    let bit = Self.bit(hash, shift)
    if dataMap & bit != 0 {
      let entry = entries[Self.slot(dataMap, bit)]
      return entry.key == key ? entry.value : nil
    }
    if nodeMap & bit != 0 { return children[Self.slot(nodeMap, bit)].value(for: key, hash: hash, shift: shift + 5) }
    return nil
  }

  /// Inserts into this node, which the caller made unique. Returns the replaced value, if any.
  func insert(_ key: Key, _ value: Value, hash: Int, shift: Int) -> Value? {
    if shift >= Self.hashBits {
      if let index = entries.firstIndex(where: { $0.key == key }) {
        defer { entries[index].value = value }
        return entries[index].value
      }
      entries.append((key, value))
      return nil
    }
    let bit = Self.bit(hash, shift)
    if dataMap & bit != 0 {
      let index = Self.slot(dataMap, bit)
      let existing = entries[index]
      if existing.key == key {
        entries[index].value = value
        return existing.value
      }
      entries.remove(at: index)
      dataMap &= ~bit
      let child = Self.pair(existing, hash: existing.key.hashValue, (key, value), hash: hash, shift: shift + 5)
      children.insert(child, at: Self.slot(nodeMap, bit))
      nodeMap |= bit
      return nil
    }
    if nodeMap & bit != 0 {
      let index = Self.slot(nodeMap, bit)
      if !isWritableInPlace(&children[index]) { children[index] = children[index].copy() }
      return children[index].insert(key, value, hash: hash, shift: shift + 5)
    }
    entries.insert((key, value), at: Self.slot(dataMap, bit))
    dataMap |= bit
    return nil
  }

  private static func pair(
    _ first: (key: Key, value: Value), hash firstHash: Int, _ second: (key: Key, value: Value), hash secondHash: Int,
    shift: Int
  ) -> TrieNode {
    if shift >= hashBits { return TrieNode(entries: [first, second]) }
    let firstBit = bit(firstHash, shift)
    let secondBit = bit(secondHash, shift)
    if firstBit == secondBit {
      let child = pair(first, hash: firstHash, second, hash: secondHash, shift: shift + 5)
      return TrieNode(nodeMap: firstBit, children: [child])
    }
    let ordered: ContiguousArray = firstBit < secondBit ? [first, second] : [second, first]
    return TrieNode(dataMap: firstBit | secondBit, entries: ordered)
  }

  /// Removes from this node, which the caller made unique. Returns the removed value, if any.
  func remove(_ key: Key, hash: Int, shift: Int) -> Value? {
    if shift >= Self.hashBits {
      guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
      return entries.remove(at: index).value
    }
    let bit = Self.bit(hash, shift)
    if dataMap & bit != 0 {
      let index = Self.slot(dataMap, bit)
      guard entries[index].key == key else { return nil }
      dataMap &= ~bit
      return entries.remove(at: index).value
    }
    guard nodeMap & bit != 0 else { return nil }
    let index = Self.slot(nodeMap, bit)
    if !isWritableInPlace(&children[index]) { children[index] = children[index].copy() }
    let child = children[index]
    let removed = child.remove(key, hash: hash, shift: shift + 5)
    if child.children.isEmpty && child.entries.count <= 1 {
      // Keep the trie compact: a child left with one pair folds back into this level.
      children.remove(at: index)
      nodeMap &= ~bit
      if let last = child.entries.first {
        entries.insert(last, at: Self.slot(dataMap, bit))
        dataMap |= bit
      }
    }
    return removed
  }
}
