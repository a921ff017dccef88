import ConversationState

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Faults the tests inject at the storage's writes: every write under a folder fails with a system error
/// (`ENOSPC`, a full disk; `EACCES`, a folder whose permissions changed) until the fault is lifted. It is
/// checked where the storage's bytes meet the system (`FileSystem.writeAll`, the archive's transactions), so
/// every write the storage makes (journal appends, rewrites, the archive, the outbox, the list file, the
/// installation's files) fails as it would on such a disk, and nothing else changes.
///
/// Package-only: nothing in the library sets it. A fault names a folder, so tests running side by side in
/// one process, each under its own temporary root, never see each other's.
package enum StorageFaults {
  private static let active = StateLock<[String: Int32]>([:])

  /// From now on every write under `folder` fails with `code` (an errno).
  package static func failWrites(under folder: String, with code: Int32) {
    active.withLock { $0[folder] = code }
  }

  /// Writes under `folder` work again.
  package static func lift(under folder: String) {
    active.withLock { $0[folder] = nil }
  }

  /// Throws the injected failure of a write to `path`, as the system call `call` would fail.
  static func check(_ call: String, path: String) throws(PersistenceError) {
    let code = active.withLock { faults -> Int32? in
      guard !faults.isEmpty else { return nil }
      return faults.first { path.hasPrefix($0.key) }?.value
    }
    guard let code else { return }
    errno = code
    throw PersistenceError.io(call, path: path)
  }
}
