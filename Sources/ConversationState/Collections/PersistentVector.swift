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
/// history.append(2)  // copies only the tail; `snapshot` still reads [1]
/// ```
public struct PersistentVector<Element> {
  @usableFromInline var root: VectorNode<Element>
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
    // A read accessor, not a getter: reading one field of an element does not copy the element.
    _read {
      precondition(position >= 0 && position < count, "PersistentVector index \(position) out of 0..<\(count)")
      if position >= tailOffset {
        yield tail[position & Self.mask]
      } else {
        var node = root
        var level = shift
        while level > 0 {
          node = node.children[(position >> level) & Self.mask]
          level -= Self.bits
        }
        yield node.leaves[position & Self.mask]
      }
    }
    set {
      precondition(position >= 0 && position < count, "PersistentVector index \(position) out of 0..<\(count)")
      if position >= tailOffset {
        tail[position & Self.mask] = newValue
        return
      }
      Self.uniqued(&root)
      Self.assign(newValue, at: position, in: root, level: shift)
    }
  }

  /// Appends in amortized O(1); O(log₃₂ n) node copies when the tail is full and a copy shares the trie.
  public mutating func append(_ element: Element) {
    if count - tailOffset < Self.width {
      tail.append(element)
      count += 1
      return
    }
    let fullTail = VectorNode<Element>(leaves: tail)
    tail = [element]
    tail.reserveCapacity(Self.width)
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
    let last = tail.removeLast()
    count -= 1
    if tail.isEmpty && count > 0 {
      tail = leafArray(containing: count - 1)
      Self.uniqued(&root)
      Self.popLeaf(index: count - 1, from: root, level: shift)
      if shift > Self.bits && root.children.count == 1 {
        root = root.children[0]
        shift -= Self.bits
      }
    }
    if count == 0 { self = Self() }
    return last
  }

  private func leafArray(containing position: Int) -> ContiguousArray<Element> {
    var node = root
    var level = shift
    while level > 0 {
      node = node.children[(position >> level) & Self.mask]
      level -= Self.bits
    }
    return node.leaves
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

/// A trie node: a branch holds `children`, a leaf holds `leaves`.
///
/// `@unchecked Sendable` is sound because a node is mutated only after `isKnownUniquelyReferenced`
/// proved that exactly one vector value (and so one isolation domain) can reach it; a node reachable
/// from two values is never written again, only copied. That is the ordinary copy-on-write contract.
@usableFromInline
final class VectorNode<Element>: @unchecked Sendable {
  @usableFromInline var children: ContiguousArray<VectorNode<Element>>
  @usableFromInline var leaves: ContiguousArray<Element>

  @usableFromInline init(children: ContiguousArray<VectorNode<Element>> = [], leaves: ContiguousArray<Element> = []) {
    self.children = children
    self.leaves = leaves
  }

  @usableFromInline func copy() -> VectorNode<Element> { VectorNode(children: children, leaves: leaves) }
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
    // The tail is one buffer; two versions that share it (nothing was appended to or replaced in it since)
    // hold the same elements up to the shorter count, which spares comparing up to 31 elements one by one.
    if tailOffset == old.tailOffset && sharesTailBuffer(with: old) { return result }
    for position in trieLimit..<common where self[position] != old[position] { result.append(position) }
    return result
  }

  /// Whether both tails are the same buffer: copy-on-write gives a tail a new buffer whenever one side
  /// changes an element in it, and appends past the shorter count do not touch what both hold.
  private func sharesTailBuffer(with old: Self) -> Bool {
    guard !tail.isEmpty, !old.tail.isEmpty else { return tail.isEmpty && old.tail.isEmpty }
    let mine = tail.withUnsafeBufferPointer { $0.baseAddress }
    let theirs = old.tail.withUnsafeBufferPointer { $0.baseAddress }
    return mine == theirs
  }

  /// The IDs of the elements at every position where `self` and `old` differ, on either side, including
  /// positions only one of them has: the candidates for a change set. `id` may return nil for empty slots.
  public func identifiersAtChangedPositions<ID: Hashable>(from old: Self, _ id: (Element) -> ID?) -> Set<ID> {
    var identifiers = Set<ID>()
    for position in differingPositions(from: old) {
      if let new = id(self[position]) { identifiers.insert(new) }
      if let previous = id(old[position]) { identifiers.insert(previous) }
    }
    for position in Swift.min(count, old.count)..<Swift.max(count, old.count) {
      if let identifier = id(position < count ? self[position] : old[position]) { identifiers.insert(identifier) }
    }
    return identifiers
  }

  private static func collectDifferences(
    _ new: VectorNode<Element>, _ old: VectorNode<Element>, level: Int, base: Int, limit: Int, into result: inout [Int]
  ) {
    if new === old || base >= limit { return }
    if level == 0 {
      for offset in 0..<Swift.min(new.leaves.count, old.leaves.count) where base + offset < limit {
        if new.leaves[offset] != old.leaves[offset] { result.append(base + offset) }
      }
      return
    }
    let span = 1 << level
    for slot in 0..<Swift.min(new.children.count, old.children.count) {
      collectDifferences(
        new.children[slot], old.children[slot], level: level - bits, base: base + slot * span, limit: limit,
        into: &result)
    }
  }
}
