import ConversationState
import ConversationTesting
import Testing

/// A key whose hash collides on purpose, to exercise the trie's deepest level.
struct CollidingKey: Hashable {
  var value: Int
  func hash(into hasher: inout Hasher) { hasher.combine(value % 3) }
}

@Suite("HashTrie")
struct HashTrieTests {
  @Test(
    "random inserts, replacements and removals match a Dictionary, and old copies never change",
    arguments: [7, 8, 9] as [UInt64])
  func matchesDictionaryModel(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    var trie = HashTrie<Int, Int>()
    var model: [Int: Int] = [:]
    var frozen: [(HashTrie<Int, Int>, [Int: Int])] = []
    for step in 0..<8_000 {
      let key = Int.random(in: 0..<3_000, using: &random)
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<6:
        #expect(trie.updateValue(step, forKey: key) == model.updateValue(step, forKey: key))
      case 6..<9:
        #expect(trie.removeValue(forKey: key) == model.removeValue(forKey: key))
      default:
        frozen.append((trie, model))
      }
      #expect(trie.count == model.count)
    }
    for key in 0..<3_000 { #expect(trie[key] == model[key]) }
    for (copy, expected) in frozen.suffix(20) {
      for key in 0..<3_000 where copy[key] != expected[key] {
        Issue.record("a frozen copy changed at key \(key)")
        return
      }
    }
  }

  @Test("keys whose hashes collide are all kept and removable")
  func collisions() {
    var trie = HashTrie<CollidingKey, Int>()
    for value in 0..<100 { trie[CollidingKey(value: value)] = value }
    #expect(trie.count == 100)
    for value in 0..<100 { #expect(trie[CollidingKey(value: value)] == value) }
    for value in stride(from: 0, to: 100, by: 2) { trie[CollidingKey(value: value)] = nil }
    #expect(trie.count == 50)
    for value in 0..<100 { #expect(trie[CollidingKey(value: value)] == (value.isMultiple(of: 2) ? nil : value)) }
  }
}
