/// One event of a `text/event-stream`.
public struct ServerSentEvent: Hashable, Sendable {
  /// The `event:` field, or "message".
  public var type: String
  /// The `data:` lines joined by newlines.
  public var data: String
  /// The stream's last event ID when this event was dispatched (it persists across events).
  public var lastEventID: String

  public init(type: String = "message", data: String, lastEventID: String = "") {
    self.type = type
    self.data = data
    self.lastEventID = lastEventID
  }
}

/// An incremental decoder for Server-Sent Events, as the WHATWG HTML standard parses and interprets an
/// event stream: feed it bytes in any pieces, and it returns what each piece completed.
///
/// It decodes bytes, not `Character`s: Swift treats CRLF as one character and U+2028 or U+0085 as line
/// breaks, which the event-stream format does not. Lines end at CRLF, LF or CR — also when a CR ends one
/// piece and its LF starts the next. One leading byte-order mark is dropped. A block is dispatched only at a
/// blank line and only if it has data; an unterminated last line or block is discarded, never dispatched.
///
/// ```swift
/// var decoder = ServerSentEventDecoder()
/// for try await chunk in response.body {            // any sequence of byte chunks
///   for item in decoder.feed(chunk) {
///     if case .event(let event) = item { handle(event.type, event.data) }
///   }
/// }
/// ```
public struct ServerSentEventDecoder: Sendable {
  /// What a piece of input completed: an event, or a reconnection time the server asked for (milliseconds).
  public enum Item: Hashable, Sendable {
    case event(ServerSentEvent)
    case retry(Int)
  }

  private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

  /// The stream's "last event ID string": updated at every dispatch step, even when no event fires.
  public private(set) var lastEventID = ""
  private var pendingLastEventID = ""
  private var eventType = ""
  private var data = ""
  private var hasData = false
  private var line: [UInt8] = []
  private var afterCarriageReturn = false
  /// The stream's first bytes while they could still be a byte-order mark; nil once decided.
  private var leading: [UInt8]? = []

  public init() {}

  /// Decodes `bytes`, returning the events and retry values they completed, in order.
  public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [Item] where Bytes.Element == UInt8 {
    var items: [Item] = []
    for byte in bytes { consume(byte, into: &items) }
    return items
  }

  /// Ends the input. An unterminated last line and block are discarded, as the standard says.
  public mutating func finish() {
    line.removeAll()
    data = ""
    hasData = false
    eventType = ""
    leading = nil
    afterCarriageReturn = false
  }

  private mutating func consume(_ byte: UInt8, into items: inout [Item]) {
    if var prefix = leading {
      prefix.append(byte)
      if prefix == Self.byteOrderMark {
        leading = nil
        return
      }
      if Self.byteOrderMark.starts(with: prefix) {
        leading = prefix
        return
      }
      leading = nil
      for early in prefix { scan(early, into: &items) }
      return
    }
    scan(byte, into: &items)
  }

  private mutating func scan(_ byte: UInt8, into items: inout [Item]) {
    switch byte {
    case 0x0A where afterCarriageReturn:
      afterCarriageReturn = false  // the LF of a CRLF whose CR already ended the line
    case 0x0A, 0x0D:
      afterCarriageReturn = byte == 0x0D
      processLine(into: &items)
      line.removeAll(keepingCapacity: true)
    default:
      afterCarriageReturn = false
      line.append(byte)
    }
  }

  private mutating func processLine(into items: inout [Item]) {
    if line.isEmpty { return dispatch(into: &items) }
    if line.first == UInt8(ascii: ":") { return }  // a comment
    let text = String(decoding: line, as: UTF8.self)
    let field: Substring
    var value: Substring
    if let colon = text.firstIndex(of: ":") {
      field = text[..<colon]
      value = text[text.index(after: colon)...]
      if value.first == " " { value = value.dropFirst() }
    } else {
      field = text[...]
      value = ""
    }
    switch field {
    case "event":
      eventType = String(value)
    case "data":
      if hasData { data += "\n" }
      data += value
      hasData = true
    case "id":
      if !value.unicodeScalars.contains("\u{0}") { pendingLastEventID = String(value) }
    case "retry":
      if !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let milliseconds = Int(value) {
        items.append(.retry(milliseconds))
      }
    default:
      break
    }
  }

  private mutating func dispatch(into items: inout [Item]) {
    lastEventID = pendingLastEventID
    defer {
      data = ""
      hasData = false
      eventType = ""
    }
    guard hasData else { return }
    items.append(
      .event(ServerSentEvent(type: eventType.isEmpty ? "message" : eventType, data: data, lastEventID: lastEventID)))
  }
}
