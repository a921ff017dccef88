/// A byte string whose storage is kept when it is emptied or refilled.
///
/// The decoder refills the same few of these for every event; `Array`'s `removeAll(keepingCapacity:)` and
/// `append(contentsOf:)` cost more than the few bytes they copy (7% of `sse.decode.1mb`), as they check and
/// move more than a byte string that only grows needs.
struct ReusableBytes: Sendable {
  /// Zero-filled past `count`; only ever grows, until `removeAll(keepingAtMost:)` lets it go.
  private var storage: [UInt8] = []
  private(set) var count = 0

  mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress else { return }
    let start = count
    if start + bytes.count > storage.count { grow(toAtLeast: start + bytes.count) }
    storage.withUnsafeMutableBufferPointer { ($0.baseAddress! + start).update(from: source, count: bytes.count) }
    count = start + bytes.count
  }

  mutating func append(_ byte: UInt8) {
    if count == storage.count { grow(toAtLeast: count + 1) }
    storage[count] = byte
    count += 1
  }

  /// Makes these bytes `bytes`.
  mutating func replace(with bytes: UnsafeBufferPointer<UInt8>) {
    count = 0
    append(bytes)
  }

  /// Empties these bytes, and lets go of storage larger than `limit`, so that one huge value does not keep
  /// its size for good.
  mutating func removeAll(keepingAtMost limit: Int) {
    count = 0
    if storage.count > limit { storage = [] }
  }

  @inline(__always)
  func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    storage.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[..<count])) }
  }

  @inline(never)
  private mutating func grow(toAtLeast needed: Int) {
    storage.append(contentsOf: repeatElement(0, count: Swift.max(needed, storage.count * 2, 32) - storage.count))
  }
}
