/// Turns the lines of an event stream into events and retry values, as the standard's "interpreting an
/// event stream" says; `ServerSentEventDecoder` finds the lines.
///
/// A line is read in place, and field names are compared as bytes. Values are decoded one line at a time,
/// which gives the same text as decoding the whole stream first: line ends and the `\n` that joins data
/// lines are ASCII, so no UTF-8 sequence (nor its U+FFFD replacement) spans them.
struct EventStreamInterpreter: Sendable {
  private static let colon = UInt8(ascii: ":")
  private static let space = UInt8(ascii: " ")

  /// The last event ID string, set from `lastEventIDBuffer` at every dispatch.
  private(set) var lastEventID = ""
  /// The `id:` seen last; it outlives blocks, so a block without `id:` keeps the previous one.
  private var lastEventIDBuffer = ""
  /// The last `event:` value read, and its bytes, kept after its block: a stream that names the same type
  /// in every block then decodes it once.
  private var eventType = ""
  private var eventTypeBytes: [UInt8] = []
  /// Whether the block being read has an `event:` field (its value is `eventType`).
  private var blockHasEventType = false
  /// The block's data lines so far, joined by `\n`; nil until its first `data:` field, as `data:` with an
  /// empty value still makes an event, with empty data.
  private var data: String?

  /// Reads one line (without its line end), appending what it completes to `items`.
  mutating func interpret(_ line: UnsafeBufferPointer<UInt8>, into items: inout [ServerSentEventDecoder.Item]) {
    guard let first = line.first else { return dispatch(into: &items) }
    if first == Self.colon { return }  // a comment
    let nameEnd = line.firstIndex(of: Self.colon) ?? line.endIndex
    var valueStart = min(nameEnd + 1, line.endIndex)
    if valueStart < line.endIndex && line[valueStart] == Self.space { valueStart += 1 }
    let name = UnsafeBufferPointer(rebasing: line[..<nameEnd])
    let value = UnsafeBufferPointer(rebasing: line[valueStart...])
    switch name.count {
    case 4 where Self.name(name, is: "data"):
      if data == nil { data = Self.string(value) } else { appendDataLine(value) }
    case 5 where Self.name(name, is: "event"):
      if !eventTypeBytes.withUnsafeBufferPointer({ Self.bytes($0, equal: value) }) { setEventType(value) }
      blockHasEventType = true
    case 2 where Self.name(name, is: "id"):
      if !value.contains(0) { lastEventIDBuffer = Self.string(value) }
    case 5 where Self.name(name, is: "retry"):
      Self.readRetry(value, into: &items)
    default:
      break
    }
  }

  // The rarer fields stay out of line, so the common path keeps its registers.

  @inline(never)
  private mutating func appendDataLine(_ value: UnsafeBufferPointer<UInt8>) {
    var joined = data.take() ?? ""
    joined += "\n"
    joined += String(decoding: value, as: UTF8.self)
    data = joined
  }

  @inline(never)
  private mutating func setEventType(_ value: UnsafeBufferPointer<UInt8>) {
    eventType = String(decoding: value, as: UTF8.self)
    eventTypeBytes = Array(value)
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
    data = nil
  }

  private mutating func dispatch(into items: inout [ServerSentEventDecoder.Item]) {
    lastEventID = lastEventIDBuffer
    if let data = data.take() {
      let type = blockHasEventType && !eventType.isEmpty ? eventType : "message"
      items.append(.event(ServerSentEvent(type: type, data: data, lastEventID: lastEventID)))
    }
    blockHasEventType = false
  }

  /// The UTF-8 `bytes` as a string, invalid sequences replaced by U+FFFD.
  ///
  /// Values that fit a small string (15 bytes on 64-bit platforms; most IDs) are built in place, which costs
  /// less than `String(decoding:)`; for longer ones, which need storage, `String(decoding:)` costs less.
  private static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    guard bytes.count <= 15 else { return String(decoding: bytes, as: UTF8.self) }
    return String(unsafeUninitializedCapacity: bytes.count) { $0.initialize(fromContentsOf: bytes) }
  }

  private static func name(_ name: UnsafeBufferPointer<UInt8>, is field: StaticString) -> Bool {
    bytes(name, equal: UnsafeBufferPointer(start: field.utf8Start, count: field.utf8CodeUnitCount))
  }

  private static func bytes(_ some: UnsafeBufferPointer<UInt8>, equal other: UnsafeBufferPointer<UInt8>) -> Bool {
    guard some.count == other.count else { return false }
    for index in some.indices where some[index] != other[index] { return false }
    return true
  }
}
