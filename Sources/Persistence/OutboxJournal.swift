import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The outbox's file and its in-memory mirror: a journal of "queued" and "gone" records, rewritten whole
/// when most of it is gone.
struct OutboxJournal {
  static let kind = "OUTB"
  static let version: UInt32 = 1

  struct Entry {
    var operation: OutboxOperation
    /// Its serialized size, which the byte bound counts.
    var bytes: Int
  }

  let path: String
  let limits: OutboxLimits
  let events: StorageEvents
  private(set) var operations: [Entry] = []
  var uploading: Set<OutboxOperationID> = []
  private(set) var droppedTailBytes = 0
  private var totalBytes = 0
  private var descriptor: Int32 = -1
  private var fileSize = 0
  private var liveSize = 0

  init(path: String, limits: OutboxLimits, events: StorageEvents) {
    self.path = path
    self.limits = limits
    self.events = events
  }

  mutating func load() throws(PersistenceError) {
    guard let bytes = try FileSystem.contents(of: path) else { return }
    let intact = try bytes.withRawBytes { (raw) throws(PersistenceError) -> Int in
      let contents = try RecordFile.read(raw, kind: Self.kind, newestVersion: Self.version, path: path)
      for (index, range) in contents.records.enumerated() {
        let payload = Array(raw[range])
        switch payload.first {
        case 1:
          do {
            let operation = try JSONBlob.decode(OutboxOperation.self, Array(payload.dropFirst()))
            operations.append(Entry(operation: operation, bytes: payload.count - 1))
          } catch {
            throw .corrupt(path, "record \(index) does not decode")
          }
        case 2:
          let id = OutboxOperationID(rawValue: String(decoding: payload.dropFirst(), as: UTF8.self))
          operations.removeAll { $0.operation.id == id }
        default: throw .corrupt(path, "record \(index) has an unknown type")
        }
      }
      return contents.intactLength
    }
    droppedTailBytes = bytes.count - intact
    totalBytes = operations.reduce(0) { $0 + $1.bytes }
    if droppedTailBytes > 0 {
      events.report(.tornTailDropped(file: path, bytes: droppedTailBytes))
      guard truncate(path, off_t(intact)) == 0 else { throw .io("truncate", path: path) }
    }
    fileSize = intact
    liveSize = intact
  }

  mutating func enqueue(_ operation: OutboxOperation, at now: Date) throws(PersistenceError) -> [OutboxEviction] {
    let payload = [1] + JSONBlob.encode(operation)
    let size = payload.count - 1
    let pinned = operations.reduce(into: (count: 0, bytes: 0)) { pinned, entry in
      if uploading.contains(entry.operation.id) {
        pinned.count += 1
        pinned.bytes += entry.bytes
      }
    }
    guard pinned.count + 1 <= limits.maximumOperations, pinned.bytes + size <= limits.maximumBytes else {
      throw PersistenceError(
        .tooLarge, path: path, detail: "\(size) bytes do not fit beside the \(pinned.count) operations being uploaded")
    }
    var frames: [UInt8] = []
    RecordFile.frame(payload, into: &frames)
    try append(frames)
    operations.append(Entry(operation: operation, bytes: size))
    totalBytes += size
    return try evict(at: now, keeping: operation.id)
  }

  mutating func markUploading(limit: Int) -> [OutboxOperation] {
    var batch: [OutboxOperation] = []
    for entry in operations where batch.count < limit && !uploading.contains(entry.operation.id) {
      uploading.insert(entry.operation.id)
      batch.append(entry.operation)
    }
    return batch
  }

  mutating func remove(_ ids: Set<OutboxOperationID>) throws(PersistenceError) {
    let present = operations.filter { ids.contains($0.operation.id) }
    guard !present.isEmpty else { return }
    var frames: [UInt8] = []
    for entry in present { RecordFile.frame([2] + Array(entry.operation.id.rawValue.utf8), into: &frames) }
    try append(frames)
    operations.removeAll { ids.contains($0.operation.id) }
    uploading.subtract(ids)
    totalBytes -= present.reduce(0) { $0 + $1.bytes }
    if fileSize > 4 * max(liveSize, 64 * 1024) { try rewrite() }
  }

  /// Drops the oldest operations not being uploaded until every bound holds; `keeping` (the operation just
  /// queued) goes last, and only if nothing else can.
  mutating func evict(at now: Date, keeping: OutboxOperationID?) throws(PersistenceError) -> [OutboxEviction] {
    var evictions: [OutboxEviction] = []
    var count = operations.count
    var bytes = totalBytes
    for entry in operations where !uploading.contains(entry.operation.id) && entry.operation.id != keeping {
      let reason: OutboxEviction.Reason
      if now.timeIntervalSince(entry.operation.enqueuedAt) > limits.maximumAge {
        reason = .age
      } else if count > limits.maximumOperations {
        reason = .count
      } else if bytes > limits.maximumBytes {
        reason = .bytes
      } else {
        continue
      }
      evictions.append(OutboxEviction(id: entry.operation.id, reason: reason))
      count -= 1
      bytes -= entry.bytes
    }
    guard !evictions.isEmpty else { return [] }
    try remove(Set(evictions.map(\.id)))
    for eviction in evictions { events.report(.outboxEvicted(eviction)) }
    return evictions
  }

  private mutating func append(_ frames: [UInt8]) throws(PersistenceError) {
    if descriptor < 0 { try rewrite() }
    try FileSystem.writeAll(frames, to: descriptor, path: path)
    guard fdatasync(descriptor) == 0 else { throw .io("fdatasync", path: path) }
    fileSize += frames.count
  }

  /// Writes the waiting operations to a fresh file and renames it over the journal.
  private mutating func rewrite() throws(PersistenceError) {
    if descriptor >= 0 { FileSystem.closeFile(descriptor) }
    descriptor = -1
    var bytes = RecordFile.header(kind: Self.kind, version: Self.version)
    for entry in operations { RecordFile.frame([1] + JSONBlob.encode(entry.operation), into: &bytes) }
    try FileSystem.writeAtomically(bytes, to: path)
    descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    guard descriptor >= 0 else { throw .io("open", path: path) }
    fileSize = bytes.count
    liveSize = bytes.count
  }
}
