import ConversationState

/// The one connection to a scope's message archive that every conversation file of the scope, and its
/// search, use in this process.
///
/// One connection per conversation file was a leak: SQLite keeps the descriptor of a closed connection open
/// while another connection in the process holds a lock on the same file (closing it would drop that
/// connection's POSIX locks), and a connection in WAL mode holds one for as long as it is open. A client that
/// opened a thousand conversations one after another held a thousand descriptors, whatever it had closed.
/// Shared, the archive costs one connection per scope in use.
///
/// Kept while some conversation file uses it (the registry holds it weakly), so it closes with the last one.
final class SharedArchive: Sendable {
  /// Whether opening found the archive unreadable and replaced it with an empty one: every conversation
  /// opened from this connection pages its older history from the server again.
  let wasReplaced: Bool
  private let archive: StateLock<MessageArchive>

  private init(_ archive: MessageArchive, wasReplaced: Bool) {
    self.archive = StateLock(archive)
    self.wasReplaced = wasReplaced
  }

  /// Runs `body` with the connection, one caller at a time (SQLite's own mutex is off).
  func with<T: Sendable>(_ body: (MessageArchive) throws(PersistenceError) -> T) throws(PersistenceError) -> T {
    try archive.withLock { (archive: inout MessageArchive) throws(PersistenceError) -> T in try body(archive) }
  }

  /// A weak reference, so the registry never keeps a connection open.
  private struct Entry: @unchecked Sendable {
    // @unchecked Sendable: `archive` is a weak reference to a Sendable class, read and written only under
    // the registry's lock.
    weak var archive: SharedArchive?
  }

  private static let registry = StateLock<[String: Entry]>([:])

  /// The archive of `directory`: the connection already open in this process, or a new one (see
  /// `MessageArchive.open`: a damaged archive is moved aside and replaced). The database is opened outside
  /// the registry's lock; two callers racing for a new one both open it, and the second uses the first's.
  static func open(in directory: String, events: StorageEvents) throws(PersistenceError) -> SharedArchive {
    let path = "\(directory)/\(MessageArchive.fileName)"
    if let open = registry.withLock({ $0[path]?.archive }) { return open }
    let opened = try MessageArchive.open(in: directory, events: events)
    let fresh = SharedArchive(opened.archive, wasReplaced: opened.wasReplaced)
    return registry.withLock { registry -> SharedArchive in
      if let open = registry[path]?.archive { return open }
      registry = registry.filter { $0.value.archive != nil }
      registry[path] = Entry(archive: fresh)
      return fresh
    }
  }
}
