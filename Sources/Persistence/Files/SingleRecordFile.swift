import Foundation

/// A small file that holds one value as one checksummed record and changes as a whole: rewritten by atomic
/// rename, never appended to. The conversation list and the standing approvals are kept this way.
struct SingleRecordFile<Value: Codable>: Sendable {
  let path: String
  let kind: String
  let version: UInt32
  let events: StorageEvents

  func save(_ value: Value) throws(PersistenceError) {
    var bytes = RecordFile.header(kind: kind, version: version)
    RecordFile.frame(JSONBlob.encode(value), into: &bytes)
    try FileSystem.writeAtomically(bytes, to: path)
  }

  /// The stored value, nil when there is none. An unreadable file is moved aside and the error thrown (with
  /// `movedAsideTo` set); the next load finds nothing.
  func load(_ what: String) throws(PersistenceError) -> Value? {
    do throws(PersistenceError) {
      guard let bytes = try FileSystem.contents(of: path) else { return nil }
      return try bytes.withRawBytes { (raw) throws(PersistenceError) -> Value in
        let contents = try RecordFile.read(raw, kind: kind, newestVersion: version, path: path)
        guard contents.records.count == 1, !contents.hasTornTail, let range = contents.records.first else {
          throw .corrupt(path, "not exactly one record")
        }
        do {
          return try JSONBlob.decode(Value.self, Array(raw[range]))
        } catch {
          throw .corrupt(path, "\(what) does not decode")
        }
      }
    } catch  where error.isUnreadableContent {
      var reported = error
      reported.movedAsideTo = try FileSystem.moveAside(path)
      events.report(.movedAside(kind: error.kind, file: path))
      throw reported
    }
  }
}
