/// The data and IDs of the events one `feed` dispatched, side by side in one allocation that those events
/// share: a `String` per event was an allocation per event, which cost more than finding the lines.
///
/// Written once, then only read, while any event holds it: the decoder appends an event's bytes before it
/// makes the event and never writes below `count` again until `reuse()`, which it calls only when its own
/// reference is the only one left (`isKnownUniquelyReferenced`), so no event can see bytes change.
///
/// A ManagedBuffer cannot be Sendable, as it may be written; the two holds on it that cross threads are
/// `@unchecked Sendable` on these grounds. Only a decoder writes it (the header, and elements past every
/// event's), during a `feed`, before any event made from those elements has left that `feed`, or after
/// `isKnownUniquelyReferenced` found that nothing else holds it; a decoder's copies, on any thread, share
/// their spare buffer, so neither reuses it. Events read only their own elements, which no one writes while
/// they hold the buffer, and reading unchanging memory from any thread is safe. Uniqueness is checked as
/// copy-on-write values check it, which is safe across threads.
final class EventDataBuffer: ManagedBuffer<EventDataBuffer.Header, UInt8> {
  struct Header {
    var count: Int
    /// Kept here: `ManagedBuffer.capacity` asks the allocator (`malloc_usable_size`) every time.
    let capacity: Int
  }

  static func make(capacity: Int) -> EventDataBuffer {
    let buffer = create(minimumCapacity: capacity) { Header(count: 0, capacity: $0.capacity) }
    return unsafeDowncast(buffer, to: EventDataBuffer.self)
  }

  /// Bytes written so far.
  var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.count } }

  /// Room left for more bytes.
  var available: Int { withUnsafeMutablePointerToHeader { $0.pointee.capacity - $0.pointee.count } }

  /// How many bytes it holds when full (`ManagedBuffer.capacity` asks the allocator).
  var size: Int { withUnsafeMutablePointerToHeader { $0.pointee.capacity } }

  /// Empties the buffer for another feed's events. Only for a buffer no event holds.
  func reuse() -> EventDataBuffer {
    withUnsafeMutablePointerToHeader { $0.pointee.count = 0 }
    return self
  }

  // Writes go through the pointers, not the `header` property: a class's stored property is checked for
  // exclusive access at run time, which cost more than the copies. The caller checks `available`.

  /// Copies `bytes` after the ones already here.
  func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress else { return }
    withUnsafeMutablePointers { header, elements in
      (elements + header.pointee.count).initialize(from: source, count: bytes.count)
      header.pointee.count += bytes.count
    }
  }

  func append(_ byte: UInt8) {
    withUnsafeMutablePointers { header, elements in
      (elements + header.pointee.count).initialize(to: byte)
      header.pointee.count += 1
    }
  }

  /// Copies `id` after the last `dataCount` bytes written, and returns those and it as one event's.
  func closeEvent(dataCount: Int, id: UnsafeBufferPointer<UInt8>) -> SharedBytes {
    let start = count - dataCount
    append(id)
    return SharedBytes(buffer: self, start: start, dataCount: dataCount, idCount: id.count)
  }

  /// The last `count` bytes written.
  func withLast<R>(_ count: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    withUnsafeMutablePointers { header, elements in
      body(UnsafeBufferPointer(start: elements + header.pointee.count - count, count: count))
    }
  }
}

/// One event's data and last event ID in an `EventDataBuffer`, as UTF-8 not yet checked.
struct SharedBytes: @unchecked Sendable {
  // @unchecked: it only reads its own elements; see `EventDataBuffer`.
  private let buffer: EventDataBuffer
  private let start: Int
  private let dataCount: Int
  private let idCount: Int

  init(buffer: EventDataBuffer, start: Int, dataCount: Int, idCount: Int) {
    self.buffer = buffer
    self.start = start
    self.dataCount = dataCount
    self.idCount = idCount
  }

  func withData<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
    try withBytes(from: start, count: dataCount, body)
  }

  func withID<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
    try withBytes(from: start + dataCount, count: idCount, body)
  }

  private func withBytes<R, E: Error>(
    from offset: Int, count: Int, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R
  ) throws(E) -> R {
    // `withUnsafeMutablePointerToElements` rethrows untyped; keep the error's type through a Result.
    let result: Result<R, E> = buffer.withUnsafeMutablePointerToElements { elements in
      do throws(E) {
        return .success(try body(UnsafeBufferPointer(start: elements + offset, count: count)))
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }
}

/// A decoder's hold on the buffer its last feed filled, for its next feed to reuse once no event holds it.
struct SpareEventDataBuffer: @unchecked Sendable {
  // @unchecked: writes happen only through this hold when it is the only one; see `EventDataBuffer`.
  var buffer: EventDataBuffer?
}
