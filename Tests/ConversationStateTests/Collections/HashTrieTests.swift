import ConversationState
import ConversationTesting
import Testing

/// A key whose hash collides on purpose, to exercise the trie's deepest level.
struct CollidingKey: Hashable {
  var value: Int
  func hash(into hasher: inout Hasher) { hasher.combine(value % 3) }
}

/// Counts the values alive, to check the trie retains and releases each pair it stores exactly once.
final class LiveCount {
  var alive = 0
}

final class Tracked {
  let count: LiveCount
  init(_ count: LiveCount) {
    self.count = count
    count.alive += 1
  }
  deinit { count.alive -= 1 }
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

  @Test(
    "every value the trie held is released once the trie and its copies are gone, and none before",
    arguments: [(11, 3_000), (12, 40)] as [(UInt64, Int)])
  func releasesWhatItHeld(seed: UInt64, keySpace: Int) {
    let count = LiveCount()
    do {
      var random = SplitMix64(seed: seed)
      // Keys longer than a small string, so they are counted references too.
      func key(_ value: Int) -> String { "conversation-message-\(value)-with-a-long-id" }
      var trie = HashTrie<String, Tracked>()
      var model: [String: Tracked] = [:]
      var copies: [HashTrie<String, Tracked>] = []
      var copiedModels: [[String: Tracked]] = []
      for _ in 0..<4_000 {
        let name = key(Int.random(in: 0..<keySpace, using: &random))
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<6:
          let value = Tracked(count)
          #expect(trie.updateValue(value, forKey: name) === model.updateValue(value, forKey: name))
        case 6..<9:
          #expect(trie.removeValue(forKey: name) === model.removeValue(forKey: name))
        default:
          copies.append(trie)
          copiedModels.append(model)
        }
      }
      // While the models hold them, every value is alive; once the tries go, only the models' remain.
      let held = Set((copiedModels + [model]).flatMap { $0.values.map(ObjectIdentifier.init) })
      #expect(count.alive == held.count)
      for key in model.keys { #expect(trie[key] === model[key]) }
      trie = HashTrie()
      copies.removeAll()
      #expect(count.alive == held.count)
    }
    #expect(count.alive == 0)
  }

  @Test("copies taken between collisions keep what they had after removals fold buckets back")
  func collisionCopies() {
    var trie = HashTrie<CollidingKey, Int>()
    for value in 0..<12 { trie[CollidingKey(value: value)] = value }
    let full = trie
    for value in 0..<12 where value != 4 { trie[CollidingKey(value: value)] = nil }
    #expect(trie.count == 1 && trie[CollidingKey(value: 4)] == 4)
    #expect(full.count == 12)
    for value in 0..<12 { #expect(full[CollidingKey(value: value)] == value) }
    trie[CollidingKey(value: 7)] = 70
    #expect(trie[CollidingKey(value: 7)] == 70 && full[CollidingKey(value: 7)] == 7)
  }
}
