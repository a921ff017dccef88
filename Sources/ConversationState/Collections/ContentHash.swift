// SHA-256 (FIPS 180-4) in plain Swift: CryptoKit is Apple-only and the package takes no dependencies, so the
// digest that deduplicates attachment uploads has to live here.
public import Foundation

/// SHA-256 of content, as lowercase hex.
///
/// Attachments are deduplicated by what they contain rather than by name or path, so the same bytes picked
/// twice upload once. Lowercase hex is the form servers commonly accept for content digests, and it keeps the
/// value readable in logs and usable as a dictionary key.
public struct ContentHash: Hashable, Sendable, CustomStringConvertible {
  /// The 32-byte digest as 64 lowercase hexadecimal characters.
  public let hex: String

  /// The hex digest, so that interpolating a hash prints the value a server would see.
  public var description: String { hex }

  init(digest: [UInt8]) {
    hex = Self.lowercaseHex(digest)
  }

  /// Hashes bytes already in memory; contiguous collections such as `[UInt8]` and `Data` are hashed a block at
  /// a time, other sequences a byte at a time.
  public static func of<Bytes: Sequence>(_ bytes: Bytes) -> ContentHash where Bytes.Element == UInt8 {
    var hasher = SHA256Hasher()
    hasher.update(bytes)
    return ContentHash(digest: hasher.finalize())
  }

  /// Reads the file in chunks (64 KiB), never the whole file into memory; throws the file's error.
  ///
  /// Attachments can be large videos, and hashing must not be what runs a device out of memory.
  public static func ofFile(at url: URL) throws -> ContentHash {
    let handle = try FileHandle(forReadingFrom: url)
    defer { try? handle.close() }
    var hasher = SHA256Hasher()
    while let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty {
      hasher.update(chunk)
    }
    return ContentHash(digest: hasher.finalize())
  }

  private static let chunkSize = 64 * 1024

  private static func lowercaseHex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var characters: [UInt8] = []
    characters.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      characters.append(digits[Int(byte >> 4)])
      characters.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: characters, as: UTF8.self)
  }
}

/// The incremental hasher behind it.
///
/// Incremental so that a file can be hashed chunk by chunk; `finalize()` resets it, so a hasher reused after
/// finalizing starts a new digest instead of continuing from padded state.
struct SHA256Hasher {
  private static let blockSize = 64

  private static let initialState: [UInt32] = [
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
  ]

  private static let roundConstants: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
  ]

  private var state = Self.initialState
  // A partial block waits here until 64 bytes have arrived; full blocks in the input skip it entirely.
  private var pending = [UInt8](repeating: 0, count: Self.blockSize)
  private var pendingCount = 0
  private var byteCount: UInt64 = 0

  mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
    let handled: Void? = bytes.withContiguousStorageIfAvailable { buffer in
      absorb(UnsafeRawBufferPointer(buffer))
    }
    guard handled == nil else { return }
    // Lazy sequences and other non-contiguous inputs have no buffer to borrow, so they go through `pending`.
    for byte in bytes {
      pending[pendingCount] = byte
      pendingCount += 1
      byteCount &+= 1
      if pendingCount == Self.blockSize {
        compressPending()
      }
    }
  }

  mutating func finalize() -> [UInt8] {
    let bitLength = byteCount &* 8
    // Padding: a single 1 bit, zeros up to 56 bytes into a block, then the message length in bits.
    let zeroCount = (Self.blockSize + 55 - pendingCount) % Self.blockSize
    var padding = [UInt8](repeating: 0, count: 1 + zeroCount + 8)
    padding[0] = 0x80
    for index in 0..<8 {
      padding[padding.count - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(index)))
    }
    update(padding)
    var digest: [UInt8] = []
    digest.reserveCapacity(32)
    for word in state {
      digest.append(UInt8(truncatingIfNeeded: word >> 24))
      digest.append(UInt8(truncatingIfNeeded: word >> 16))
      digest.append(UInt8(truncatingIfNeeded: word >> 8))
      digest.append(UInt8(truncatingIfNeeded: word))
    }
    self = SHA256Hasher()
    return digest
  }

  private mutating func absorb(_ input: UnsafeRawBufferPointer) {
    // An empty buffer may have no base address to copy from.
    guard !input.isEmpty else { return }
    byteCount &+= UInt64(input.count)
    var offset = 0
    if pendingCount > 0 {
      let taken = min(Self.blockSize - pendingCount, input.count)
      pending.withUnsafeMutableBytes { pendingBytes in
        pendingBytes.baseAddress!.advanced(by: pendingCount).copyMemory(
          from: input.baseAddress!, byteCount: taken)
      }
      pendingCount += taken
      offset = taken
      guard pendingCount == Self.blockSize else { return }
      compressPending()
    }
    while input.count - offset >= Self.blockSize {
      Self.compress(UnsafeRawBufferPointer(rebasing: input[offset..<offset + Self.blockSize]), into: &state)
      offset += Self.blockSize
    }
    let remaining = input.count - offset
    if remaining > 0 {
      pending.withUnsafeMutableBytes { pendingBytes in
        pendingBytes.baseAddress!.copyMemory(from: input.baseAddress! + offset, byteCount: remaining)
      }
      pendingCount = remaining
    }
  }

  private mutating func compressPending() {
    pending.withUnsafeBytes { Self.compress($0, into: &state) }
    pendingCount = 0
  }

  private static func compress(_ block: UnsafeRawBufferPointer, into state: inout [UInt32]) {
    roundConstants.withUnsafeBufferPointer { constants in
      withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
        for index in 0..<16 {
          schedule[index] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
        }
        for index in 16..<64 {
          let early = schedule[index - 15]
          let late = schedule[index - 2]
          let sigma0 = rotateRight(early, 7) ^ rotateRight(early, 18) ^ (early &>> 3)
          let sigma1 = rotateRight(late, 17) ^ rotateRight(late, 19) ^ (late &>> 10)
          schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
        }

        state.withUnsafeMutableBufferPointer { hash in
          var a = hash[0]
          var b = hash[1]
          var c = hash[2]
          var d = hash[3]
          var e = hash[4]
          var f = hash[5]
          var g = hash[6]
          var h = hash[7]
          for index in 0..<64 {
            let sum1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25)
            let choice = (e & f) ^ (~e & g)
            let temp1 = h &+ sum1 &+ choice &+ constants[index] &+ schedule[index]
            let sum0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let temp2 = sum0 &+ majority
            h = g
            g = f
            f = e
            e = d &+ temp1
            d = c
            c = b
            b = a
            a = temp1 &+ temp2
          }
          hash[0] &+= a
          hash[1] &+= b
          hash[2] &+= c
          hash[3] &+= d
          hash[4] &+= e
          hash[5] &+= f
          hash[6] &+= g
          hash[7] &+= h
        }
      }
    }
  }

  @inline(__always)
  private static func rotateRight(_ value: UInt32, _ count: UInt32) -> UInt32 {
    (value &>> count) | (value &<< (32 &- count))
  }
}
