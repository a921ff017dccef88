import ConversationTesting
import Testing

@testable import ConversationState

/// A key whose hash takes only `buckets` values, so many keys share one.
struct BucketedKey: Hashable {
  var value: Int
  var buckets: Int
  func hash(into hasher: inout Hasher) { hasher.combine(value % buckets) }
}

/// `PositionIndex` stores hashes, not IDs, and reads the ID back from the list to confirm a hit; these
/// stories drive it as `MessageList` does (remove before a move) with hashes that collide on purpose.
@Suite("PositionIndex")
struct PositionIndexTests {
  /// A list of IDs and the index over it, moved the way the message list moves its messages.
  struct IndexedList {
    var ids: [BucketedKey] = []
    var index = PositionIndex<BucketedKey>()

    mutating func append(_ id: BucketedKey) {
      ids.append(id)
      if let displaced = index.set(ids.count - 1, for: id), ids[displaced] != id {
        index.separate(id, at: ids.count - 1, from: displaced)
      }
    }

    /// Removes the ID at `position`; the ones after it move down one place, unindexed first.
    mutating func remove(at position: Int) {
      for id in ids[position...] { index.remove(id) }
      let moved = Array(ids[(position + 1)...])
      ids.removeSubrange(position...)
      for id in moved { append(id) }
    }

    func position(of id: BucketedKey) -> Int? {
      index.candidate(for: id).flatMap { $0 < ids.count && ids[$0] == id ? $0 : nil }
    }
  }

  @Test(
    "every ID is found at its own position, and a removed one is not, however many share a hash",
    arguments: [(1, 21), (3, 22), (1_000_000, 23)] as [(Int, UInt64)])
  func findsEachIDAtItsPosition(buckets: Int, seed: UInt64) {
    var random = SplitMix64(seed: seed)
    var list = IndexedList()
    var removed: Set<BucketedKey> = []
    var next = 0
    for _ in 0..<600 {
      if list.ids.isEmpty || Int.random(in: 0..<3, using: &random) > 0 {
        list.append(BucketedKey(value: next, buckets: buckets))
        next += 1
      } else {
        let position = Int.random(in: 0..<list.ids.count, using: &random)
        removed.insert(list.ids[position])
        list.remove(at: position)
      }
    }
    #expect(list.index.count == list.ids.count)
    for (position, id) in list.ids.enumerated() where list.position(of: id) != position {
      Issue.record("\(id.value) is at \(position), the index says \(String(describing: list.position(of: id)))")
    }
    for id in removed where list.position(of: id) != nil {
      Issue.record("removed \(id.value) is still found at \(String(describing: list.position(of: id)))")
    }
    #expect(list.position(of: BucketedKey(value: next + 1, buckets: buckets)) == nil)
  }

  @Test("a copy of the index keeps the positions it had while the list goes on changing")
  func copiesAreIndependent() {
    var list = IndexedList()
    for value in 0..<40 { list.append(BucketedKey(value: value, buckets: 2)) }
    let held = list
    list.remove(at: 0)
    #expect(held.position(of: BucketedKey(value: 0, buckets: 2)) == 0)
    #expect(held.position(of: BucketedKey(value: 39, buckets: 2)) == 39)
    #expect(list.position(of: BucketedKey(value: 0, buckets: 2)) == nil)
    #expect(list.position(of: BucketedKey(value: 39, buckets: 2)) == 38)
  }
}
