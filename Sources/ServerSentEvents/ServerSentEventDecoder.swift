/// An incremental decoder for Server-Sent Events, as the WHATWG HTML standard parses and interprets an
/// event stream: feed it bytes in any pieces, and it returns what each piece completed.
///
/// It decodes bytes, not `Character`s: Swift treats CRLF as one character and U+2028 or U+0085 as line
/// breaks, which the event-stream format does not. Lines end at CRLF, LF or CR — also when a CR ends one
/// piece and its LF starts the next. One leading byte-order mark is dropped. A block is dispatched only at a
/// blank line and only if it has data; an unterminated last line or block is discarded, never dispatched.
///
/// Decoding is linear in the bytes fed, however they are cut: a piece is scanned for line ends in place, a
/// line that straddles two pieces is copied once before it is read, and an event's data once more.
///
/// What a stream can make the decoder hold is bounded by its `Limits`: a line or an event that passes one
/// makes `feed` throw `LimitExceeded`, so a server that never ends a line costs a limit's worth of memory,
/// not all it sends.
///
/// ```swift
/// var decoder = ServerSentEventDecoder(limits: .init(maximumLineBytes: 1 << 20, maximumEventBytes: 1 << 20))
/// for try await chunk in response.body {  // any sequence of byte chunks
///   for item in try decoder.feed(chunk) {
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

  /// How much of a stream the decoder holds at once. The standard sets no limits; `none` follows it.
  public struct Limits: Hashable, Sendable {
    /// Bytes one line may have, not counting its line end.
    public var maximumLineBytes: Int
    /// Bytes of data one event may gather: its data lines, and the line feeds that join them.
    public var maximumEventBytes: Int

    /// Limits of the given sizes (at least 1 each; smaller ones count as 1).
    public init(maximumLineBytes: Int = .max, maximumEventBytes: Int = .max) {
      self.maximumLineBytes = max(1, maximumLineBytes)
      self.maximumEventBytes = max(1, maximumEventBytes)
    }

    /// No limit: lines and events as long as the stream makes them.
    public static let none = Limits()
  }

  /// A line or an event passed the decoder's `Limits`. The decoder has then dropped what it held of the
  /// stream, as `finish()` does (the last event ID stays; a byte-order mark is no longer looked for):
  /// feeding it more goes on as a new stream would, from its next line.
  public struct LimitExceeded: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which limit was passed.
    public enum Kind: Hashable, Sendable {
      case line, event
    }
    public let kind: Kind
    /// The limit, in bytes.
    public let limit: Int
    /// What the piece completed before the limit was passed, in order: a reader keeps these.
    public var completed: [Item]

    /// The error for passing the limit of `limit` bytes on a `kind`, after `completed`.
    public init(kind: Kind, limit: Int, completed: [Item] = []) {
      self.kind = kind
      self.limit = limit
      self.completed = completed
    }

    public var description: String {
      "A server-sent \(kind == .line ? "line" : "event") is larger than \(limit) bytes."
    }
  }

  /// The limits this decoder applies.
  public let limits: Limits

  private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
  private static let lineFeed = UInt8(ascii: "\n")
  private static let carriageReturn = UInt8(ascii: "\r")

  /// The stream's "last event ID string": updated at every dispatch step, even when no event fires.
  public var lastEventID: String { interpreter.lastEventID }
  private var interpreter = EventStreamInterpreter()
  /// The start of a line whose end is in a later piece.
  private var partialLine: [UInt8] = []
  /// A CR ended the last piece, so an LF that starts the next one belongs to it.
  private var afterCarriageReturn = false
  /// How many bytes of a byte-order mark the stream has begun with; nil once the stream's start is decided.
  private var byteOrderMarkPrefix: Int? = 0
  /// What `feed` returned last. Once the caller lets go of it, the next `feed` refills its storage: a new
  /// array for every piece (kilobytes, for a network read's worth of events) cost 5–8% of `sse.decode.1mb`.
  private var lastItems: [Item] = []
  /// The buffer the last feed's events share, reused by the next feed once they are all let go: a new one
  /// for every piece cost 4% of `sse.decode.1mb`.
  private var spareBuffer = SpareEventDataBuffer()

  /// A decoder for one stream, holding at most what `limits` allow.
  public init(limits: Limits = .none) { self.limits = limits }

  /// Decodes `bytes`, returning the events and retry values they completed, in order.
  ///
  /// Contiguous pieces (`[UInt8]`, `ArraySlice<UInt8>`, `Data`, buffer pointers) are read in place; any
  /// other sequence is copied into an array first. The decoder holds on to the returned items until the next
  /// `feed` or `finish()`, to reuse the array's storage.
  ///
  /// - Throws: `LimitExceeded` when a line or an event passes `limits`; what the piece completed before it
  ///   is in the error's `completed`.
  public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) throws(LimitExceeded) -> [Item]
  where Bytes.Element == UInt8 {
    var items: [Item] = []
    swap(&items, &lastItems)
    items.removeAll(keepingCapacity: true)  // a caller still holding it keeps theirs: this starts a new one
    let result: Result<[Item], LimitExceeded> =
      bytes.withContiguousStorageIfAvailable { feed($0, into: items) }
      ?? Array(bytes).withUnsafeBufferPointer { feed($0, into: items) }
    switch result {
    case .success(let fed):
      lastItems = fed
      return fed
    case .failure(let error):
      finish()
      throw error
    }
  }

  /// Ends the input. An unterminated last line and block are discarded, as the standard says.
  public mutating func finish() {
    partialLine.removeAll()
    lastItems.removeAll()
    spareBuffer.buffer = nil
    interpreter.discardBlock()
    byteOrderMarkPrefix = nil
    afterCarriageReturn = false
  }

  private mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, into items: [Item]) -> Result<[Item], LimitExceeded> {
    // Only a feed that could pass a limit checks its lines against it: a line or an event is at most what
    // was carried from the last feed plus this one.
    let held = partialLine.count + interpreter.carriedData.count + bytes.count
    let checksLimits = held > limits.maximumLineBytes || held > limits.maximumEventBytes
    var output = FeedOutput(
      items: items, capacity: bytes.count + partialLine.count, spare: &spareBuffer,
      carrying: &interpreter.carriedData, blockIsOpen: interpreter.hasOpenData)
    do throws(LimitExceeded) {
      try read(bytes, into: &output, checkingLimits: checksLimits)
    } catch {
      var refusal = error
      refusal.completed = output.items
      return .failure(refusal)
    }
    interpreter.carryOpenBlock(from: &output)
    spareBuffer = output.spare
    return .success(output.items)
  }

  private mutating func read(
    _ bytes: UnsafeBufferPointer<UInt8>, into output: inout FeedOutput, checkingLimits: Bool
  ) throws(LimitExceeded) {
    var start = bytes.startIndex
    if var matched = byteOrderMarkPrefix {
      while matched < Self.byteOrderMark.count, start < bytes.endIndex, bytes[start] == Self.byteOrderMark[matched] {
        matched += 1
        start += 1
      }
      // A piece that ends inside a possible mark leaves the stream's start undecided until the next one.
      if matched < Self.byteOrderMark.count && start == bytes.endIndex {
        byteOrderMarkPrefix = matched
        return
      }
      byteOrderMarkPrefix = nil
      // Not a mark after all: its bytes were the first line's (none of them can end a line).
      if matched < Self.byteOrderMark.count { partialLine.append(contentsOf: Self.byteOrderMark[..<matched]) }
    }
    if checkingLimits {
      try readLines(bytes, from: start, into: &output, checkingLimits: true)
    } else {
      try readLines(bytes, from: start, into: &output, checkingLimits: false)
    }
  }

  @inline(__always)
  private mutating func readLines(
    _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, into output: inout FeedOutput, checkingLimits: Bool
  ) throws(LimitExceeded) {
    var start = start
    if afterCarriageReturn && start < bytes.endIndex {
      afterCarriageReturn = false
      if bytes[start] == Self.lineFeed { start += 1 }
    }
    while start < bytes.endIndex {
      let end = bytes.firstLineEnd(from: start)
      if checkingLimits && partialLine.count + ((end ?? bytes.endIndex) - start) > limits.maximumLineBytes {
        throw LimitExceeded(kind: .line, limit: limits.maximumLineBytes)
      }
      guard let end else {
        partialLine.append(contentsOf: bytes[start...])
        return
      }
      if partialLine.isEmpty {
        interpreter.interpret(UnsafeBufferPointer(rebasing: bytes[start..<end]), into: &output)
      } else {
        partialLine.append(contentsOf: bytes[start..<end])
        readPartialLine(into: &output)
      }
      if checkingLimits && output.blockDataCount > limits.maximumEventBytes {
        throw LimitExceeded(kind: .event, limit: limits.maximumEventBytes)
      }
      start = end + 1
      if bytes[end] == Self.carriageReturn {
        if start == bytes.endIndex {
          afterCarriageReturn = true
        } else if bytes[start] == Self.lineFeed {
          start += 1
        }
      }
    }
  }

  /// Reads the completed `partialLine`, keeping its storage for the next one.
  private mutating func readPartialLine(into output: inout FeedOutput) {
    var line: [UInt8] = []
    swap(&line, &partialLine)
    line.withUnsafeBufferPointer { interpreter.interpret($0, into: &output) }
    line.removeAll(keepingCapacity: true)
    swap(&line, &partialLine)
  }
}
