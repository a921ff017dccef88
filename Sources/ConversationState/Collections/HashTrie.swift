/// A persistent hash map: a compressed hash-array mapped trie (CHAMP layout, 32-way).
///
/// It backs the message indexes. A `Dictionary` copies every entry on the first write after a copy
/// was taken, so with a subscriber holding a snapshot every send would cost O(history). Here an
/// insert or removal copies only the nodes on one path: O(log₃₂ n) with a copy alive, in place without.
///
/// ```swift
/// var index = HashTrie<String, Int>()
/// index["client-1"] = 0
/// let snapshot = index  // shares every node
/// index["client-2"] = 1  // copies one path; snapshot still has one key
/// ```
public struct HashTrie<Key: Hashable, Value> {
  private var root: TrieNode<Key, Value>
  /// How many keys the trie holds, read in O(1).
  public private(set) var count: Int

  /// An empty trie; copies of it share its single empty root.
  public init() {
    root = TrieNode.make(capacity: 0)
    count = 0
  }

  /// Whether the trie holds no key.
  public var isEmpty: Bool { count == 0 }

  /// The value stored for `key`, or `nil` when there is none.
  ///
  /// Assigning `nil` removes the key. A write copies only the nodes on the key's path, and only while a
  /// snapshot still shares them.
  public subscript(key: Key) -> Value? {
    get { root.value(for: key, hash: TrieNode<Key, Value>.hash(of: key), shift: 0) }
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
    let replaced = TrieNode.insert(key, value, hash: TrieNode<Key, Value>.hash(of: key), shift: 0, into: &root)
    if replaced == nil { count += 1 }
    return replaced
  }

  /// Removes `key`; returns the value it had. A missing key returns `nil` and copies no node, even while a
  /// snapshot shares the trie.
  @discardableResult
  public mutating func removeValue(forKey key: Key) -> Value? {
    let hash = TrieNode<Key, Value>.hash(of: key)
    guard root.value(for: key, hash: hash, shift: 0) != nil else { return nil }
    let removed = TrieNode.remove(key, hash: hash, shift: 0, from: &root)
    if removed != nil { count -= 1 }
    return removed
  }
}

// @unchecked Sendable: the nodes (`ManagedBuffer`s, which cannot be `Sendable`) hold only keys and values,
// which are `Sendable` here, and other nodes. A node is written only after `isWritableInPlace` proved that
// the trie writing it holds the only reference (or right after it was made, before anyone else can see
// it); a node two tries share, on this thread or another, is only ever read, and copied before a write.
extension HashTrie: @unchecked Sendable where Key: Sendable, Value: Sendable {}
