/// The user's conversations, most recent activity first, indexed by ID.
///
/// Why this storage: realtime traffic moves a conversation to the top, and paging adds older ones at the
/// bottom. Both ends grow a persistent vector of slots (`top` upwards, `bottom` downwards); moving a
/// conversation leaves a tombstone in its old slot and takes a fresh one at the top. With a subscriber
/// holding an old snapshot, that costs O(log n) node copies instead of copying the whole list, and the
/// tombstones are swept out once they outnumber the live rows (amortized O(1)).
public struct ConversationList: Sendable {
  /// Slots above `bottom`, oldest first: `top.last` is the first row.
  private var top: PersistentVector<ConversationSummary?>
  /// Slots below `top`, newest first: `bottom.last` is the last row.
  private var bottom: PersistentVector<ConversationSummary?>
  /// Logical slot of each row: `top[i]` is `i`, `bottom[j]` is `-(j + 1)`.
  private var slots: HashTrie<ConversationID, Int>
  /// The slot each removed row left empty, so that putting it back (an undone or refused deletion) can
  /// reuse it in O(log n) instead of rebuilding the list. Forgotten with every rebuild.
  private var vacated: HashTrie<ConversationID, Int>
  private var lineage: ListLineage

  /// An empty list, as before the first page has loaded.
  public init() {
    top = PersistentVector()
    bottom = PersistentVector()
    slots = HashTrie()
    vacated = HashTrie()
    lineage = ListLineage()
  }

  /// A list in the given order (first is the top row); repeated IDs keep their first occurrence.
  public init<S: Sequence>(_ conversations: S) where S.Element == ConversationSummary {
    self.init()
    for conversation in conversations where slots[conversation.id] == nil { appendAtBottom(conversation) }
  }

  /// How many conversations are listed; slots emptied by moves are not counted.
  public var count: Int { slots.count }
  /// Whether no conversation is listed.
  public var isEmpty: Bool { slots.isEmpty }

  /// The row of conversation `id`, or `nil` when it is not listed (not loaded yet, or deleted).
  public subscript(id: ConversationID) -> ConversationSummary? {
    guard let slot = slots[id] else { return nil }
    return self[slot: slot]
  }

  private subscript(slot slot: Int) -> ConversationSummary? {
    get { slot >= 0 ? top[slot] : bottom[-slot - 1] }
    set {
      if slot >= 0 { top[slot] = newValue } else { bottom[-slot - 1] = newValue }
    }
  }

  /// Puts `conversation` at the top, replacing any row with its ID.
  public mutating func moveToTop(_ conversation: ConversationSummary) {
    if let slot = slots[conversation.id] {
      if slot == top.count - 1 {
        self[slot: slot] = conversation
        return
      }
      self[slot: slot] = nil
    }
    slots[conversation.id] = top.count
    top.append(conversation)
    compactIfSparse()
  }

  /// Adds `conversation` below every row, or replaces its row in place when it is already listed.
  public mutating func appendAtBottom(_ conversation: ConversationSummary) {
    if let slot = slots[conversation.id] {
      self[slot: slot] = conversation
      return
    }
    bottom.append(conversation)
    slots[conversation.id] = -bottom.count
  }

  /// Puts `conversation` where its `lastActivityAt` belongs, most recent first: at the top when it is the
  /// most recent, which is what live events almost always are (O(log n)); back in the slot it was removed
  /// from when that still keeps the order, as for an undone deletion (O(log n)); otherwise in its place
  /// among older rows (O(n), rare: an event that arrived out of order). Subscribers see the moved row, never
  /// a reset.
  public mutating func place(_ conversation: ConversationSummary) {
    guard let newest = first(where: { $0.id != conversation.id }), conversation.lastActivityAt < newest.lastActivityAt
    else { return moveToTop(conversation) }
    if restoreInVacatedSlot(conversation) { return }
    var rows = filter { $0.id != conversation.id }
    let index = rows.firstIndex { $0.lastActivityAt < conversation.lastActivityAt } ?? rows.count
    rows.insert(conversation, at: index)
    let lineage = self.lineage
    self = ConversationList(rows)
    self.lineage = lineage
  }

  /// Puts a row that is not listed back in the slot `remove` emptied for it, when that slot is still empty
  /// and the nearest rows above and below it (past at most 32 empty slots) keep the order by activity.
  private mutating func restoreInVacatedSlot(_ conversation: ConversationSummary) -> Bool {
    guard slots[conversation.id] == nil, let slot = vacated[conversation.id], self[slot: slot] == nil,
      let above = neighbor(of: slot, step: 1), let below = neighbor(of: slot, step: -1),
      above.map({ $0.lastActivityAt >= conversation.lastActivityAt }) ?? true,
      below.map({ $0.lastActivityAt <= conversation.lastActivityAt }) ?? true
    else { return false }
    self[slot: slot] = conversation
    slots[conversation.id] = slot
    vacated[conversation.id] = nil
    return true
  }

  /// The nearest row from `slot` towards the top (`step` 1) or the bottom (-1): `.some(nil)` when the list
  /// ends first, `nil` when more than 32 empty slots lie between (too far to look).
  private func neighbor(of slot: Int, step: Int) -> ConversationSummary?? {
    var next = slot + step
    for _ in 0...32 {
      guard next < top.count && next >= -bottom.count else { return .some(nil) }
      if let row = self[slot: next] { return row }
      next += step
    }
    return nil
  }

  /// Edits a row in place; returns false when there is no row with that ID.
  @discardableResult
  public mutating func update(_ id: ConversationID, _ body: (inout ConversationSummary) -> Void) -> Bool {
    guard let slot = slots[id], var conversation = self[slot: slot] else { return false }
    body(&conversation)
    precondition(conversation.id == id, "an update must not change a conversation's ID")
    self[slot: slot] = conversation
    return true
  }

  /// Removes the row of `id`, for example when the conversation was deleted; returns it, or `nil` when it was
  /// not listed.
  @discardableResult
  public mutating func remove(_ id: ConversationID) -> ConversationSummary? {
    guard let slot = slots.removeValue(forKey: id) else { return nil }
    let removed = self[slot: slot]
    self[slot: slot] = nil
    vacated[id] = slot
    compactIfSparse()
    return removed
  }

  /// Sweeps out the emptied slots once they outnumber the rows. The lineage is kept: subscribers see the rows
  /// whose slots moved as changed, never a reset (which would make every UI reload the whole list).
  private mutating func compactIfSparse() {
    let slotCount = top.count + bottom.count
    guard slotCount > 64 && slotCount > 2 * count else { return }
    let lineage = self.lineage
    self = ConversationList(Array(self))
    self.lineage = lineage
  }
}

/// Identity of one build of a `ConversationList`, so change sets know when to reset.
///
/// `@unchecked Sendable` is sound: the class has no state; only its identity is used.
private final class ListLineage: @unchecked Sendable {}

extension ConversationList: Sequence {
  /// Walks the rows from the top (most recent activity) down, skipping the slots that moves emptied.
  public struct Iterator: IteratorProtocol {
    private let list: ConversationList
    private var slot: Int

    fileprivate init(_ list: ConversationList) {
      self.list = list
      slot = list.top.count - 1
    }

    /// The next row down, or `nil` after the bottom row.
    public mutating func next() -> ConversationSummary? {
      while slot >= -list.bottom.count {
        defer { slot -= 1 }
        if let conversation = list[slot: slot] { return conversation }
      }
      return nil
    }
  }

  /// Iterates the rows in display order, top first.
  public func makeIterator() -> Iterator { Iterator(self) }
  /// The exact number of rows, so collecting them allocates once.
  public var underestimatedCount: Int { count }
}

extension ConversationList: Equatable {
  /// Equal when both show the same rows in the same order; how each list was built does not matter.
  ///
  /// Two versions of one list with the same slots compare slot by slot, skipping the subtrees they share, so a
  /// list and its recent snapshot compare in O(changes), not O(rows): equal when no slot differs, unequal
  /// when a slot holds one conversation's row on both sides, edited. Otherwise the rows are walked.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    guard lhs.count == rhs.count else { return false }
    if lhs.lineage === rhs.lineage && lhs.top.count == rhs.top.count && lhs.bottom.count == rhs.bottom.count {
      let differing =
        lhs.top.differingPositions(from: rhs.top) + lhs.bottom.differingPositions(from: rhs.bottom).map { -$0 - 1 }
      if differing.isEmpty { return true }
      let editedInPlace = differing.contains { slot in
        guard let mine = lhs[slot: slot], let theirs = rhs[slot: slot] else { return false }
        return mine.id == theirs.id
      }
      if editedInPlace { return false }
    }
    return lhs.elementsEqual(rhs)
  }
}

extension ConversationList: Codable {
  /// Decodes a list from a JSON array of rows, top first; a repeated ID keeps its first row.
  public init(from decoder: any Decoder) throws {
    self.init(try [ConversationSummary](from: decoder))
  }

  /// Encodes the rows as a JSON array, top first, without the emptied slots.
  public func encode(to encoder: any Encoder) throws {
    try Array(self).encode(to: encoder)
  }
}

extension ConversationList {
  /// Rows that differ from `old`, by ID; shared structure is skipped, so one move costs O(log n).
  public func changes(since old: ConversationList) -> ChangeSet<ConversationID> {
    guard lineage === old.lineage else { return .reset }
    var candidates = top.identifiersAtChangedPositions(from: old.top) { $0?.id }
    candidates.formUnion(bottom.identifiersAtChangedPositions(from: old.bottom) { $0?.id })
    var changes = ChangeSet<ConversationID>()
    for id in candidates { changes.record(id, wasPresent: old.slots[id] != nil, isPresent: slots[id] != nil) }
    return changes
  }
}
