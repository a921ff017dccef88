/// What one `ServerSentEventDecoder.feed` completes: its items, and the buffer their events share.
struct FeedOutput {
  var items: [ServerSentEventDecoder.Item]
  /// Sized for the events the feed can complete: the last feed's, if no event holds it any more, or one made
  /// at the first event. Copies of a decoder share their spare, so neither reuses it.
  private var buffer: EventDataBuffer?
  /// A larger buffer is not kept for the next feed, so one huge piece does not pin its size for good.
  private static let keptCapacity = 1 << 16

  /// The buffer for the decoder to offer the next feed, if it is worth keeping.
  var spare: SpareEventDataBuffer {
    SpareEventDataBuffer(buffer: buffer.flatMap { $0.size <= Self.keptCapacity ? $0 : nil })
  }
  /// The data bytes the feed can dispatch: its input, a line carried from the last feed and a block's
  /// data read so far. Repeated IDs can need more; a full buffer is followed by another.
  private let capacity: Int

  /// Starts a feed's output in `items`' storage, with `spare` (the last feed's buffer) if nothing else holds
  /// it.
  init(items: [ServerSentEventDecoder.Item], capacity: Int, spare: inout SpareEventDataBuffer) {
    self.items = items
    self.capacity = capacity
    if isKnownUniquelyReferenced(&spare.buffer), spare.buffer.unsafelyUnwrapped.size >= capacity {
      buffer = spare.buffer.take().unsafelyUnwrapped.reuse()
    }
  }

  /// Appends an event whose data and last event ID are `data` and `id`, as UTF-8 that its reader checks.
  ///
  /// The bytes are borrowed, not read through closures in the caller: there, each was a retain and a release
  /// per event.
  mutating func appendEvent(type: String, data: borrowing ReusableBytes, id: borrowing ReusableBytes) {
    let size = data.count + id.count
    if buffer == nil || buffer.unsafelyUnwrapped.available < size {
      // A quarter more than this feed needs, so the next feeds, a little longer or shorter, can reuse it.
      buffer = EventDataBuffer.make(capacity: max(capacity + capacity / 4, size))
    }
    // Read in place, not bound to a constant: a binding is a retain and a release per event, and the
    // event's own reference is the only one it needs.
    let bytes = data.withUnsafeBufferPointer { data in
      id.withUnsafeBufferPointer { id in buffer.unsafelyUnwrapped.append(data: data, id: id) }
    }
    items.append(.event(ServerSentEvent(type: type, payload: .shared(bytes))))
  }
}
