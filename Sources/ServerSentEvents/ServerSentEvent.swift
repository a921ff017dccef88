/// One event of a `text/event-stream`.
///
/// A decoded event keeps its `data` and `lastEventID` as the UTF-8 bytes it was sent as, in a buffer that
/// the events of one `ServerSentEventDecoder.feed` share, and makes them `String`s when they are read.
/// Reading the data with `withDataUTF8(_:)` (to parse JSON, say) makes no `String` at all. Holding an event
/// holds that shared buffer, about the size of the input that feed was given (a socket read: a kilobyte or
/// two); to keep a few events for long, keep their `data` strings or events made from them instead.
///
/// ```swift
/// let frame = try event.withDataUTF8 { try JSONDecoder().decode(Frame.self, from: Data($0)) }
/// ```
public struct ServerSentEvent: Hashable, Sendable {
  /// Where `data` and `lastEventID` are: strings, or a decoded event's bytes in its feed's buffer.
  enum Payload: Sendable {
    case text(data: String, lastEventID: String)
    case shared(SharedBytes)
  }

  /// The `event:` field, or "message".
  public var type: String
  var payload: Payload

  public init(type: String = "message", data: String, lastEventID: String = "") {
    self.init(type: type, payload: .text(data: data, lastEventID: lastEventID))
  }

  init(type: String, payload: Payload) {
    self.type = type
    self.payload = payload
  }

  /// The `data:` lines joined by newlines; a byte sequence that is not UTF-8 reads as U+FFFD.
  public var data: String {
    get {
      switch payload {
      case .text(let data, _): data
      case .shared(let bytes): bytes.withData { String(decoding: $0, as: UTF8.self) }
      }
    }
    set { payload = .text(data: newValue, lastEventID: lastEventID) }
  }

  /// The stream's last event ID when this event was dispatched (it persists across events).
  public var lastEventID: String {
    get {
      switch payload {
      case .text(_, let id): id
      case .shared(let bytes): bytes.withID { String(decoding: $0, as: UTF8.self) }
      }
    }
    set { payload = .text(data: data, lastEventID: newValue) }
  }

  /// Calls `body` with the bytes of `data` as they were sent, valid for the call only, without checking
  /// they are UTF-8: for a parser that makes its strings with `String(decoding:as:)`, which repairs them as
  /// `data` does. Not generic, so a caller in another module pays no generic dispatch per event.
  public func withSentDataBytes(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    switch payload {
    case .shared(let bytes): bytes.withData(body)
    case .text(let data, _):
      var text = data
      text.withUTF8(body)
    }
  }

  /// Calls `body` with the UTF-8 bytes of `data`, valid for the call only. For a decoded event whose bytes
  /// are valid UTF-8 (nearly all), these are the bytes it was sent as, and no `String` is made.
  public func withDataUTF8<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
    if case .shared(let bytes) = payload, bytes.withData({ $0.isValidUTF8 }) { return try bytes.withData(body) }
    // Text, or sent bytes that need repair: the string's own bytes. `withUTF8` is mutating only to make a
    // bridged string contiguous; a native one is read in place.
    var text = data
    let result: Result<R, E> = text.withUTF8 { bytes in
      do throws(E) { return .success(try body(bytes)) } catch { return .failure(error) }
    }
    return try result.get()
  }

  public static func == (lhs: ServerSentEvent, rhs: ServerSentEvent) -> Bool {
    guard lhs.type == rhs.type, lhs.lastEventID == rhs.lastEventID else { return false }
    // Equal bytes are equal text; different bytes can still be equal text (é composed or not), as `String`
    // compares it.
    let sameBytes = lhs.withDataUTF8 { left in rhs.withDataUTF8 { right in left.elementsEqual(right) } }
    return sameBytes || lhs.data == rhs.data
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(type)
    hasher.combine(data)
    hasher.combine(lastEventID)
  }
}

extension ServerSentEvent: CustomReflectable {
  /// The three fields, as stored ones showed them before the bytes could be shared.
  public var customMirror: Mirror {
    Mirror(self, children: ["type": type, "data": data, "lastEventID": lastEventID], displayStyle: .struct)
  }
}
