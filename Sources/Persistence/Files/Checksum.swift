/// The checksum every stored record carries: a 64-bit multiply-xorshift hash of the bytes, folded to 32 bits.
///
/// Its job is to catch torn writes and flipped bits, not attackers, and loading a 100,000-message history
/// checksums every byte, so it reads eight bytes per step (several times faster than a table CRC-32 in Swift).
/// Any single flipped bit changes the result: each step is a bijection of the running state.
enum Checksum {
  static func of(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    var hash: UInt64 = 0x243F_6A88_85A3_08D3 ^ UInt64(bytes.count)
    var offset = 0
    let count = bytes.count
    while offset + 8 <= count {
      hash = mix(hash ^ UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
      offset += 8
    }
    if offset < count {
      var tail: UInt64 = 0
      var shift: UInt64 = 0
      while offset < count {
        tail |= UInt64(bytes[offset]) << shift
        shift += 8
        offset += 1
      }
      hash = mix(hash ^ tail)
    }
    return UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
  }

  static func of(_ bytes: ArraySlice<UInt8>) -> UInt32 { bytes.withUnsafeBytes { of($0) } }
  static func of(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes { of($0) } }

  /// `chain` extended by one record, its payload's checksum and length: the running fingerprint of a file's
  /// records (`RecordFile.Contents.chains`). Each step is a bijection of the running state, so two prefixes
  /// that differ in one record's checksum or length differ in every fingerprint after it.
  static func chain(_ chain: UInt64, checksum: UInt32, length: Int) -> UInt64 {
    mix(chain ^ (UInt64(checksum) << 32 | UInt64(UInt32(truncatingIfNeeded: length))))
  }

  @inline(__always)
  private static func mix(_ value: UInt64) -> UInt64 {
    var value = value &* 0x9E37_79B9_7F4A_7C15
    value ^= value >> 29
    value = value &* 0xBF58_476D_1CE4_E5B9
    return value ^ (value >> 32)
  }
}
