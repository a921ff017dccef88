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
/// let shown = reply      // what the UI rendered
/// reply.append("lo")     // O(2); `shown.string` is still "Hel"
/// ```
public struct StreamedText: Sendable {
  private var storage: TextStorage
  /// Length in UTF-8 bytes.
  public private(set) var utf8Count: Int

  public init() {
    storage = TextStorage()
    utf8Count = 0
  }

  public init(_ string: String) {
    self.init()
    append(string)
  }

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
  public static func == (lhs: Self, rhs: Self) -> Bool {
    guard lhs.utf8Count == rhs.utf8Count else { return false }
    return lhs.storage === rhs.storage || lhs.string == rhs.string
  }
}

extension StreamedText: Codable {
  public init(from decoder: any Decoder) throws {
    self.init(try decoder.singleValueContainer().decode(String.self))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(string)
  }
}

extension StreamedText: CustomStringConvertible {
  public var description: String { string }
}

/// Blocks of doubling size (1 KiB, 2 KiB, 4 KiB, …) reached through a fixed directory that is
/// allocated once, so nothing a reader can see ever moves.
///
/// `@unchecked Sendable`, and why that is safe:
/// - bytes below a `StreamedText`'s `utf8Count` are written before that value exists and never again;
/// - a writer only writes at or past `reserved`, which it claims atomically, so two writers never
///   touch the same byte and no writer touches a byte a reader may read;
/// - a directory slot is written once, before any value whose length reaches into that block;
/// - values reach other threads through a lock or a stream, which orders those writes before the reads.
private final class TextStorage: @unchecked Sendable {
  private static let firstBlockSize = 1024
  private static let maximumBlocks = 48
  private let directory: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
  private let reserved = Atomic<Int>(0)

  init() {
    directory = .allocate(capacity: Self.maximumBlocks)
    directory.initialize(repeating: nil, count: Self.maximumBlocks)
  }

  deinit {
    for block in 0..<Self.maximumBlocks { directory[block]?.deallocate() }
    directory.deallocate()
  }

  /// Claims bytes `[offset, offset + count)`; succeeds only for the value whose end is the storage's end.
  func reserve(from offset: Int, count: Int) -> Bool {
    reserved.compareExchange(expected: offset, desired: offset + count, ordering: .acquiringAndReleasing).exchanged
  }

  private static func block(containing offset: Int) -> (index: Int, start: Int, size: Int) {
    let units = offset / firstBlockSize + 1
    let index = Int.bitWidth - 1 - units.leadingZeroBitCount
    return (index, firstBlockSize * ((1 << index) - 1), firstBlockSize << index)
  }

  func write(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) {
    var source = bytes.baseAddress!
    var remaining = bytes.count
    var position = offset
    while remaining > 0 {
      let block = Self.block(containing: position)
      let base: UnsafeMutablePointer<UInt8>
      if let existing = directory[block.index] {
        base = existing
      } else {
        base = .allocate(capacity: block.size)
        directory[block.index] = base
      }
      let within = position - block.start
      let run = Swift.min(remaining, block.size - within)
      (base + within).update(from: source, count: run)
      source += run
      remaining -= run
      position += run
    }
  }

  func copy(length: Int, into destination: UnsafeMutablePointer<UInt8>) {
    var position = 0
    while position < length {
      let block = Self.block(containing: position)
      let run = Swift.min(length - position, block.size)
      (destination + position).update(from: directory[block.index]!, count: run)
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
