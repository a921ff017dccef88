/// The layout every store file shares: a header naming the file's kind and format version, then records, each
/// framed by its length and checksum.
///
/// ```
/// header:  "CSTR"  kind (4 ASCII bytes)  version (u32 LE)  checksum of the 12 bytes before (u32 LE)
/// record:  payload length (u32 LE)  checksum of the payload (u32 LE)  payload
/// ```
///
/// Files are created whole by an atomic rename and then only appended to, so a kill can tear only the last
/// append: a final record that runs past the end of the file, or whose checksum fails and which ends the file,
/// is a torn tail, dropped and truncated away. Anything else that fails a check is corruption.
enum RecordFile {
  static let magic: [UInt8] = Array("CSTR".utf8)
  static let headerSize = 16
  static let frameSize = 8
  /// No record is this large; a length above it is garbage, not a record to wait for.
  static let maximumRecordSize = 256 * 1024 * 1024

  /// What a read found: the format version, where each intact record's payload is, and how many bytes of the
  /// file are intact (less than its size when a torn tail was dropped).
  struct Contents {
    var version: UInt32
    var records: [Range<Int>]
    var intactLength: Int
    var hasTornTail: Bool
  }

  static func header(kind: String, version: UInt32) -> [UInt8] {
    var writer = ByteWriter(capacity: headerSize)
    writer.bytes.append(contentsOf: magic)
    writer.bytes.append(contentsOf: Array(kind.utf8.prefix(4)))
    writer.uint32(version)
    writer.uint32(Checksum.of(writer.bytes))
    return writer.bytes
  }

  /// Appends one framed record to `bytes`.
  static func frame(_ payload: [UInt8], into bytes: inout [UInt8]) {
    var writer = ByteWriter(capacity: 0)
    swap(&writer.bytes, &bytes)
    writer.uint32(UInt32(payload.count))
    writer.uint32(Checksum.of(payload))
    writer.bytes.append(contentsOf: payload)
    swap(&writer.bytes, &bytes)
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
    var offset = headerSize
    while offset < bytes.count {
      let remaining = bytes.count - offset
      guard remaining >= frameSize else {
        return Contents(version: version, records: records, intactLength: offset, hasTornTail: true)
      }
      let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
      let checksum = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
      let payloadStart = offset + frameSize
      guard length <= maximumRecordSize, length <= bytes.count - payloadStart else {
        return Contents(version: version, records: records, intactLength: offset, hasTornTail: true)
      }
      let payload = payloadStart..<payloadStart + length
      guard Checksum.of(UnsafeRawBufferPointer(rebasing: bytes[payload])) == checksum else {
        if payload.upperBound == bytes.count {
          return Contents(version: version, records: records, intactLength: offset, hasTornTail: true)
        }
        throw .corrupt(path, "record checksum at byte \(offset)")
      }
      records.append(payload)
      offset = payload.upperBound
    }
    return Contents(version: version, records: records, intactLength: offset, hasTornTail: false)
  }
}
