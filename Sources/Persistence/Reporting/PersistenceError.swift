#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Why stored data could not be read or written.
///
/// It names the file and the reason, never the file's contents: errors end up in logs, and what is stored is
/// people's conversations. A corrupt file is never deleted: `movedAsideTo` says where it went.
public struct PersistenceError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What kind of failure this is.
  public enum Kind: String, Hashable, Sendable {
    /// The file is not a valid store file: truncated, garbage, a wrong checksum, or the wrong shape.
    case corrupt
    /// The file was written by a newer format version than this library reads.
    case unsupportedVersion
    /// Something other than a directory is where a storage directory should be.
    case notADirectory
    /// A directory (or something else) is where a storage file should be.
    case notAFile
    /// The operating system refused a call (`detail` names it and its errno).
    case io
    /// A value is too large to store (an outbox operation over the outbox's byte bound).
    case tooLarge
  }

  /// What kind of failure this is.
  public var kind: Kind
  /// The file or directory concerned.
  public var path: String
  /// Where a corrupt file was moved, when it was.
  public var movedAsideTo: String?
  /// The reason, for logs: a system call and its error, or which check failed. Never stored content.
  public var detail: String

  /// A failure of `kind` at `path`.
  public init(_ kind: Kind, path: String, detail: String = "", movedAsideTo: String? = nil) {
    self.kind = kind
    self.path = path
    self.detail = detail
    self.movedAsideTo = movedAsideTo
  }

  /// `kind: path (detail)`, for logs.
  public var description: String {
    var text = "\(kind.rawValue): \(path)"
    if !detail.isEmpty { text += " (\(detail))" }
    if let movedAsideTo { text += ", moved aside to \(movedAsideTo)" }
    return text
  }

  /// A failed system call, with the errno it set.
  static func io(_ call: String, path: String) -> PersistenceError {
    let code = errno
    return PersistenceError(
      .io, path: path, detail: "\(call) failed: \(String(cString: strerror(code))) (errno \(code))")
  }

  /// A file that failed a check while being read.
  static func corrupt(_ path: String, _ reason: String) -> PersistenceError {
    PersistenceError(.corrupt, path: path, detail: reason)
  }
}
