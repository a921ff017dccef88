/// What one `ServerSentEventDecoder.feed` completes: its items, and the buffer their events share.
///
/// The data lines of a block that starts in this feed are written straight into the buffer, after every
/// event's bytes, and become an event's data when the block is dispatched: one copy of each value, not two.
/// A block that an earlier feed left open collects its lines in `continuing` instead, and is copied into the
/// buffer once, when it is dispatched: an event of N bytes costs O(N) however many feeds it spans (copying
/// it forward at every feed was quadratic).
struct FeedOutput {
  var items: [ServerSentEventDecoder.Item]
  /// Sized for the events the feed can complete: the last feed's, if no event holds it any more, or one made
  /// at the first write. Copies of a decoder share their spare, so neither reuses it.
  private var buffer: EventDataBuffer?
  /// The data bytes the feed can dispatch: its input and a line carried from the last feed. Repeated IDs
  /// and a continuing block can need more; a full buffer is followed by another.
  private let capacity: Int
  /// How many bytes at the end of `buffer` are the data of the block being read (when it began here).
  private var openDataCount = 0
  /// The data of a block an earlier feed left open, while it stays open; grows geometrically.
  private(set) var continuing: ReusableBytes
  /// Whether the block being read began in an earlier feed (its data is in `continuing`).
  private var isContinuing: Bool
  /// Storage larger than this is not kept for the next feed (this buffer, or the interpreter's carried
  /// bytes), so one huge piece or event does not pin its size for good.
  static let keptCapacity = 1 << 16

  /// Starts a feed's output in `items`' storage, with `spare` (the last feed's buffer) if nothing else holds
  /// it, and with `carried`, the data of a block the last feed left open (taken, not copied).
  init(
    items: [ServerSentEventDecoder.Item], capacity: Int, spare: inout SpareEventDataBuffer,
    carrying carried: inout ReusableBytes, blockIsOpen: Bool
  ) {
    self.items = items
    self.capacity = capacity
    continuing = ReusableBytes()
    swap(&continuing, &carried)
    isContinuing = blockIsOpen
    // Never reused in the ThreadSanitizer build: the sanitizer cannot see the order the runtime's reference
    // counts give the hand-over (see `isWritableInPlace` in ConversationState).
    #if !CONVERSATION_STORE_TSAN
      if isKnownUniquelyReferenced(&spare.buffer), spare.buffer.unsafelyUnwrapped.size >= capacity {
        buffer = spare.buffer.take().unsafelyUnwrapped.reuse()
      }
    #endif
  }

  /// The bytes of data the block being read holds so far.
  var blockDataCount: Int { isContinuing ? continuing.count : openDataCount }

  /// Hands the data of the block a feed leaves open to `carried`, for the next feed; an empty one when it
  /// closed. The bytes written here are copied once; a continuing block's are handed over as they are.
  mutating func carryOpenBlock(into carried: inout ReusableBytes, blockIsOpen: Bool) {
    if !isContinuing {
      continuing.removeAll(keepingAtMost: Self.keptCapacity)
      if blockIsOpen && openDataCount > 0 { withOpenData { continuing.append($0) } }
    }
    swap(&continuing, &carried)
  }

  /// The buffer for the decoder to offer the next feed, if it is worth keeping.
  var spare: SpareEventDataBuffer {
    SpareEventDataBuffer(buffer: buffer.flatMap { $0.size <= Self.keptCapacity ? $0 : nil })
  }

  /// Adds a data line to the block being read; after the first, a line feed joins them.
  mutating func appendData(_ value: UnsafeBufferPointer<UInt8>, afterLineFeed: Bool) {
    if isContinuing {
      if afterLineFeed { continuing.append(UInt8(ascii: "\n")) }
      continuing.append(value)
      return
    }
    let size = value.count + (afterLineFeed ? 1 : 0)
    makeRoom(for: size)
    if afterLineFeed { buffer.unsafelyUnwrapped.append(UInt8(ascii: "\n")) }
    buffer.unsafelyUnwrapped.append(value)
    openDataCount += size
  }

  /// Makes the block being read an event of `type` whose last event ID is `id`.
  mutating func appendEvent(type: String, id: borrowing ReusableBytes) {
    if isContinuing {
      // The block's one copy into the buffer its event shares.
      makeRoom(for: continuing.count)
      continuing.withUnsafeBufferPointer { buffer.unsafelyUnwrapped.append($0) }
      openDataCount = continuing.count
      continuing.removeAll(keepingAtMost: Self.keptCapacity)
      isContinuing = false
    }
    makeRoom(for: id.count)
    // The buffer is read in place, not bound to a constant: that was a retain and a release per event more.
    let bytes = id.withUnsafeBufferPointer { buffer.unsafelyUnwrapped.closeEvent(dataCount: openDataCount, id: $0) }
    items.append(.event(ServerSentEvent(type: type, payload: .shared(bytes))))
    openDataCount = 0
  }

  /// Calls `body` with the data of the block being read.
  func withOpenData<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    guard let buffer else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
    return buffer.withLast(openDataCount, body)
  }

  /// Makes sure `size` more bytes fit after the block being read, moving it to a new buffer if they do not.
  private mutating func makeRoom(for size: Int) {
    if let buffer, buffer.available >= size { return }
    // A quarter more than this feed needs, so the next feeds, a little longer or shorter, can reuse it; twice
    // the block for a block that outgrew that, so a long event moves O(log N) times, not once a line.
    let larger = EventDataBuffer.make(capacity: max(capacity + capacity / 4, 2 * (openDataCount + size)))
    withOpenData { larger.append($0) }
    buffer = larger
  }
}
