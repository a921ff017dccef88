import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// This app installation's identity: created on first use, kept across sign-out, deleted only by
/// `ChatStorage.resetInstallation()`. Anonymous history and the anonymous scope hang on it.
public struct InstallationID: Hashable, Sendable, Codable, CustomStringConvertible {
  /// A random UUID, lowercase.
  public let rawValue: String

  /// An installation ID as stored (or as a test chooses it).
  public init(rawValue: String) { self.rawValue = rawValue }

  public var description: String { rawValue }
}

/// The installation file: a one-record store file, created once with `link`, so two processes starting at the
/// same moment still agree on one ID.
enum InstallationFile {
  static let kind = "INST"
  static let version: UInt32 = 1

  static func loadOrCreate(_ path: String, events: StorageEvents) throws(PersistenceError) -> InstallationID {
    if let existing = try read(path, events: events) { return existing }
    var bytes = RecordFile.header(kind: kind, version: version)
    RecordFile.frame(Array(UUID().uuidString.lowercased().utf8), into: &bytes)
    // A name of its own per call: threads and processes creating the identity at once must not share one.
    let temporary = "\(path).\(getpid()).\(UUID().uuidString).new"
    try FileSystem.writeAtomically(bytes, to: temporary)
    // link fails if another process created the file first; then its ID is the one.
    let linked = link(temporary, path)
    let linkError = errno
    unlink(temporary)
    if linked != 0 && linkError != EEXIST { throw .io("link", path: path) }
    try FileSystem.syncDirectory(FileSystem.parentDirectory(of: path))
    guard let created = try read(path, events: events) else { throw .corrupt(path, "vanished after creation") }
    return created
  }

  /// The stored ID; nil when there is none, or when the file was unreadable (then it is moved aside).
  private static func read(_ path: String, events: StorageEvents) throws(PersistenceError) -> InstallationID? {
    do throws(PersistenceError) {
      guard let bytes = try FileSystem.contents(of: path) else { return nil }
      return try bytes.withRawBytes { (raw) throws(PersistenceError) -> InstallationID in
        let contents = try RecordFile.read(raw, kind: kind, newestVersion: version, path: path)
        guard contents.records.count == 1, !contents.hasTornTail, let range = contents.records.first else {
          throw .corrupt(path, "not exactly one record")
        }
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: raw[range]), as: UTF8.self)
        guard !value.isEmpty, value.utf8.count <= 64 else { throw .corrupt(path, "not an installation ID") }
        return InstallationID(rawValue: value)
      }
    } catch  where error.isUnreadableContent {
      _ = try FileSystem.moveAside(path)
      events.report(.movedAside(kind: error.kind, file: path))
      return nil
    }
  }
}
