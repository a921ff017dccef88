import ConversationState
import ConversationTesting
import Testing

@Suite("PersistentVector")
struct PersistentVectorTests {
  @Test(
    "random appends, writes and removals match an Array, and old copies never change",
    arguments: [1, 2, 3, 4] as [UInt64])
  func matchesArrayModel(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    var vector = PersistentVector<Int>()
    var model: [Int] = []
    var frozen: [(PersistentVector<Int>, [Int])] = []
    for step in 0..<6_000 {
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<6:
        vector.append(step)
        model.append(step)
      case 6..<8 where !model.isEmpty:
        let index = Int.random(in: 0..<model.count, using: &random)
        vector[index] = -step
        model[index] = -step
      case 8 where !model.isEmpty:
        #expect(vector.removeLast() == model.removeLast())
      default:
        frozen.append((vector, model))
      }
    }
    #expect(Array(vector) == model)
    #expect(vector.count == model.count)
    for (copy, expected) in frozen { #expect(Array(copy) == expected) }
  }

  @Test("crossing trie heights in both directions keeps every element", arguments: [31, 32, 33, 1_056, 1_057, 33_825])
  func heights(count: Int) {
    var vector = PersistentVector(0..<count)
    #expect(Array(vector) == Array(0..<count))
    for expected in (0..<count).reversed() { #expect(vector.removeLast() == expected) }
    #expect(vector.isEmpty)
  }

  @Test("differingPositions finds exactly the edited positions")
  func differingPositions() {
    let old = PersistentVector(0..<5_000)
    var new = old
    new[17] = -1
    new[4_000] = -2
    new[4_999] = -3
    #expect(new.differingPositions(from: old) == [17, 4_000, 4_999])
    #expect(old.differingPositions(from: old) == [])
    #expect(new != old)
  }
}
