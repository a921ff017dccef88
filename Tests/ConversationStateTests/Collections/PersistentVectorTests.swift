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

  /// Positions below the shorter count where two arrays differ: what `differingPositions(from:)` must say.
  static func differences(_ new: [Int], _ old: [Int]) -> [Int] {
    (0..<min(new.count, old.count)).filter { new[$0] != old[$0] }
  }

  @Test(
    "differingPositions and == agree with comparing every element, across copies that are written at random",
    arguments: [21, 22, 23, 24, 25, 26] as [UInt64])
  func differingPositionsMatchesModel(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    // Copies of one vector, each written on its own: a snapshot is a copy that is left alone for a while.
    let start = Array(0..<Int.random(in: 0..<100, using: &random))
    var copies = [(vector: PersistentVector(start), model: start)]
    for step in 1...4_000 {
      // Taken out while it is written, so that it holds its nodes alone unless another copy shares them.
      let slot = Int.random(in: 0..<copies.count, using: &random)
      var (vector, model) = copies.remove(at: slot)
      // Writes near the end mostly (where the tail is), with counts drifting across several leaf boundaries.
      let tailStart = model.count < 32 ? 0 : (model.count - 1) / 32 * 32
      switch Int.random(in: 0..<12, using: &random) {
      case 0..<4 where model.count < 300:
        // Sometimes a value already there, so equal elements are not always reported different.
        let value = Bool.random(using: &random) || model.isEmpty ? step : model[model.count - 1]
        vector.append(value)
        model.append(value)
      case 4..<6 where !model.isEmpty:
        for _ in 0..<min(model.count, Int.random(in: 1...3, using: &random)) {
          #expect(vector.removeLast() == model.removeLast())
        }
      case 6..<9 where !model.isEmpty:
        let index =
          Bool.random(using: &random)
          ? Int.random(in: tailStart..<model.count, using: &random) : Int.random(in: 0..<model.count, using: &random)
        let value = Int.random(in: 0..<5, using: &random) == 0 ? model[index] : -step
        vector[index] = value
        model[index] = value
      case 9 where copies.count < 5:
        copies.append((vector, model))
      case 10 where !copies.isEmpty:
        // A snapshot taken again, as a subscriber that draws a frame.
        copies[Int.random(in: 0..<copies.count, using: &random)] = (vector, model)
      case 11 where !copies.isEmpty:
        continue
      default:
        break
      }
      #expect(Array(vector) == model, "step \(step)")
      for other in copies {
        #expect(vector.differingPositions(from: other.vector) == Self.differences(model, other.model), "step \(step)")
        #expect(other.vector.differingPositions(from: vector) == Self.differences(other.model, model), "step \(step)")
        #expect((vector == other.vector) == (model == other.model), "step \(step)")
      }
      copies.insert((vector, model), at: slot)
    }
    for (vector, model) in copies { #expect(Array(vector) == model) }
  }

  /// Counts the comparisons made between its elements.
  final class Tally {
    var comparisons = 0
  }

  /// An element that counts each `==` it takes part in.
  struct Tallied: Equatable {
    var value: Int
    let tally: Tally

    static func == (lhs: Self, rhs: Self) -> Bool {
      lhs.tally.comparisons += 1
      return lhs.value == rhs.value
    }
  }

  /// How a copy of a snapshot is written: `removed` elements taken off the end, then `appended` new ones.
  struct Edit: Sendable, CustomStringConvertible {
    var count: Int
    var removed: Int
    var appended: Int
    var description: String { "\(count) elements, \(removed) removed, \(appended) appended" }
  }

  @Test(
    "a tail written under a snapshot is compared with the snapshot's only from its first written element, both ways",
    arguments: [
      Edit(count: 1_000, removed: 2, appended: 2), Edit(count: 100_000, removed: 1, appended: 1),
      Edit(count: 1_024, removed: 0, appended: 1), Edit(count: 1_023, removed: 3, appended: 0),
      Edit(count: 40, removed: 1, appended: 3), Edit(count: 5, removed: 2, appended: 2),
    ])
  func writtenTailComparesOnlyWhatChanged(edit: Edit) {
    let tally = Tally()
    let snapshot = PersistentVector((0..<edit.count).map { Tallied(value: $0, tally: tally) })
    var vector = snapshot
    for _ in 0..<edit.removed { vector.removeLast() }
    for value in 0..<edit.appended { vector.append(Tallied(value: -1 - value, tally: tally)) }
    let written = edit.count - edit.removed
    let compared = min(vector.count, snapshot.count) - written
    let expected = Array(written..<min(vector.count, snapshot.count))
    tally.comparisons = 0
    #expect(vector.differingPositions(from: snapshot) == expected)
    #expect(snapshot.differingPositions(from: vector) == expected)
    #expect(tally.comparisons == 2 * compared)

    // Another copy of the same snapshot, written on its own, holds the unchanged part alike with this one.
    var sibling = snapshot
    sibling.removeLast()
    sibling.append(Tallied(value: -100, tally: tally))
    let siblingWritten = min(written, edit.count - 1)
    tally.comparisons = 0
    #expect(
      vector.differingPositions(from: sibling)
        == (siblingWritten..<min(vector.count, sibling.count)).filter { vector[$0].value != sibling[$0].value })
    #expect(tally.comparisons == min(vector.count, sibling.count) - siblingWritten)
  }

  @Test("a tail written in place after it left a snapshot's is compared from the lowest element written since")
  func laterWritesLowerWhatIsSkipped() {
    let tally = Tally()
    let snapshot = PersistentVector((0..<1_000).map { Tallied(value: $0, tally: tally) })
    var vector = snapshot
    vector.append(Tallied(value: -1, tally: tally))  // a new tail: the 8 old elements are the snapshot's
    vector[995] = Tallied(value: -2, tally: tally)  // in place: compared from 995 on
    vector[998] = Tallied(value: 998, tally: tally)  // an equal value written: compared, not reported
    tally.comparisons = 0
    #expect(vector.differingPositions(from: snapshot) == [995])
    #expect(tally.comparisons == 5)
    #expect(vector != snapshot)
  }
}
