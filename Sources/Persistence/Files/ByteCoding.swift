/// Appends values in the store's binary layout: little-endian fixed-width integers, LEB128 lengths, UTF-8
/// strings prefixed by their length.
struct ByteWriter {
  var bytes: [UInt8] = []

  init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

  mutating func byte(_ value: UInt8) { bytes.append(value) }

  mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

  mutating func uint32(_ value: UInt32) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func uint64(_ value: UInt64) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func double(_ value: Double) { uint64(value.bitPattern) }

  /// An unsigned LEB128 number: one byte for anything under 128.
  mutating func varint(_ value: UInt64) {
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  mutating func count(_ value: Int) { varint(UInt64(value)) }

  mutating func string(_ value: String) {
    var value = value
    value.withUTF8 { utf8 in
      count(utf8.count)
      bytes.append(contentsOf: utf8)
    }
  }

  mutating func optionalString(_ value: String?) {
    bool(value != nil)
    if let value { string(value) }
  }

  mutating func blob(_ value: [UInt8]) {
    count(value.count)
    bytes.append(contentsOf: value)
  }
}

/// Reads what `ByteWriter` wrote. Every read is bounds-checked and throws `ByteReader.Malformed` instead of
/// trapping: stored bytes are untrusted input.
struct ByteReader {
  struct Malformed: Error {}

  let bytes: UnsafeRawBufferPointer
  private(set) var offset: Int

  init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
    self.bytes = bytes
    self.offset = offset
  }

  var isAtEnd: Bool { offset == bytes.count }

  mutating func byte() throws(Malformed) -> UInt8 {
    guard offset < bytes.count else { throw Malformed() }
    defer { offset += 1 }
    return bytes[offset]
  }

  mutating func bool() throws(Malformed) -> Bool {
    switch try byte() {
    case 0: return false
    case 1: return true
    default: throw Malformed()
    }
  }

  mutating func uint32() throws(Malformed) -> UInt32 {
    guard bytes.count - offset >= 4 else { throw Malformed() }
    defer { offset += 4 }
    return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
  }

  mutating func uint64() throws(Malformed) -> UInt64 {
    guard bytes.count - offset >= 8 else { throw Malformed() }
    defer { offset += 8 }
    return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
  }

  mutating func double() throws(Malformed) -> Double { Double(bitPattern: try uint64()) }

  mutating func varint() throws(Malformed) -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      let next = try byte()
      guard shift < 64 else { throw Malformed() }
      value |= UInt64(next & 0x7F) << shift
      if next < 0x80 { return value }
      shift += 7
    }
  }

  /// A length or count, refused when it is larger than what is left (so garbage cannot ask for gigabytes).
  mutating func count() throws(Malformed) -> Int {
    let value = try varint()
    guard value <= UInt64(bytes.count - offset) else { throw Malformed() }
    return Int(value)
  }

  mutating func rawBytes(_ count: Int) throws(Malformed) -> UnsafeRawBufferPointer {
    guard count >= 0, bytes.count - offset >= count else { throw Malformed() }
    defer { offset += count }
    return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
  }

  /// Invalid UTF-8 is repaired (replacement characters), as `String(decoding:)` does; a checksum guards
  /// against corruption, so this only matters for files written by something else.
  mutating func string() throws(Malformed) -> String {
    String(decoding: try rawBytes(try count()), as: UTF8.self)
  }

  mutating func optionalString() throws(Malformed) -> String? {
    try bool() ? try string() : nil
  }

  mutating func blob() throws(Malformed) -> [UInt8] { Array(try rawBytes(try count())) }
}

extension Array where Element == UInt8 {
  /// `withUnsafeBytes` keeping the body's typed error (the standard one rethrows `any Error`).
  func withRawBytes<Result>(
    _ body: (UnsafeRawBufferPointer) throws(PersistenceError) -> Result
  ) throws(PersistenceError) -> Result {
    let outcome: Swift.Result<Result, PersistenceError> = withUnsafeBytes { raw in
      do throws(PersistenceError) { return .success(try body(raw)) } catch { return .failure(error) }
    }
    return try outcome.get()
  }
}
