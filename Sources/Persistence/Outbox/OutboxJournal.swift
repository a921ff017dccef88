import ConversationState
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The outbox's file and its in-memory mirror: a journal of what was queued, what is gone, which batch is
/// being uploaded, and the epoch's sequence counter; rewritten whole when most of it is gone.
struct OutboxJournal {
  static let kind = "OUTB"
  static let version: UInt32 = 1

  struct Entry {
    var operation: OutboxOperation
    /// Its serialized size, which the byte bound counts.
    var bytes: Int
  }

  /// The batch being uploaded, kept on disk so that a retry after a crash sends it again unchanged.
  struct InFlight: Codable {
    var id: String
    var epoch: UInt64
    var firstSequence: Int
    var operations: [OutboxOperationID]
  }

  struct Counter: Codable {
    var epoch: UInt64
    var nextSequence: Int
  }

  private enum Record: UInt8 {
    case queued = 1
    case gone, batch, batchDone, counter
  }

  let path: String
  let limits: OutboxLimits
  let events: StorageEvents
  private(set) var operations: [Entry] = []
  var uploading: Set<OutboxOperationID> = []
  private(set) var counter = Counter(epoch: 0, nextSequence: 1)
  private(set) var inFlight: InFlight?
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

  /// Reads the file; `repairing` truncates a torn tail (an inventory reads without changing anything).
  mutating func load(repairing: Bool = true) throws(PersistenceError) {
    guard let bytes = try FileSystem.contents(of: path) else { return }
    let intact = try bytes.withRawBytes { (raw) throws(PersistenceError) -> Int in
      let contents = try RecordFile.read(raw, kind: Self.kind, newestVersion: Self.version, path: path)
      for (index, range) in contents.records.enumerated() {
        do {
          try apply(Array(raw[range]))
        } catch {
          throw .corrupt(path, "record \(index) does not decode")
        }
      }
      return contents.intactLength
    }
    droppedTailBytes = bytes.count - intact
    totalBytes = operations.reduce(0) { $0 + $1.bytes }
    uploading = Set(inFlight?.operations ?? [])
    if droppedTailBytes > 0 && repairing {
      events.report(.tornTailDropped(file: path, bytes: droppedTailBytes))
      guard truncate(path, off_t(intact)) == 0 else { throw .io("truncate", path: path) }
    }
    fileSize = intact
    liveSize = intact
  }

  private mutating func apply(_ payload: [UInt8]) throws(ByteReader.Malformed) {
    guard let first = payload.first, let record = Record(rawValue: first) else { throw ByteReader.Malformed() }
    let body = Array(payload.dropFirst())
    switch record {
    case .queued:
      operations.append(Entry(operation: try JSONBlob.decode(OutboxOperation.self, body), bytes: body.count))
    case .gone:
      let id = OutboxOperationID(rawValue: String(decoding: body, as: UTF8.self))
      operations.removeAll { $0.operation.id == id }
    case .batch:
      inFlight = try JSONBlob.decode(InFlight.self, body)
    case .batchDone:
      guard let batch = inFlight, batch.id == String(decoding: body, as: UTF8.self) else { return }
      counter.nextSequence = batch.firstSequence + batch.operations.count
      inFlight = nil
    case .counter:
      counter = try JSONBlob.decode(Counter.self, body)
    }
  }

  mutating func enqueue(_ operation: OutboxOperation, at now: Date) throws(PersistenceError) -> [OutboxEviction] {
    let body = JSONBlob.encode(operation)
    let pinned = operations.reduce(into: (count: 0, bytes: 0)) { pinned, entry in
      if uploading.contains(entry.operation.id) {
        pinned.count += 1
        pinned.bytes += entry.bytes
      }
    }
    guard pinned.count + 1 <= limits.maximumOperations, pinned.bytes + body.count <= limits.maximumBytes else {
      throw PersistenceError(
        .tooLarge, path: path,
        detail: "\(body.count) bytes do not fit beside the \(pinned.count) operations being uploaded")
    }
    var frames: [UInt8] = []
    RecordFile.frame([Record.queued.rawValue] + body, into: &frames)
    try append(frames)
    operations.append(Entry(operation: operation, bytes: body.count))
    totalBytes += body.count
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

  /// The batch to upload: the one in flight (unchanged, for a retry), or a new one of the oldest waiting
  /// operations, recorded on disk before it is returned.
  mutating func beginBatch(limit: Int, id: String) throws(PersistenceError) -> OutboxBatch? {
    if let batch = inFlight {
      let byID = Dictionary(operations.map { ($0.operation.id, $0.operation) }, uniquingKeysWith: { first, _ in first })
      return OutboxBatch(
        id: batch.id, epoch: batch.epoch, firstSequence: batch.firstSequence,
        operations: batch.operations.compactMap { byID[$0] })
    }
    let chosen = operations.prefix(max(1, min(limit, 100))).map(\.operation)
    guard !chosen.isEmpty else { return nil }
    let batch = InFlight(
      id: id, epoch: counter.epoch, firstSequence: counter.nextSequence, operations: chosen.map(\.id))
    var frames: [UInt8] = []
    RecordFile.frame([Record.batch.rawValue] + JSONBlob.encode(batch), into: &frames)
    try append(frames)
    inFlight = batch
    uploading.formUnion(batch.operations)
    return OutboxBatch(id: id, epoch: batch.epoch, firstSequence: batch.firstSequence, operations: chosen)
  }

  /// The server has the batch `id` (accepted, or a duplicate of one it accepted): its operations leave and the
  /// sequence counter moves past them.
  mutating func finishBatch(_ id: String) throws(PersistenceError) {
    guard let batch = inFlight, batch.id == id else { return }
    var frames: [UInt8] = []
    for operation in batch.operations {
      RecordFile.frame([Record.gone.rawValue] + Array(operation.rawValue.utf8), into: &frames)
    }
    RecordFile.frame([Record.batchDone.rawValue] + Array(id.utf8), into: &frames)
    try append(frames)
    let gone = Set(batch.operations)
    totalBytes -= operations.filter { gone.contains($0.operation.id) }.reduce(0) { $0 + $1.bytes }
    operations.removeAll { gone.contains($0.operation.id) }
    uploading.subtract(gone)
    counter.nextSequence = batch.firstSequence + batch.operations.count
    inFlight = nil
    if fileSize > 4 * max(liveSize, 64 * 1024) { try rewrite() }
  }

  /// Drops every operation and the batch in flight, and starts a new epoch whose sequence numbers start at 1
  /// (a sign-out: the old identity's queue must not be uploaded as the next one's).
  mutating func clear() throws(PersistenceError) {
    operations = []
    uploading = []
    inFlight = nil
    totalBytes = 0
    counter = Counter(epoch: counter.epoch + 1, nextSequence: 1)
    try rewrite()
  }

  mutating func adopt(_ epoch: UInt64, _ nextSequence: Int?) throws(PersistenceError) {
    let next = Counter(epoch: epoch, nextSequence: nextSequence ?? (epoch == counter.epoch ? counter.nextSequence : 1))
    guard next.epoch != counter.epoch || next.nextSequence != counter.nextSequence else { return }
    if let batch = inFlight, batch.epoch != epoch {
      uploading.subtract(batch.operations)
      inFlight = nil
    }
    guard inFlight == nil else { return }  // the batch in flight is this epoch's: it keeps its numbers
    counter = next
    try rewrite()
  }

  /// The server numbers the outbox from `epoch` and `nextSequence`: batch `id`, when it is the one in flight,
  /// is dropped (its operations wait again, where they were) and the counter moves there. Another batch in
  /// flight is not the one the server refused: nothing changes.
  mutating func resynchronize(_ epoch: UInt64, _ nextSequence: Int, droppingBatch id: String) throws(PersistenceError) {
    if let batch = inFlight, batch.id == id {
      uploading.subtract(batch.operations)
      inFlight = nil
    }
    guard inFlight == nil else { return }
    counter = Counter(epoch: max(epoch, 1), nextSequence: max(nextSequence, 1))
    try rewrite()
  }

  mutating func remove(_ ids: Set<OutboxOperationID>) throws(PersistenceError) {
    let present = operations.filter { ids.contains($0.operation.id) }
    guard !present.isEmpty else { return }
    var frames: [UInt8] = []
    for entry in present {
      RecordFile.frame([Record.gone.rawValue] + Array(entry.operation.id.rawValue.utf8), into: &frames)
    }
    try append(frames)
    operations.removeAll { ids.contains($0.operation.id) }
    uploading.subtract(ids)
    totalBytes -= present.reduce(0) { $0 + $1.bytes }
    if fileSize > 4 * max(liveSize, 64 * 1024) { try rewrite() }
  }

  /// Drops the oldest operations not being uploaded until every bound holds; `keeping` (the operation just
  /// queued) is never chosen.
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

  /// Closes the journal's file; the outbox calls it when it goes.
  mutating func close() {
    if descriptor >= 0 { FileSystem.closeFile(descriptor) }
    descriptor = -1
  }

  /// Writes the counter, the waiting operations and the batch in flight to a fresh file and renames it over
  /// the journal.
  private mutating func rewrite() throws(PersistenceError) {
    if descriptor >= 0 { FileSystem.closeFile(descriptor) }
    descriptor = -1
    var bytes = RecordFile.header(kind: Self.kind, version: Self.version)
    RecordFile.frame([Record.counter.rawValue] + JSONBlob.encode(counter), into: &bytes)
    for entry in operations {
      RecordFile.frame([Record.queued.rawValue] + JSONBlob.encode(entry.operation), into: &bytes)
    }
    if let inFlight { RecordFile.frame([Record.batch.rawValue] + JSONBlob.encode(inFlight), into: &bytes) }
    try FileSystem.writeAtomically(bytes, to: path)
    descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    guard descriptor >= 0 else { throw .io("open", path: path) }
    fileSize = bytes.count
    liveSize = bytes.count
  }
}
