/// An immutable-by-sharing vector: a 32-way trie of leaves plus a tail, in the style of Clojure's `PersistentVector`.
///
/// Copies share structure. Appending, replacing or removing the last element copies at most one
/// path of nodes (O(log₃₂ n)) when another copy is alive, and mutates in place when this value is
/// the only owner. This is what lets a subscriber hold an old conversation snapshot while the store
/// keeps appending messages, without either side copying the whole history.
///
/// ```swift
/// var history = PersistentVector<Int>()
/// history.append(1)
/// let snapshot = history  // O(1), shares every node
/// history.append(2)  // a new tail that refers to the old one; `snapshot` still reads [1]
/// ```
public struct PersistentVector<Element> {
  /// The trie's root; it also keeps the earlier tail whose first elements the tail shares (see
  /// `VectorNode.tailBase`).
  @usableFromInline var root: VectorNode<Element>
  /// The newest elements from `root.tailBaseCount` on (up to 32 with the base's); the ones before are
  /// `root.tailBase`'s first. It may be empty while the base holds all of them (a removal from a shared tail).
  @usableFromInline var tail: ContiguousArray<Element>
  /// Bits of the index consumed by the root level; a single leaf under the root has `shift == 5`.
  @usableFromInline var shift: Int
  /// How many elements the vector holds, trie and tail together.
  public private(set) var count: Int

  @usableFromInline static var width: Int { 32 }
  @usableFromInline static var bits: Int { 5 }
  @usableFromInline static var mask: Int { 31 }

  /// An empty vector; the first 32 appends fill the tail and allocate no trie node.
  public init() {
    root = VectorNode()
    tail = []
    tail.reserveCapacity(Self.width)
    shift = Self.bits
    count = 0
  }

  /// A vector of `elements` in their order, for example a page of history being loaded; O(n).
  public init<S: Sequence>(_ elements: S) where S.Element == Element {
    self.init()
    for element in elements { append(element) }
  }

  /// Index of the first element held in the tail rather than the trie.
  @inlinable var tailOffset: Int { count < Self.width ? 0 : ((count - 1) >> Self.bits) << Self.bits }

  /// The element at `position`, in O(log₃₂ n); a position outside `0..<count` traps.
  ///
  /// Setting copies only the path to that element, and only while a snapshot shares it.
  public subscript(position: Int) -> Element {
    // An addressor, not a getter or a read coroutine: reading one field of an element (a message's client ID,
    // as the ID indexes confirm each hit) reads that field in place. A getter copies the element; the read
    // coroutine did too (it could not lend an element of a class's array across its yield), and allocated its
    // frame: 21 whole-message copies a send turn, most of them to read one ID.
    unsafeAddress {
      precondition(position >= 0 && position < count, "PersistentVector index \(position) out of 0..<\(count)")
      return elementAddress(position)
    }
    set {
      precondition(position >= 0 && position < count, "PersistentVector index \(position) out of 0..<\(count)")
      if position >= tailOffset {
        let index = position & Self.mask
        makeTailWritable(from: index)
        tail[index - root.tailBaseCount] = newValue
        return
      }
      Self.uniqued(&root)
      Self.assign(newValue, at: position, in: root, level: shift)
    }
  }

  /// Where the element at `position` (in `0..<count`) is kept. Valid while this vector is neither changed nor
  /// dropped: the address is into an array the vector holds (its tail, its root's tail base, or a trie leaf),
  /// and an array's buffer moves or is freed only when that array is written or released. A subscript read
  /// borrows the vector for the whole access, so neither can happen before the read is done. The pointer is
  /// the subscript's alone: never stored, used within one access.
  @usableFromInline func elementAddress(_ position: Int) -> UnsafePointer<Element> {
    if position >= tailOffset {
      let index = position & Self.mask
      let baseCount = root.tailBaseCount
      if index < baseCount { return Self.address(of: index, in: root.tailBase) }
      return Self.address(of: index - baseCount, in: tail)
    }
    var node = root
    var level = shift
    while level > 0 {
      node = node.children[(position >> level) & Self.mask]
      level -= Self.bits
    }
    return Self.address(of: position & Self.mask, in: node.leaves)
  }

  @inlinable static func address(of index: Int, in array: ContiguousArray<Element>) -> UnsafePointer<Element> {
    // The buffer outlives this call: `array` is a copy of an array the vector holds, sharing its buffer. A
    // `ContiguousArray` always lends its own native buffer here (never a temporary copy, as a bridged `Array`
    // might), so the address is that buffer's after the closure returns.
    array.withUnsafeBufferPointer { $0.baseAddress! + index }
  }

  /// Appends in amortized O(1); O(log₃₂ n) node copies when the tail is full and a copy shares the trie.
  public mutating func append(_ element: Element) {
    let tailCount = count - tailOffset
    if tailCount < Self.width {
      makeTailWritable(from: tailCount)
      tail.append(element)
      count += 1
      return
    }
    let fullTail = VectorNode<Element>(
      leaves: root.tailBaseCount == 0 ? tail : root.tailBase[..<root.tailBaseCount] + tail)
    tail = [element]
    tail.reserveCapacity(Self.width)
    forgetTailBase()
    if (count >> Self.bits) > (1 << shift) {
      // The trie is full at this height: grow a new root.
      let newRoot = VectorNode<Element>(children: [root, Self.path(to: fullTail, level: shift)])
      root = newRoot
      shift += Self.bits
    } else {
      Self.uniqued(&root)
      Self.push(fullTail, index: count - 1, into: root, level: shift)
    }
    count += 1
  }

  /// Removes and returns the last element; O(log₃₂ n) when the tail must be refilled from the trie.
  @discardableResult
  public mutating func removeLast() -> Element {
    precondition(count > 0, "removeLast on an empty PersistentVector")
    let tailCount = count - tailOffset
    if tailCount > 1 {
      makeTailWritable(from: tailCount - 1)
      count -= 1
      return tail.removeLast()
    }
    // The tail's only element goes, and the trie's last leaf becomes the tail.
    let last = self[count - 1]
    count -= 1
    guard count > 0 else {
      self = Self()
      return last
    }
    tail = leafArray(containing: count - 1)
    forgetTailBase()
    Self.uniqued(&root)
    Self.popLeaf(index: count - 1, from: root, level: shift)
    if shift > Self.bits && root.children.count == 1 {
      root = root.children[0]
      shift -= Self.bits
    }
    return last
  }

  /// The elements of the trie leaf that holds `position`, which is below `tailOffset`.
  private func leafArray(containing position: Int) -> ContiguousArray<Element> {
    var node = root
    var level = shift
    while level > 0 {
      node = node.children[(position >> level) & Self.mask]
      level -= Self.bits
    }
    return node.leaves
  }

  /// Makes the tail's elements from `index` on this vector's own, in `tail`, before one of them is written
  /// or an element is added at `index`.
  ///
  /// When another copy of the vector shares the root, it likely shares the tail too (a snapshot shares
  /// both), and then nothing is written in place and the elements before `index` are not copied: they stay
  /// in the shared array, which the root keeps as the tail's base (or keeps on keeping), and only the ones
  /// from `index` on are copied into a new `tail`. The root is copied to keep it (O(1): its arrays are
  /// shared, not copied), which also makes it this vector's alone, so later writes go in place. A vector
  /// that holds its root alone writes in place, first taking out of the base any element about to be
  /// written; should the tail array still be shared (the root was copied by a write in the trie), the array
  /// copies itself as any array does.
  private mutating func makeTailWritable(from index: Int) {
    let baseCount = root.tailBaseCount
    // Not `isWritableInPlace`: that is for class fields written after the check, and the root's are not
    // written here (it is replaced); what is written in place is the tail array, which checks for itself.
    if isKnownUniquelyReferenced(&root) {
      guard index < baseCount else { return }
      let base = root.tailBase
      tail.insert(contentsOf: base[index..<baseCount], at: 0)
      root = root.keepingForTail(index > 0 ? base : [], count: index)
      return
    }
    // The elements that stay where they are: the base's, or the shared tail's when there is no base.
    let (kept, base) =
      baseCount > 0 ? (Swift.min(index, baseCount), root.tailBase) : (Swift.min(index, tail.count), tail)
    var own = ContiguousArray<Element>()
    own.reserveCapacity(Self.width - kept)
    if baseCount > 0 {
      own.append(contentsOf: base[kept..<baseCount])
      own.append(contentsOf: tail)
    } else {
      own.append(contentsOf: tail[kept...])
    }
    tail = own
    root = root.keepingForTail(kept > 0 ? base : [], count: kept)
  }

  /// Lets go of the tail's base when the tail is replaced as a whole (moved into the trie, or refilled from
  /// it); a root that becomes a child when the trie grows a level keeps none.
  private mutating func forgetTailBase() {
    if root.tailBaseCount > 0 { root = root.keepingForTail([], count: 0) }
  }

  @usableFromInline static func uniqued(_ node: inout VectorNode<Element>) {
    if !isWritableInPlace(&node) { node = node.copy() }
  }

  @usableFromInline static func assign(_ value: Element, at position: Int, in node: VectorNode<Element>, level: Int) {
    if level == 0 {
      node.leaves[position & mask] = value
      return
    }
    let slot = (position >> level) & mask
    uniqued(&node.children[slot])
    assign(value, at: position, in: node.children[slot], level: level - bits)
  }

  private static func path(to leaf: VectorNode<Element>, level: Int) -> VectorNode<Element> {
    level == 0 ? leaf : VectorNode(children: [path(to: leaf, level: level - bits)])
  }

  private static func push(_ leaf: VectorNode<Element>, index: Int, into node: VectorNode<Element>, level: Int) {
    let slot = (index >> level) & mask
    if level == bits {
      node.children.append(leaf)
    } else if slot < node.children.count {
      uniqued(&node.children[slot])
      push(leaf, index: index, into: node.children[slot], level: level - bits)
    } else {
      node.children.append(path(to: leaf, level: level - bits))
    }
  }

  private static func popLeaf(index: Int, from node: VectorNode<Element>, level: Int) {
    let slot = (index >> level) & mask
    if level == bits {
      node.children.removeLast()
      return
    }
    uniqued(&node.children[slot])
    popLeaf(index: index, from: node.children[slot], level: level - bits)
    if node.children[slot].children.isEmpty { node.children.removeLast() }
  }
}

/// A trie node: a branch holds `children`, a leaf holds `leaves`, and a vector's root may also keep its
/// tail's base.
///
/// `@unchecked Sendable` is sound because a node is mutated only after `isKnownUniquelyReferenced`
/// proved that exactly one vector value (and so one isolation domain) can reach it; a node reachable
/// from two values is never written again, only copied. That is the ordinary copy-on-write contract.
@usableFromInline
final class VectorNode<Element>: @unchecked Sendable {
  @usableFromInline var children: ContiguousArray<VectorNode<Element>>
  @usableFromInline var leaves: ContiguousArray<Element>
  /// For a vector's root only: an earlier tail whose first `tailBaseCount` elements are the vector's tail's
  /// first ones, kept rather than copied when the vector wrote to its newest elements while a snapshot
  /// shared them. Empty, with `tailBaseCount` 0, when there is none, and for every other node.
  ///
  /// Why: a snapshot (a subscriber's last frame) shares the tail, and a branch switch that removed the
  /// newest message and appended another copied all of it, up to 32 messages, then compared each copy with
  /// the snapshot's to find what changed. Kept here, they are neither copied nor compared: two tails that
  /// read one array's elements hold them alike (see `differingPositions(from:)`). A base is never a base's
  /// base, so at most one extra tail (32 elements) is kept alive per vector, until the tail moves into the
  /// trie or a write reaches below `tailBaseCount`. Constants, so that reading the tail reads them with no
  /// exclusivity check: a root keeping another base is a new node.
  @usableFromInline let tailBase: ContiguousArray<Element>
  @usableFromInline let tailBaseCount: Int

  @usableFromInline init(
    children: ContiguousArray<VectorNode<Element>> = [], leaves: ContiguousArray<Element> = [],
    tailBase: ContiguousArray<Element> = [], tailBaseCount: Int = 0
  ) {
    self.children = children
    self.leaves = leaves
    self.tailBase = tailBase
    self.tailBaseCount = tailBaseCount
  }

  @usableFromInline func copy() -> VectorNode<Element> {
    VectorNode(children: children, leaves: leaves, tailBase: tailBase, tailBaseCount: tailBaseCount)
  }

  /// A copy of this root that keeps `count` of `base`'s first elements as its vector's tail's first ones.
  func keepingForTail(_ base: ContiguousArray<Element>, count: Int) -> VectorNode<Element> {
    VectorNode(children: children, leaves: leaves, tailBase: base, tailBaseCount: count)
  }
}

extension PersistentVector: RandomAccessCollection {
  /// The first position; positions are plain offsets from 0.
  public var startIndex: Int { 0 }
  /// One past the last position: positions run `0..<count`.
  public var endIndex: Int { count }
  /// The position after `i`; not bounds-checked, as with `Array`.
  public func index(after i: Int) -> Int { i + 1 }
  /// The position before `i`; not bounds-checked, as with `Array`.
  public func index(before i: Int) -> Int { i - 1 }
}

extension PersistentVector: Sendable where Element: Sendable {}

extension PersistentVector: Equatable where Element: Equatable {
  /// Equal when both hold equal elements in the same order. Subtrees the two share are not compared, so a
  /// vector and a recent snapshot of it compare cheaply.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    guard lhs.count == rhs.count else { return false }
    return lhs.differingPositions(from: rhs).isEmpty
  }
}

extension PersistentVector where Element: Equatable {
  /// Positions below `min(count, old.count)` whose element differs from `old`'s.
  ///
  /// Subtrees the two vectors share are skipped by identity, so two versions one edit apart compare in
  /// O(log₃₂ n) rather than O(n). This is how snapshot change sets are computed without a change log.
  public func differingPositions(from old: Self) -> [Int] {
    var result: [Int] = []
    let common = Swift.min(count, old.count)
    let trieLimit = Swift.min(tailOffset, old.tailOffset)
    if shift == old.shift {
      Self.collectDifferences(root, old.root, level: shift, base: 0, limit: trieLimit, into: &result)
    } else {
      for position in 0..<trieLimit where self[position] != old[position] { result.append(position) }
    }
    // What is left lies in one leaf of each (the tail of one, the tail or a trie leaf of the other). Where
    // both hold the first elements of one array as they are, those are equal without comparing them one by
    // one (up to 32, each a full `==`): see `knownEqualLeafPrefix(at:with:)`.
    var start = trieLimit
    if trieLimit < common { start += Swift.min(knownEqualLeafPrefix(at: trieLimit, with: old), common - trieLimit) }
    for position in start..<common where self[position] != old[position] { result.append(position) }
    return result
  }

  /// How many elements from `position` on (the first position of a leaf, and the tail's in at least one of
  /// the two vectors) the two hold alike because they read them from one array.
  ///
  /// Two array values that share a buffer hold the same elements: neither can write to it in place while
  /// the other holds it. Both vectors hold their arrays while they are compared, so a buffer's address
  /// cannot have been reused by another array meanwhile.
  private func knownEqualLeafPrefix(at position: Int, with old: Self) -> Int {
    let mine = leafRuns(at: position)
    let theirs = old.leafRuns(at: position)
    guard Self.isSameBuffer(mine.first, theirs.first) else { return 0 }
    if mine.firstCount == theirs.firstCount && Self.isSameBuffer(mine.rest, theirs.rest) {
      return mine.firstCount + mine.rest.count
    }
    return Swift.min(mine.firstCount, theirs.firstCount)
  }

  /// The leaf that starts at `position`, as the first `firstCount` elements of `first` followed by `rest`: the
  /// tail's base and its own elements, or one array (the tail's or a trie leaf's) and nothing.
  private func leafRuns(at position: Int) -> (
    first: ContiguousArray<Element>, firstCount: Int, rest: ContiguousArray<Element>
  ) {
    if position != tailOffset {
      let leaf = leafArray(containing: position)
      return (leaf, leaf.count, [])
    }
    return root.tailBaseCount > 0 ? (root.tailBase, root.tailBaseCount, tail) : (tail, tail.count, [])
  }

  /// Whether two arrays share one buffer; two empty arrays count as one, as there is nothing in either.
  private static func isSameBuffer<T>(_ lhs: ContiguousArray<T>, _ rhs: ContiguousArray<T>) -> Bool {
    guard !lhs.isEmpty, !rhs.isEmpty else { return lhs.isEmpty && rhs.isEmpty }
    let mine = lhs.withUnsafeBufferPointer { $0.baseAddress }
    let theirs = rhs.withUnsafeBufferPointer { $0.baseAddress }
    return mine == theirs
  }

  /// The IDs of the elements at every position where `self` and `old` differ, on either side, including
  /// positions only one of them has: the candidates for a change set. `id` may return nil for empty slots.
  public func identifiersAtChangedPositions<ID: Hashable>(from old: Self, _ id: (Element) -> ID?) -> Set<ID> {
    var identifiers: [ID] = []
    appendIdentifiersAtChangedPositions(from: old, to: &identifiers, id)
    return Set(identifiers)
  }

  /// `identifiersAtChangedPositions(from:_:)` appended to `identifiers`, in position order, an ID once per
  /// side it is found on (so possibly twice): a caller that diffs a few positions dedupes them without
  /// hashing.
  public func appendIdentifiersAtChangedPositions<ID>(
    from old: Self, to identifiers: inout [ID], _ id: (Element) -> ID?
  ) {
    for position in differingPositions(from: old) {
      if let new = id(self[position]) { identifiers.append(new) }
      if let previous = id(old[position]) { identifiers.append(previous) }
    }
    for position in Swift.min(count, old.count)..<Swift.max(count, old.count) {
      if let identifier = id(position < count ? self[position] : old[position]) { identifiers.append(identifier) }
    }
  }

  private static func collectDifferences(
    _ new: VectorNode<Element>, _ old: VectorNode<Element>, level: Int, base: Int, limit: Int, into result: inout [Int]
  ) {
    if new === old || base >= limit { return }
    // Two nodes can be copies of one (a root that keeps a tail's base is a copy): one array, nothing to compare.
    if level == 0 {
      if isSameBuffer(new.leaves, old.leaves) { return }
      for offset in 0..<Swift.min(new.leaves.count, old.leaves.count) where base + offset < limit {
        if new.leaves[offset] != old.leaves[offset] { result.append(base + offset) }
      }
      return
    }
    if isSameBuffer(new.children, old.children) { return }
    let span = 1 << level
    for slot in 0..<Swift.min(new.children.count, old.children.count) {
      collectDifferences(
        new.children[slot], old.children[slot], level: level - bits, base: base + slot * span, limit: limit,
        into: &result)
    }
  }
}
