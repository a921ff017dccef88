/// The layout every store file shares: a header naming the file's kind and format version, then records, each
/// framed by its length and checksum.
///
/// ```
/// header:  "CSTR"  kind (4 ASCII bytes)  version (u32 LE)  checksum of the 12 bytes before (u32 LE)
/// record:  payload length (u32 LE)  checksum of the length (u32 LE)  checksum of the payload (u32 LE)  payload
/// ```
///
/// Files are created whole by an atomic rename and then only appended to, so a crash can tear only the last
/// append. What counts as such a torn tail: a frame cut short, a frame whose checked length runs past the end
/// of the file, a final record whose payload checksum fails, or trailing zero bytes (a power cut can leave the
/// file's new end unwritten). It is dropped and truncated away. Anything else that fails a check (a length
/// whose own checksum fails, a bad record with more after it) is corruption: a flipped bit in a length can
/// never pass for a torn write and silently cut off the records after it.
enum RecordFile {
  static let magic: [UInt8] = Array("CSTR".utf8)
  static let headerSize = 16
  static let frameSize = 12
  /// No record is this large; a length above it is garbage, not a record to wait for.
  static let maximumRecordSize = 256 * 1024 * 1024

  /// What a read found: the format version, where each intact record's payload is, and how many bytes of the
  /// file are intact (less than its size when a torn tail was dropped).
  struct Contents {
    var version: UInt32
    var records: [Range<Int>]
    /// The file's fingerprint after each record (`Checksum.chain` over the records' checksums and lengths,
    /// from the header's checksum): what identifies a prefix of the file without keeping its bytes.
    var chains: [UInt64]
    var headerChain: UInt64
    var intactLength: Int
    var hasTornTail: Bool

    /// The fingerprint of the whole intact file.
    var chain: UInt64 { chains.last ?? headerChain }
  }

  static func header(kind: String, version: UInt32) -> [UInt8] {
    var writer = ByteWriter(capacity: headerSize)
    writer.bytes.append(contentsOf: magic)
    writer.bytes.append(contentsOf: Array(kind.utf8.prefix(4)))
    writer.uint32(version)
    writer.uint32(Checksum.of(writer.bytes))
    return writer.bytes
  }

  /// The fingerprint of a file that holds only `header` (the start of every `Contents.chains`).
  static func chain(ofHeader header: [UInt8]) -> UInt64 {
    UInt64(Checksum.of(header[0..<12]))
  }

  /// Appends one framed record to `bytes`, and extends `chain`, the fingerprint of what `bytes` holds, by it.
  static func frame(_ payload: [UInt8], into bytes: inout [UInt8], chain: inout UInt64) {
    let checksum = Checksum.of(payload)
    var writer = ByteWriter(capacity: 0)
    swap(&writer.bytes, &bytes)
    writer.uint32(UInt32(payload.count))
    writer.uint32(lengthChecksum(UInt32(payload.count)))
    writer.uint32(checksum)
    writer.bytes.append(contentsOf: payload)
    swap(&writer.bytes, &bytes)
    chain = Checksum.chain(chain, checksum: checksum, length: payload.count)
  }

  /// Appends one framed record to `bytes`.
  static func frame(_ payload: [UInt8], into bytes: inout [UInt8]) {
    var chain: UInt64 = 0
    frame(payload, into: &bytes, chain: &chain)
  }

  /// The check of a record's length: a flipped bit in the length fails it, so a damaged length is never read
  /// as a record that runs past the end of the file (a torn write).
  static func lengthChecksum(_ length: UInt32) -> UInt32 {
    withUnsafeBytes(of: length.littleEndian) { Checksum.of($0) } ^ 0xA5A5_5A5A
  }

  /// Whether every byte from `offset` to the end is zero: the unwritten end a power cut can leave.
  static func isZero(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> Bool {
    bytes[offset...].allSatisfy { $0 == 0 }
  }

  /// Checks the header and the records' frames of a whole file.
  ///
  /// Throws `corrupt` for a bad header or a bad record before the last one, and `unsupportedVersion` for a
  /// version above `newestVersion`. The payloads themselves are the caller's to decode.
  static func read(
    _ bytes: UnsafeRawBufferPointer, kind: String, newestVersion: UInt32, path: String
  ) throws(PersistenceError) -> Contents {
    guard bytes.count >= headerSize else {
      throw .corrupt(path, bytes.isEmpty ? "empty file" : "shorter than a header")
    }
    guard bytes.prefix(4).elementsEqual(magic) else { throw .corrupt(path, "not a store file") }
    guard bytes[4..<8].elementsEqual(kind.utf8.prefix(4)) else {
      throw .corrupt(path, "a different kind of store file")
    }
    let headerChecksum = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
    guard headerChecksum == Checksum.of(UnsafeRawBufferPointer(rebasing: bytes[0..<12])) else {
      throw .corrupt(path, "header checksum")
    }
    let version = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    guard version >= 1 else { throw .corrupt(path, "format version 0") }
    guard version <= newestVersion else {
      throw PersistenceError(
        .unsupportedVersion, path: path, detail: "format version \(version), newest known \(newestVersion)")
    }
    var records: [Range<Int>] = []
    var chains: [UInt64] = []
    let headerChain = UInt64(headerChecksum)
    var chain = headerChain
    var offset = headerSize
    while offset < bytes.count {
      let torn = Contents(
        version: version, records: records, chains: chains, headerChain: headerChain, intactLength: offset,
        hasTornTail: true)
      let remaining = bytes.count - offset
      if isZero(bytes, from: offset) { return torn }
      guard remaining >= frameSize else { return torn }
      let declared = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
      let declaredCheck = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
      guard declaredCheck == lengthChecksum(declared), Int(declared) <= maximumRecordSize else {
        throw .corrupt(path, "record length check at byte \(offset)")
      }
      let length = Int(declared)
      let payloadStart = offset + frameSize
      guard length <= bytes.count - payloadStart else { return torn }
      let checksum = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self))
      let payload = payloadStart..<payloadStart + length
      guard Checksum.of(UnsafeRawBufferPointer(rebasing: bytes[payload])) == checksum else {
        if payload.upperBound == bytes.count { return torn }
        throw .corrupt(path, "record checksum at byte \(offset)")
      }
      records.append(payload)
      chain = Checksum.chain(chain, checksum: checksum, length: length)
      chains.append(chain)
      offset = payload.upperBound
    }
    return Contents(
      version: version, records: records, chains: chains, headerChain: headerChain, intactLength: offset,
      hasTornTail: false)
  }
}
