import CSQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One connection to an SQLite database file, with its prepared statements.
///
/// Every failure is a `PersistenceError` naming the file and SQLite's message, never a value that was bound
/// (those are people's messages).
// @unchecked Sendable: a connection is opened without SQLite's own mutex (NOMUTEX), so one thread at a time
// must use it. Each one is created by, and only ever reachable through, a `MessageArchive` that lives inside
// a `SharedArchive`'s `StateLock` (every use is between that lock's lock and unlock), or is one call's local
// (`ScopeDirectory.copyArchivedMessages`, the storage inventory).
final class SQLiteDatabase: @unchecked Sendable {
  let path: String
  private var handle: OpaquePointer?
  private var statements: [String: OpaquePointer] = [:]

  /// Opens (creating with mode 0600) the database at `path` in write-ahead-log mode. SQLite creates its
  /// `-wal` and `-shm` files with the database file's mode, so creating that first keeps all three private.
  init(path: String) throws(PersistenceError) {
    self.path = path
    let created = open(path, O_RDWR | O_CREAT | O_CLOEXEC, FileSystem.fileMode)
    guard created >= 0 else { throw .io("open", path: path) }
    FileSystem.closeFile(created)
    var handle: OpaquePointer?
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
    let code = sqlite3_open_v2(path, &handle, flags, nil)
    self.handle = handle
    guard code == SQLITE_OK else {
      let error = failure(code, "open")
      close()
      throw error
    }
    sqlite3_extended_result_codes(handle, 1)
    // Another process (or connection) writing the same scope waits for it rather than failing at once.
    sqlite3_busy_timeout(handle, 5_000)
    do throws(PersistenceError) {
      // Reading the schema is the first read of the file: a file that is not a database fails here.
      try execute("PRAGMA journal_mode=WAL")
      // A commit is durable once the log reaches the disk at a checkpoint; `checkpoint()` forces one before
      // the conversation journal forgets what only the archive then holds (see `MessageArchive`).
      try execute("PRAGMA synchronous=NORMAL")
    } catch {
      close()
      throw error
    }
  }

  deinit { close() }

  func close() {
    for statement in statements.values { sqlite3_finalize(statement) }
    statements = [:]
    if let handle { sqlite3_close_v2(handle) }
    handle = nil
  }

  /// Runs SQL that returns no rows (schema, pragmas, transactions).
  func execute(_ sql: String) throws(PersistenceError) {
    var message: UnsafeMutablePointer<CChar>?
    let code = sqlite3_exec(handle, sql, nil, nil, &message)
    defer { sqlite3_free(message) }
    guard code == SQLITE_OK else { throw failure(code, sql.prefix(while: { $0 != " " }).lowercased()) }
  }

  /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
  func transaction<T>(_ body: () throws(PersistenceError) -> T) throws(PersistenceError) -> T {
    try StorageFaults.check("write", path: path)
    try execute("BEGIN IMMEDIATE")
    do throws(PersistenceError) {
      let result = try body()
      try execute("COMMIT")
      return result
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
  }

  /// The prepared statement for `sql` (prepared once per connection), reset and with its bindings cleared.
  func statement(_ sql: String) throws(PersistenceError) -> Statement {
    if let prepared = statements[sql] {
      sqlite3_reset(prepared)
      sqlite3_clear_bindings(prepared)
      return Statement(handle: prepared, database: self)
    }
    var prepared: OpaquePointer?
    let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
    guard code == SQLITE_OK, let prepared else { throw failure(code, "prepare") }
    statements[sql] = prepared
    return Statement(handle: prepared, database: self)
  }

  /// Copies the write-ahead log into the database file and syncs it: everything committed so far survives
  /// a power cut from here on.
  func checkpoint() throws(PersistenceError) {
    let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_FULL, nil, nil)
    guard code == SQLITE_OK else { throw failure(code, "checkpoint") }
  }

  /// The error for result `code` of `operation`: damaged files are `corrupt` (moved aside by the caller),
  /// everything else `io`.
  func failure(_ code: Int32, _ operation: String) -> PersistenceError {
    let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
    let detail = "\(operation) failed: \(message) (SQLite \(code))"
    switch code & 0xFF {
    case SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_FORMAT: return PersistenceError(.corrupt, path: path, detail: detail)
    default: return PersistenceError(.io, path: path, detail: detail)
    }
  }

  /// One use of a prepared statement: bind by position (from 1), then step through its rows.
  struct Statement {
    let handle: OpaquePointer
    let database: SQLiteDatabase

    func bind(_ index: Int32, _ value: String?) {
      guard var value else { return bindNull(index) }
      // With its length: text may hold NUL, which a C string would end at. Empty text still needs a
      // non-null pointer, or SQLite binds NULL.
      value.withUTF8 { utf8 in
        let base = UnsafeRawPointer(utf8.baseAddress) ?? UnsafeRawPointer(bitPattern: 1)!
        _ = sqlite3_bind_text(
          handle, index, base.assumingMemoryBound(to: CChar.self), Int32(utf8.count), csqlite_transient())
      }
    }

    func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }

    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }

    func bind(_ index: Int32, _ bytes: [UInt8]) {
      bytes.withUnsafeBytes { raw in
        // An empty array has no base address; a zero-length blob still needs a non-null pointer.
        _ = sqlite3_bind_blob(
          handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count), csqlite_transient())
      }
    }

    func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index) }

    /// Makes the statement ready to run again (its bindings stay until bound anew).
    func reset() { sqlite3_reset(handle) }

    /// Moves to the next row: true when there is one, false when the statement is done.
    func step() throws(PersistenceError) -> Bool {
      let code = sqlite3_step(handle)
      switch code {
      case SQLITE_ROW: return true
      case SQLITE_DONE: return false
      default: throw database.failure(code, "step")
      }
    }

    /// Runs a statement that returns no rows.
    func run() throws(PersistenceError) { _ = try step() }

    func text(_ column: Int32) -> String? {
      guard let pointer = sqlite3_column_text(handle, column) else { return nil }
      let count = Int(sqlite3_column_bytes(handle, column))
      return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// The blob in `column`, read in place by `body` (valid only inside it).
    func withBlob<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws(PersistenceError) -> T)
      throws(PersistenceError) -> T
    {
      let count = Int(sqlite3_column_bytes(handle, column))
      let base = sqlite3_column_blob(handle, column)
      return try body(UnsafeRawBufferPointer(start: count == 0 ? nil : base, count: count))
    }
  }
}
