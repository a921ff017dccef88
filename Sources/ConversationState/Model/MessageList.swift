public import Foundation

/// The messages of one conversation, in display order, indexed by client and server ID.
///
/// Order is structural: committed messages (confirmed by the server, or assistant replies) in server
/// order, then the user's outgoing messages (pending, sending, failed) in send order. Confirming an
/// outgoing message moves it into the committed part.
///
/// Why this storage: committed messages live in two persistent vectors, `older` (grown backwards by
/// history pages) and `newer` (grown forwards by live traffic), so a message's logical position never
/// shifts when a page is put in front, and the ID indexes are persistent hash tries. With a subscriber
/// holding an older snapshot, appending, confirming or editing one message copies O(log n) nodes, a
/// history page costs O(page), and a look-up by ID is O(log n). The reply being streamed is not stored
/// here at all (see `StreamingReply`), so a text delta never touches this list.
///
/// ```swift
/// var list = MessageList()
/// list.appendOutgoing(message)  // pending, after every committed message
/// list.commit(confirmedByServer)  // same client ID: moves into server order, in place of the pending one
/// let delivery = list[clientID: message.clientID]?.delivery  // .sent
/// ```
public struct MessageList: Sendable {
  /// The fields, behind one reference: a copy of the list (a snapshot's, a state read from a store) is one
  /// retain, and two copies of one version compare by identity.
  var storage: CopyOnWrite<Storage>

  /// Committed messages before `newer`, newest first: `older[0]` is just before `newer[0]`.
  var older: PersistentVector<Message> {
    _read { yield storage.value.older }
    _modify { yield &storage.value.older }
  }
  var newer: PersistentVector<Message> {
    _read { yield storage.value.newer }
    _modify { yield &storage.value.newer }
  }
  /// Messages the user wrote that the server has not confirmed, in send order.
  public private(set) var outgoing: [Message] {
    _read { yield storage.value.outgoing }
    _modify { yield &storage.value.outgoing }
  }
  /// Logical position of each committed message: `newer[i]` is `i`, `older[j]` is `-(j + 1)`.
  private var positions: PositionIndex<ClientMessageID> {
    _read { yield storage.value.positions }
    _modify { yield &storage.value.positions }
  }
  /// Logical position of each committed message that has a server ID.
  private var serverPositions: PositionIndex<ServerMessageID> {
    _read { yield storage.value.serverPositions }
    _modify { yield &storage.value.serverPositions }
  }
  /// Identifies this list's layout; a list built anew gets a new one, so a change set knows to reset.
  var lineage: Lineage { storage.value.lineage }

  /// The stored fields (documented on the forwarding properties above).
  struct Storage: Sendable {
    var older = PersistentVector<Message>()
    var newer = PersistentVector<Message>()
    var outgoing: [Message] = []
    var positions = PositionIndex<ClientMessageID>()
    var serverPositions = PositionIndex<ServerMessageID>()
    /// The committed messages' reported tokens, summed as they come and go.
    var tokenUsage = TokenUsage()
    /// How many committed messages wait (`ReplyState.isAwaiting`), counted as they come and go.
    var awaitingCount = 0
    let lineage = Lineage()
  }

  /// The tokens every committed message with a `usage` reports, summed: O(1), kept up to date as messages
  /// are committed, replaced and removed. A reply's usage comes with its finish (`replyFinished`); an
  /// interrupted reply has none.
  public var tokenUsage: TokenUsage { storage.value.tokenUsage }

  /// How many committed messages are answers that wait for the app's tools or the user's answers
  /// (`ReplyState.isAwaiting`): O(1), kept up to date as messages are committed, replaced and removed. Zero
  /// almost always; it lets a reducer skip looking for a waiting answer on every send.
  public var awaitingCount: Int { storage.value.awaitingCount }

  /// Moves the token sum and the awaiting count from `old` (or nothing) to `new` (or nothing).
  private mutating func account(from old: Message?, to new: Message?) {
    let wasAwaiting = old?.reply?.isAwaiting == true
    let isAwaiting = new?.reply?.isAwaiting == true
    if wasAwaiting != isAwaiting { storage.value.awaitingCount += isAwaiting ? 1 : -1 }
    guard old?.usage != nil || new?.usage != nil else { return }
    storage.value.tokenUsage.remove(old?.usage)
    storage.value.tokenUsage.add(new?.usage)
  }

  /// An empty list.
  public init() { storage = CopyOnWrite(Storage()) }

  /// A list holding `messages`: committed ones sorted into server order, outgoing ones after them in the
  /// order given. A message whose client ID repeats is dropped; the first one wins.
  public init<S: Sequence>(_ messages: S) where S.Element == Message {
    self.init()
    var seen = Set<ClientMessageID>()
    var committed: [Message] = []
    for message in messages where seen.insert(message.clientID).inserted {
      if message.isCommitted { committed.append(message) } else { outgoing.append(message) }
    }
    committed.sort { $0.orderKey < $1.orderKey }
    for message in committed { pushNewer(message) }
  }

  /// How many messages the server has confirmed (or are assistant replies); outgoing ones are not counted.
  public var committedCount: Int { older.count + newer.count }
  /// Whether the list has no message at all, committed or outgoing.
  public var isEmpty: Bool { count == 0 }

  /// The newest committed message.
  public var lastCommitted: Message? {
    if let last = newer.last { return last }
    return older.first
  }

  /// The oldest committed message.
  public var firstCommitted: Message? {
    if let first = older.last { return first }
    return newer.first
  }

  /// The message with `clientID`, or nil when it is not in the list.
  /// O(outgoing) for a message the server has not confirmed, O(outgoing + log n) for a committed one (the
  /// user's unconfirmed messages are a handful).
  public subscript(clientID clientID: ClientMessageID) -> Message? {
    // Outgoing messages first: a handful, compared without hashing the ID, and the ones a send turn asks
    // for. The committed candidate is confirmed by reading its ID in place: only the one found is copied.
    if let outgoing = outgoing.first(where: { $0.clientID == clientID }) { return outgoing }
    return position(of: clientID).map(message(atLogical:))
  }

  /// The message the server knows as `serverID`, or nil when no message in the list has it.
  public subscript(serverID serverID: ServerMessageID) -> Message? {
    serverPosition(of: serverID).map(message(atLogical:))
  }

  /// Reads the message with `clientID` where it is kept and returns what `body` made of it; nil when no
  /// message has that ID. Use it instead of `self[clientID:]` to read a few fields: `body` borrows the stored
  /// message, where the subscript returns a copy of every field.
  ///
  /// ```swift
  /// let reply = state.messages.read(clientID: id) { $0.reply } ?? nil  // `?? nil`: no message, or no reply
  /// ```
  ///
  /// Finds committed and outgoing messages alike, as the subscript does. When
  /// `body` returns an optional, nil can mean a missing message or a nil field; flatten it with `?? nil`.
  public func read<Result>(clientID: ClientMessageID, _ body: (Message) throws -> Result) rethrows -> Result? {
    if let index = outgoing.firstIndex(where: { $0.clientID == clientID }) { return try body(outgoing[index]) }
    guard let position = position(of: clientID) else { return nil }
    return try withCommitted(atLogical: position, body)
  }

  /// Reads the message the server knows as `serverID` where it is kept and returns what `body` made of it;
  /// nil when no message has it. Only committed messages have a server ID: find an outgoing one by client ID.
  /// O(log n).
  public func read<Result>(serverID: ServerMessageID, _ body: (Message) throws -> Result) rethrows -> Result? {
    guard let position = serverPosition(of: serverID) else { return nil }
    return try withCommitted(atLogical: position, body)
  }

  /// The client ID of the message the server knows as `serverID`, read without copying the message.
  public func clientID(ofServerID serverID: ServerMessageID) -> ClientMessageID? {
    serverPosition(of: serverID).map(committedClientID(at:))
  }

  /// Whether a message with `clientID`, committed or outgoing, is in the list; copies no message.
  public func contains(_ clientID: ClientMessageID) -> Bool {
    outgoing.contains { $0.clientID == clientID } || position(of: clientID) != nil
  }

  /// Whether an outgoing (not yet committed) message has `clientID`.
  public func containsOutgoing(_ clientID: ClientMessageID) -> Bool {
    outgoing.contains { $0.clientID == clientID }
  }

  /// Visits committed messages newest first until `body` returns false: O(messages visited).
  public func forEachCommittedNewestFirst(_ body: (Message) -> Bool) {
    forEachCommitted(before: newer.count, body)
  }

  /// The newest committed message before the one with `clientID` that satisfies `predicate`.
  public func lastCommitted(before clientID: ClientMessageID, where predicate: (Message) -> Bool) -> Message? {
    guard let position = position(of: clientID) else { return nil }
    var found: Message?
    forEachCommitted(before: position) { message in
      if predicate(message) { found = message }
      return found == nil
    }
    return found
  }

  private func forEachCommitted(before position: Int, _ body: (Message) -> Bool) {
    var logical = position - 1
    while logical >= -older.count {
      if !body(message(atLogical: logical)) { return }
      logical -= 1
    }
  }

  func logicalPosition(of clientID: ClientMessageID) -> Int? { position(of: clientID) }

  /// Committed messages the server gave no ID (interrupted replies, messages of servers that never return
  /// IDs): O(1).
  public var committedWithoutServerIDCount: Int { committedCount - serverPositions.count }

  /// Visits the committed messages created between `start` and `end` (inclusive), oldest first, until
  /// `body` returns false: O(log n + visited), found by binary search on server order.
  public func forEachCommitted(createdBetween start: Date, and end: Date, _ body: (Message) -> Bool) {
    var low = -older.count
    var high = newer.count
    while low < high {
      let middle = low + (high - low) / 2
      if message(atLogical: middle).createdAt < start { low = middle + 1 } else { high = middle }
    }
    var logical = low
    while logical < newer.count {
      let next = message(atLogical: logical)
      if next.createdAt > end || !body(next) { return }
      logical += 1
    }
  }

  /// `message(atLogical:).orderKey`, reading only the fields the key is made of: a call of `orderKey` on the
  /// element copies the whole message first.
  private func orderKey(atLogical position: Int) -> MessageOrderKey {
    position >= 0
      ? MessageOrderKey(newer[position].createdAt, newer[position].serverID, newer[position].clientID)
      : MessageOrderKey(older[-position - 1].createdAt, older[-position - 1].serverID, older[-position - 1].clientID)
  }

  /// Lends the committed message at logical `position` to `body` where it is kept, without copying it.
  func withCommitted<Result>(atLogical position: Int, _ body: (Message) throws -> Result) rethrows -> Result {
    try position >= 0 ? body(newer[position]) : body(older[-position - 1])
  }

  private func message(atLogical position: Int) -> Message {
    position >= 0 ? newer[position] : older[-position - 1]
  }

  // MARK: - Outgoing messages

  /// `appendOutgoing(_:)` for a caller that has just found no message with this client ID (the reducer's
  /// send checks it to refuse a reused ID): the look-up, which hashes the ID, is not made twice.
  package mutating func appendNewOutgoing(_ message: Message) {
    assert(!contains(message.clientID), "appendNewOutgoing with a client ID already in the list")
    outgoing.append(message)
  }

  /// Adds a message the user just wrote after every other message. Returns false (and changes nothing)
  /// when a message with that client ID is already in the list.
  @discardableResult
  public mutating func appendOutgoing(_ message: Message) -> Bool {
    guard !contains(message.clientID) else { return false }
    outgoing.append(message)
    return true
  }

  /// Edits the message with `clientID` in place, wherever it is. Returns false when it is not in the list.
  ///
  /// An edit that changes a committed message's order key re-sorts it; an edit that confirms an outgoing
  /// message must go through `commit(_:)` instead.
  @discardableResult
  public mutating func update(_ clientID: ClientMessageID, _ body: (inout Message) -> Void) -> Bool {
    if let index = outgoing.firstIndex(where: { $0.clientID == clientID }) {
      body(&outgoing[index])
      precondition(outgoing[index].clientID == clientID, "an update must not change a message's client ID")
      if outgoing[index].isCommitted { commit(outgoing[index]) }
      return true
    }
    guard let position = position(of: clientID) else { return false }
    let before = message(atLogical: position)
    var after = before
    body(&after)
    precondition(after.clientID == clientID, "an update must not change a message's client ID")
    // Nothing changed: writing it back would copy what a snapshot shares (the vector's tail or a path) and
    // show a change to the next frame.
    if after == before { return true }
    if after.orderKey != before.orderKey || !after.isCommitted {
      remove(clientID)
      if after.isCommitted { commit(after) } else { outgoing.append(after) }
      return true
    }
    if position >= 0 { newer[position] = after } else { older[-position - 1] = after }
    reindexServerID(from: before, to: after, at: position)
    account(from: before, to: after)
    return true
  }

  // MARK: - Committing

  /// What `commit(_:)` did.
  public enum CommitResult: Equatable, Sendable {
    /// A message new to this list.
    case inserted
    /// An outgoing message confirmed, or a committed one replaced by a newer version.
    case replaced(previous: Message)
    /// Nothing: the list already held exactly this message.
    case unchanged
  }

  /// Puts a committed message in its place in server order.
  ///
  /// The same message is never held twice: one with a known client ID (an outgoing message the server
  /// confirmed, or an echo) replaces that entry; one with a known server ID but another client ID
  /// replaces the entry holding that server ID. Appending at either end is O(log n); landing between
  /// committed messages moves the messages between it and the nearer end of its part of the list.
  @discardableResult
  public mutating func commit(_ message: Message) -> CommitResult {
    precondition(message.isCommitted, "commit(_:) takes delivered messages; outgoing ones use appendOutgoing")
    var previous: Message?
    if let index = outgoing.firstIndex(where: { $0.clientID == message.clientID }) {
      previous = outgoing.remove(at: index)
    } else if let position = position(of: message.clientID) ?? message.serverID.flatMap(serverPosition(of:)) {
      // Found once; an echo of what the list holds is compared in place, before anything is copied.
      if withCommitted(atLogical: position, { $0 == message }) { return .unchanged }
      let existing = self.message(atLogical: position)
      if existing.clientID == message.clientID, existing.orderKey == message.orderKey {
        // Same place in server order: replace in place, O(log n).
        if position >= 0 { newer[position] = message } else { older[-position - 1] = message }
        reindexServerID(from: existing, to: message, at: position)
        account(from: existing, to: message)
        return .replaced(previous: existing)
      }
      previous = existing
      remove(existing.clientID)
    }
    insertCommitted(message)
    return previous.map { .replaced(previous: $0) } ?? .inserted
  }

  private mutating func insertCommitted(_ message: Message) {
    let key = message.orderKey
    // The ends' keys are read in place: `lastCommitted` would copy the whole message.
    if committedCount > 0, orderKey(atLogical: newer.count - 1) > key {
      if key < orderKey(atLogical: -older.count) {
        pushOlder(message)
      } else {
        insertBetween(message, key: key)
      }
    } else {
      pushNewer(message)
    }
  }

  private mutating func insertBetween(_ message: Message, key: MessageOrderKey) {
    // Binary search over logical positions for the first committed message ordered after `key`.
    var low = -older.count
    var high = newer.count
    while low < high {
      let middle = low + (high - low) / 2
      if self.message(atLogical: middle).orderKey > key { high = middle } else { low = middle + 1 }
    }
    if low >= 0 {
      spliceNewer(from: low) { $0.insert(message, at: 0) }
    } else {
      spliceOlder(through: low - 1) { $0.append(message) }
    }
  }

  /// Removes a message from wherever it is; returns it.
  @discardableResult
  public mutating func remove(_ clientID: ClientMessageID) -> Message? {
    if let index = outgoing.firstIndex(where: { $0.clientID == clientID }) { return outgoing.remove(at: index) }
    guard let position = position(of: clientID) else { return nil }
    let removed = message(atLogical: position)
    if position >= 0 {
      spliceNewer(from: position) { $0.removeFirst() }
    } else {
      spliceOlder(through: position) { $0.removeLast() }
    }
    return removed
  }

  /// Removes every message in `clientIDs` (committed or outgoing) in one pass; returns them in display order.
  ///
  /// One splice per end of the list instead of one per message: a run at either end (what a trimmed
  /// window drops) costs O(run · log n); messages scattered through the middle cost one O(n) splice.
  @discardableResult
  public mutating func remove(_ clientIDs: Set<ClientMessageID>) -> [Message] {
    var lowest = Int.max
    var highest = Int.min
    for clientID in clientIDs {
      guard let position = position(of: clientID) else { continue }
      lowest = Swift.min(lowest, position)
      highest = Swift.max(highest, position)
    }
    var removed: [Message] = []
    let take = { (messages: inout [Message]) in
      var kept: [Message] = []
      kept.reserveCapacity(messages.count)
      for message in messages {
        if clientIDs.contains(message.clientID) { removed.append(message) } else { kept.append(message) }
      }
      messages = kept
    }
    if lowest <= highest {
      if highest < 0 {
        spliceOlder(through: highest, take)
      } else if lowest >= 0 {
        spliceNewer(from: lowest, take)
      } else {
        spliceOlder(through: -1, take)
        spliceNewer(from: 0, take)
      }
    }
    if outgoing.contains(where: { clientIDs.contains($0.clientID) }) { take(&outgoing) }
    return removed
  }

  /// Removes the committed message with `clientID` and every committed message after it; returns them
  /// in order. Outgoing messages stay.
  public mutating func removeCommitted(from clientID: ClientMessageID) -> [Message] {
    guard let position = position(of: clientID) else { return [] }
    if position >= 0 {
      var removed: [Message] = []
      spliceNewer(from: position) { suffix in
        removed = suffix
        suffix.removeAll()
      }
      return removed
    }
    // Rare: the cut reaches into history loaded after the live part began. Rebuild once.
    let all = Array(self)
    let committed = all.prefix(committedCount)
    let keep = committed.prefix { $0.clientID != clientID }
    let removed = Array(committed.dropFirst(keep.count))
    self = MessageList(Array(keep) + outgoing)
    return removed
  }

  // MARK: - Splicing at the ends

  private mutating func pushNewer(_ message: Message) {
    newer.append(message)
    setPosition(newer.count - 1, of: message.clientID)
    reindexServerID(from: nil, to: message, at: newer.count - 1)
    account(from: nil, to: message)
  }

  private mutating func pushOlder(_ message: Message) {
    older.append(message)
    setPosition(-older.count, of: message.clientID)
    reindexServerID(from: nil, to: message, at: -older.count)
    account(from: nil, to: message)
  }

  /// Takes `newer[position...]` out (in order), lets `body` edit it, and puts the result back.
  private mutating func spliceNewer(from position: Int, _ body: (inout [Message]) -> Void) {
    var suffix: [Message] = []
    while newer.count > position { suffix.append(newer.removeLast()) }
    suffix.reverse()
    for message in suffix { unindex(message) }
    body(&suffix)
    for message in suffix { pushNewer(message) }
  }

  /// Takes the committed messages at logical positions `...position` (all in `older`) out, oldest first,
  /// lets `body` edit them, and puts the result back.
  private mutating func spliceOlder(through position: Int, _ body: (inout [Message]) -> Void) {
    var prefix: [Message] = []
    while older.count >= -position && !older.isEmpty { prefix.append(older.removeLast()) }
    for message in prefix { unindex(message) }
    body(&prefix)
    for message in prefix.reversed() { pushOlder(message) }
  }

  private mutating func unindex(_ message: Message) {
    positions.remove(message.clientID)
    if let serverID = message.serverID { serverPositions.remove(serverID) }
    account(from: message, to: nil)
  }

  /// Moves the server ID index from `old` (or from nothing) to `new`, which is (or will be) at logical
  /// `position`. An unchanged server ID at an unchanged position writes nothing: with a snapshot holding the
  /// list, a write would copy a path of the trie.
  private mutating func reindexServerID(from old: Message?, to new: Message?, at position: Int) {
    let newServerID = new?.serverID
    if let oldServerID = old?.serverID {
      if oldServerID == newServerID { return }
      serverPositions.remove(oldServerID)
    }
    if let newServerID, let displaced = serverPositions.set(position, for: newServerID),
      isCommittedPosition(displaced), message(atLogical: displaced).serverID != newServerID
    {
      serverPositions.separate(newServerID, at: position, from: displaced)
    }
  }

  // MARK: - The ID indexes

  // The indexes keep hashes, not IDs: a position found is confirmed by the ID of the message there. Every
  // position they hold is a committed message's (messages are unindexed before they move); the range is
  // checked all the same, so a broken rule reads as "not found", never as a trap.

  private func isCommittedPosition(_ position: Int) -> Bool { position >= -older.count && position < newer.count }

  private func position(of clientID: ClientMessageID) -> Int? {
    guard let position = positions.candidate(for: clientID), isCommittedPosition(position),
      committedClientID(at: position) == clientID
    else {
      return nil
    }
    return position
  }

  /// Indexes the message at `position`, which is in place.
  private mutating func setPosition(_ position: Int, of clientID: ClientMessageID) {
    if let displaced = positions.set(position, for: clientID),
      isCommittedPosition(displaced), committedClientID(at: displaced) != clientID
    {
      positions.separate(clientID, at: position, from: displaced)
    }
  }

  /// The client ID of the committed message at `position`, read without copying the message.
  private func committedClientID(at position: Int) -> ClientMessageID {
    position >= 0 ? newer[position].clientID : older[-position - 1].clientID
  }

  /// The position of the committed message the server knows as `serverID`, confirmed in place.
  private func serverPosition(of serverID: ServerMessageID) -> Int? {
    guard let position = serverPositions.candidate(for: serverID), isCommittedPosition(position) else { return nil }
    let found = position >= 0 ? newer[position].serverID : older[-position - 1].serverID
    return found == serverID ? position : nil
  }
}

/// A token whose identity says which build of a `MessageList` a value descends from.
///
/// `@unchecked Sendable` is sound: the class has no state at all; only its identity is used.
final class Lineage: @unchecked Sendable {}

extension MessageList: RandomAccessCollection {
  /// The first message's position; always 0.
  public var startIndex: Int { 0 }
  /// One past the last message: committed messages plus outgoing ones.
  public var endIndex: Int { committedCount + outgoing.count }

  /// The message at `position` in display order: committed messages first, then outgoing ones; O(log n).
  public subscript(position: Int) -> Message {
    if position < older.count { return older[older.count - 1 - position] }
    if position < committedCount { return newer[position - older.count] }
    return outgoing[position - committedCount]
  }

  /// The position of the message with `clientID` in display order, or nil when it is not in the list.
  ///
  /// O(log n) for a committed message (through the ID index); O(outgoing) for one the server has not
  /// confirmed, of which there are only a few. Positions are what a list widget's
  /// `items_changed(position, removed, added)` takes.
  public func index(of clientID: ClientMessageID) -> Int? {
    if let logical = position(of: clientID) { return logical + older.count }
    return outgoing.firstIndex { $0.clientID == clientID }.map { committedCount + $0 }
  }
}
