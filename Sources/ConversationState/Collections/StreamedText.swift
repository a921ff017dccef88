import Foundation
import Synchronization

/// The text of a reply that is still streaming: an append-only byte buffer shared by every copy.
///
/// A value is a view `(storage, length)`. Appending writes past `length` into blocks that never move
/// and never change once written, so a copy held by a subscriber keeps reading exactly the bytes it
/// had, while the owner keeps appending in place. Each append costs O(delta) no matter how long the
/// reply already is or how many copies are alive; `String += ` would copy the whole reply on the first
/// append after a copy was taken.
///
/// Two copies that both end at the storage's end may both try to append; the first one wins the
/// storage's reservation and the other forks into a fresh buffer (O(length), rare: it takes a caller
/// that mutates an old snapshot).
///
/// ```swift
/// var reply = StreamedText()
/// reply.append("Hel")
/// let shown = reply  // what the UI rendered
/// reply.append("lo")  // O(2); `shown.string` is still "Hel"
/// ```
public struct StreamedText: Sendable {
  private var storage: TextStorage
  /// Length in UTF-8 bytes.
  public private(set) var utf8Count: Int

  /// An empty text, as a reply is before its first delta.
  public init() {
    storage = TextStorage()
    utf8Count = 0
  }

  /// A text starting with `string`, for example a reply restored from a saved state; deltas append after it.
  public init(_ string: String) {
    self.init()
    append(string)
  }

  /// Whether no text has arrived yet; empty deltas leave it true.
  public var isEmpty: Bool { utf8Count == 0 }

  /// Appends `delta` in O(delta.utf8.count).
  public mutating func append(_ delta: String) {
    var delta = delta
    delta.withUTF8 { bytes in append(bytes) }
  }

  private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard !bytes.isEmpty else { return }
    if !storage.reserve(from: utf8Count, count: bytes.count) {
      storage = storage.fork(length: utf8Count)
      let reserved = storage.reserve(from: utf8Count, count: bytes.count)
      precondition(reserved, "a freshly forked text buffer is owned by its forker")
    }
    storage.write(bytes, at: utf8Count)
    utf8Count += bytes.count
  }

  /// The text between two UTF-8 offsets, `start` included: O(end - start). Offsets are rounded down to the
  /// start of a character's bytes, so a cut never splits one. A host that kept the `utf8Count` of its
  /// previous snapshot reads just what was appended since: `text.substring(fromUTF8: previousCount)`.
  public func substring(fromUTF8 start: Int, toUTF8 end: Int? = nil) -> String {
    let upper = boundary(atOrBefore: min(end ?? utf8Count, utf8Count))
    let lower = boundary(atOrBefore: min(max(0, start), upper))
    guard upper > lower else { return "" }
    return String(unsafeUninitializedCapacity: upper - lower) { buffer in
      storage.copy(from: lower, length: upper - lower, into: buffer.baseAddress!)
      return upper - lower
    }
  }

  /// What was appended to this text since `earlier`, an older copy of it (the reply as the host's previous
  /// snapshot had it): O(appended), whatever the reply's length, so a toolkit appends to its text buffer
  /// instead of setting the whole reply again. nil when `earlier` is not an earlier state of this text (another
  /// reply, or one that was forked): the host sets the whole `string` then.
  ///
  /// ```swift
  /// if let reply = snapshot.state.streamingReply {
  ///   if let shown, let tail = reply.text.appended(since: shown) {
  ///     buffer.append(tail)
  ///   } else {
  ///     buffer.set(reply.text.string)
  ///   }
  ///   shown = reply.text
  /// }
  /// ```
  public func appended(since earlier: StreamedText) -> String? {
    guard earlier.utf8Count <= utf8Count else { return nil }
    if earlier.storage !== storage && earlier.string != substring(fromUTF8: 0, toUTF8: earlier.utf8Count) {
      return nil
    }
    // No rounding, unlike `substring`: every length a text has had ends a character's bytes (it grows by
    // whole strings), and so does `earlier`'s, the length of a prefix equal to this text's. A UI calls this
    // once a frame, so the tail is read in place, not through `substring`'s byte-by-byte search and copy.
    return storage.string(from: earlier.utf8Count, length: utf8Count - earlier.utf8Count)
  }

  /// The largest offset at or before `offset` where a character's bytes start (or the end of the text).
  private func boundary(atOrBefore offset: Int) -> Int {
    guard offset > 0, offset < utf8Count else { return max(0, offset) }
    // UTF-8 continuation bytes look like 0b10xxxxxx; a character's bytes start at any other. At most three
    // steps back.
    var position = offset
    var byte: UInt8 = 0
    while position > 0 {
      storage.copy(from: position, length: 1, into: &byte)
      if byte & 0xC0 != 0x80 { break }
      position -= 1
    }
    return position
  }

  /// The text as a `String`: O(length). Read it to render, not on every delta.
  public var string: String {
    guard utf8Count > 0 else { return "" }
    return String(unsafeUninitializedCapacity: utf8Count) { buffer in
      storage.copy(length: utf8Count, into: buffer.baseAddress!)
      return utf8Count
    }
  }
}

extension StreamedText: Equatable {
  /// Equal when the texts are equal. Two copies of one reply compare in O(1); other texts of equal length
  /// compare their contents, in O(length).
  public static func == (lhs: Self, rhs: Self) -> Bool {
    guard lhs.utf8Count == rhs.utf8Count else { return false }
    return lhs.storage === rhs.storage || lhs.string == rhs.string
  }
}

extension StreamedText: Codable {
  /// Decodes the text from a plain JSON string, as a saved state or a fixture holds it.
  public init(from decoder: any Decoder) throws {
    self.init(try decoder.singleValueContainer().decode(String.self))
  }

  /// Encodes the text as a plain JSON string; the block layout never reaches the wire or the disk.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(string)
  }
}

extension StreamedText: CustomStringConvertible {
  /// The text itself, for logs and debugging; O(length), like `string`.
  public var description: String { string }
}

/// Blocks that never move, reached through a two-level directory that never moves either.
///
/// Blocks start at 1 KiB and double up to 64 KiB, then stay at 64 KiB: a short reply costs little memory,
/// and a long one never asks the allocator for a block large enough to be mapped fresh (and page-faulted)
/// while deltas are being timed by a user. The first directory level is allocated with the storage; each
/// second-level table is allocated once, when the first block it holds is.
///
/// `@unchecked Sendable`, and why that is safe:
/// - bytes below a `StreamedText`'s `utf8Count` are written before that value exists and never again;
/// - a writer only writes at or past `reserved`, which it claims atomically, so two writers never
///   touch the same byte and no writer touches a byte a reader may read;
/// - a directory slot is written once, before any value whose length reaches into that block;
/// - values reach other threads through a lock or a stream, which orders those writes before the reads.
private final class TextStorage: @unchecked Sendable {
  private static let firstBlockBytes = 1_024
  private static let growingBlocks = 7  // 1, 2, 4, … 64 KiB
  private static let largeBlockBytes = firstBlockBytes << (growingBlocks - 1)
  private static let growingBytes = firstBlockBytes * ((1 << growingBlocks) - 1)
  private static let tableSize = 1_024
  private typealias Table = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>

  private let tables: UnsafeMutablePointer<Table?>
  private let reserved = Atomic<Int>(0)

  init() {
    tables = .allocate(capacity: Self.tableSize)
    tables.initialize(repeating: nil, count: Self.tableSize)
  }

  deinit {
    for tableIndex in 0..<Self.tableSize {
      guard let table = tables[tableIndex] else { continue }
      for block in 0..<Self.tableSize { table[block]?.deallocate() }
      table.deallocate()
    }
    tables.deallocate()
  }

  /// Claims bytes `[offset, offset + count)`; succeeds only for the value whose end is the storage's end.
  func reserve(from offset: Int, count: Int) -> Bool {
    reserved.compareExchange(expected: offset, desired: offset + count, ordering: .acquiringAndReleasing).exchanged
  }

  /// The block holding `offset`: its index, where it starts, and its size.
  private static func block(containing offset: Int) -> (index: Int, start: Int, size: Int) {
    if offset < growingBytes {
      let units = offset / firstBlockBytes + 1
      let index = Int.bitWidth - 1 - units.leadingZeroBitCount
      return (index, firstBlockBytes * ((1 << index) - 1), firstBlockBytes << index)
    }
    let large = (offset - growingBytes) / largeBlockBytes
    return (growingBlocks + large, growingBytes + large * largeBlockBytes, largeBlockBytes)
  }

  private func address(ofBlock index: Int, size: Int, creating: Bool) -> UnsafeMutablePointer<UInt8> {
    let (tableIndex, slot) = index.quotientAndRemainder(dividingBy: Self.tableSize)
    precondition(tableIndex < Self.tableSize, "a streamed reply longer than 64 GiB")
    let table: Table
    if let existing = tables[tableIndex] {
      table = existing
    } else {
      precondition(creating, "reading a block that was never written")
      table = .allocate(capacity: Self.tableSize)
      table.initialize(repeating: nil, count: Self.tableSize)
      tables[tableIndex] = table
    }
    if let block = table[slot] { return block }
    precondition(creating, "reading a block that was never written")
    let block = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
    table[slot] = block
    return block
  }

  func write(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) {
    var source = bytes.baseAddress!
    var remaining = bytes.count
    var position = offset
    while remaining > 0 {
      let block = Self.block(containing: position)
      let base = address(ofBlock: block.index, size: block.size, creating: true)
      let within = position - block.start
      let run = Swift.min(remaining, block.size - within)
      (base + within).update(from: source, count: run)
      source += run
      remaining -= run
      position += run
    }
  }

  /// The `length` bytes at `start`, which begin and end a character's bytes, as a `String`: made from the
  /// bytes in place when one block holds them (a frame's new text almost always is), else copied.
  func string(from start: Int, length: Int) -> String {
    guard length > 0 else { return "" }
    let block = Self.block(containing: start)
    let within = start - block.start
    guard within + length <= block.size else {
      return String(unsafeUninitializedCapacity: length) { buffer in
        copy(from: start, length: length, into: buffer.baseAddress!)
        return length
      }
    }
    let base = address(ofBlock: block.index, size: block.size, creating: false)
    return String(decoding: UnsafeBufferPointer(start: base + within, count: length), as: UTF8.self)
  }

  func copy(length: Int, into destination: UnsafeMutablePointer<UInt8>) {
    copy(from: 0, length: length, into: destination)
  }

  /// Copies `length` bytes starting at `start`: O(length), whatever `start` is.
  func copy(from start: Int, length: Int, into destination: UnsafeMutablePointer<UInt8>) {
    var position = start
    while position < start + length {
      let block = Self.block(containing: position)
      let offset = position - block.start
      let run = Swift.min(start + length - position, block.size - offset)
      (destination + (position - start)).update(
        from: address(ofBlock: block.index, size: block.size, creating: false) + offset, count: run)
      position += run
    }
  }

  func fork(length: Int) -> TextStorage {
    let forked = TextStorage()
    guard length > 0 else { return forked }
    let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: length)
    defer { bytes.deallocate() }
    copy(length: length, into: bytes.baseAddress!)
    _ = forked.reserve(from: 0, count: length)
    forked.write(UnsafeBufferPointer(bytes), at: 0)
    return forked
  }
}
