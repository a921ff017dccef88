/// Turns the lines of an event stream into events and retry values, as the standard's "interpreting an
/// event stream" says; `ServerSentEventDecoder` finds the lines.
///
/// A line is read in place, and field names are compared as bytes. Data and IDs stay bytes until an event's
/// reader decodes them; an event type is decoded when it changes. Decoding a value alone gives the same text
/// as decoding the whole stream first: line ends and the `\n` that joins data lines are ASCII, so no UTF-8
/// sequence (nor its U+FFFD replacement) spans them.
struct EventStreamInterpreter: Sendable {
  private static let colon = UInt8(ascii: ":")
  private static let space = UInt8(ascii: " ")

  /// The bytes of the last event ID string. The standard's "last event ID buffer" is `newID` when
  /// `hasNewID` (an `id:` field came after the last dispatch), else this; a dispatch makes it this.
  private var dispatchedID = ReusableBytes()
  /// An `id:` value that the next dispatch makes the last event ID; the two trade storage.
  private var newID = ReusableBytes()
  private var hasNewID = false

  /// The last event ID string, as the standard keeps it: updated at every dispatch, even when no event fires.
  var lastEventID: String { dispatchedID.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) } }
  /// The last `event:` value read, and its bytes, kept after its block: a stream that names the same type
  /// in every block then decodes it once.
  private var eventType = ""
  private var eventTypeBytes = ReusableBytes()
  /// Whether the block being read has an `event:` field (its value is `eventType`).
  private var blockHasEventType = false
  /// Whether the block has a `data:` field: one with an empty value still makes an event, with empty data.
  /// Its data lines, joined by `\n`, are written to the feed's output as they are read.
  private var blockHasData = false
  /// The data of a block that one feed left open, for the next feed to go on with (it takes it, and hands
  /// it back at its end).
  var carriedData = ReusableBytes()
  /// Whether a block with data is open: the next feed continues it.
  var hasOpenData: Bool { blockHasData }

  /// Reads one line (without its line end), appending what it completes to `items`.
  mutating func interpret(_ line: UnsafeBufferPointer<UInt8>, into output: inout FeedOutput) {
    guard let first = line.first else { return dispatch(into: &output) }
    if first == Self.colon { return }  // a comment
    let nameEnd = line.firstIndex(of: Self.colon) ?? line.endIndex
    var valueStart = min(nameEnd + 1, line.endIndex)
    if valueStart < line.endIndex && line[valueStart] == Self.space { valueStart += 1 }
    let name = UnsafeBufferPointer(rebasing: line[..<nameEnd])
    let value = UnsafeBufferPointer(rebasing: line[valueStart...])
    // A field name is matched as one or two loads against the name's bytes, not byte by byte.
    switch name.count {
    case 4 where Self.load(UInt32.self, name, 0) == Self.data:
      output.appendData(value, afterLineFeed: blockHasData)
      blockHasData = true
    case 5 where Self.load(UInt32.self, name, 0) == Self.even && name[4] == UInt8(ascii: "t"):
      if !eventTypeBytes.withUnsafeBufferPointer({ Self.bytes($0, equal: value) }) { setEventType(value) }
      blockHasEventType = true
    case 2 where Self.load(UInt16.self, name, 0) == Self.id:
      if !value.contains(0) { setNewID(value) }
    case 5 where Self.load(UInt32.self, name, 0) == Self.retr && name[4] == UInt8(ascii: "y"):
      Self.readRetry(value, into: &output.items)
    default:
      break
    }
  }

  // The rarer fields stay out of line, so the common path keeps its registers.

  @inline(never)
  private mutating func setNewID(_ value: UnsafeBufferPointer<UInt8>) {
    newID.replace(with: value)
    hasNewID = true
  }

  @inline(never)
  private mutating func setEventType(_ value: UnsafeBufferPointer<UInt8>) {
    eventType = String(decoding: value, as: UTF8.self)
    eventTypeBytes.replace(with: value)
  }

  @inline(never)
  private static func readRetry(_ value: UnsafeBufferPointer<UInt8>, into items: inout [ServerSentEventDecoder.Item]) {
    guard !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }),
      let milliseconds = Int(String(decoding: value, as: UTF8.self))
    else { return }
    items.append(.retry(milliseconds))
  }

  /// Forgets the block being read (at the end of input, where an unterminated block is never dispatched).
  mutating func discardBlock() {
    blockHasEventType = false
    blockHasData = false
    carriedData.removeAll(keepingAtMost: FeedOutput.keptCapacity)
  }

  /// Keeps the data of the block a feed leaves open, for the next feed.
  mutating func carryOpenBlock(from output: inout FeedOutput) {
    output.carryOpenBlock(into: &carriedData, blockIsOpen: blockHasData)
  }

  private mutating func dispatch(into output: inout FeedOutput) {
    if hasNewID {
      swap(&dispatchedID, &newID)
      hasNewID = false
    }
    if blockHasData {
      let type = blockHasEventType && !eventType.isEmpty ? eventType : "message"
      output.appendEvent(type: type, id: dispatchedID)
    }
    blockHasEventType = false
    blockHasData = false
  }

  // The first bytes of each field name as `load` reads them: ASCII codes, first byte lowest.
  private static var data: UInt32 { 0x6174_6164 }  // "data"
  private static var even: UInt32 { 0x6E65_7665 }  // "even"
  private static var retr: UInt32 { 0x7274_6572 }  // "retr"
  private static var id: UInt16 { 0x6469 }  // "id"

  @inline(__always)
  private static func load<T: FixedWidthInteger>(_ type: T.Type, _ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int)
    -> T
  {
    T(littleEndian: UnsafeRawPointer(bytes.baseAddress.unsafelyUnwrapped + offset).loadUnaligned(as: T.self))
  }

  /// Eight bytes at a time: an event type is compared on every block that names one.
  private static func bytes(_ some: UnsafeBufferPointer<UInt8>, equal other: UnsafeBufferPointer<UInt8>) -> Bool {
    guard some.count == other.count else { return false }
    guard let left = some.baseAddress, let right = other.baseAddress else { return true }
    var index = 0
    while index &+ 8 <= some.count {
      let a = UnsafeRawPointer(left + index).loadUnaligned(as: UInt64.self)
      let b = UnsafeRawPointer(right + index).loadUnaligned(as: UInt64.self)
      if a != b { return false }
      index &+= 8
    }
    while index < some.count {
      if left[index] != right[index] { return false }
      index &+= 1
    }
    return true
  }
}
