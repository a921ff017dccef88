import Foundation

/// The installation's outbox epoch: 1 from the first launch, raised by each sign-out (and each change of
/// person, which signs the previous one out), never lowered, and back to 1 only with a new installation
/// (`ChatStorage.resetInstallation()`). Outbox batches carry it with their sequence numbers, which restart at
/// 1 in each epoch, so a server can refuse a batch of an epoch that has ended.
///
/// A one-record store file holding the number, replaced whole (write, fsync, rename) when it is raised. An
/// unreadable file is moved aside and the epoch counts as 1 again, as for a new installation: the outbox it
/// numbered was emptied by the sign-out that raised it.
enum InstallationEpoch {
  static let kind = "EPCH"
  static let version: UInt32 = 1

  static func load(_ path: String, events: StorageEvents) throws(PersistenceError) -> UInt64 {
    do throws(PersistenceError) {
      guard let bytes = try FileSystem.contents(of: path) else { return 1 }
      return try bytes.withRawBytes { (raw) throws(PersistenceError) -> UInt64 in
        let contents = try RecordFile.read(raw, kind: kind, newestVersion: version, path: path)
        guard contents.records.count == 1, !contents.hasTornTail, let range = contents.records.first else {
          throw .corrupt(path, "not exactly one record")
        }
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[range]))
        guard let epoch = try? reader.uint64(), epoch >= 1 else { throw .corrupt(path, "not an epoch") }
        return epoch
      }
    } catch  where error.isUnreadableContent {
      _ = try FileSystem.moveAside(path)
      events.report(.movedAside(kind: error.kind, file: path))
      return 1
    }
  }

  /// Stores `load + 1` and returns it.
  static func raise(_ path: String, events: StorageEvents) throws(PersistenceError) -> UInt64 {
    let next = try load(path, events: events) + 1
    try store(next, at: path)
    return next
  }

  /// Stores `epoch` (1 or more), durably, replacing what was there.
  static func store(_ epoch: UInt64, at path: String) throws(PersistenceError) {
    var writer = ByteWriter(capacity: 8)
    writer.uint64(epoch)
    var bytes = RecordFile.header(kind: kind, version: version)
    RecordFile.frame(writer.bytes, into: &bytes)
    try FileSystem.writeAtomically(bytes, to: path)
    try FileSystem.syncDirectory(FileSystem.parentDirectory(of: path))
  }
}
