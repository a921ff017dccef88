import ConversationState

/// A scope's committed messages, every one ever stored, in an SQLite database beside the conversation
/// journals: what lets a conversation open at its newest page and page older history from disk, and what
/// the search reads.
///
/// The journal (`ConversationFile`) stays the truth for what it holds (the newest messages, outgoing ones,
/// the reply, the meta and draft). Each persist writes the journal first and the archive second, so after a
/// crash the archive can only lag; opening a conversation writes what the journal wrote after the archive's
/// `JournalMark` into the archive again. The journal forgets a message (compaction keeps the newest
/// `window`) only after a checkpoint made the archive durable, so nothing is ever only in a log that a power
/// cut could lose.
///
/// Order is server order, `Message.orderKey`: server time, then the tie-break ID.
final class MessageArchive: Sendable {
  let database: SQLiteDatabase

  /// The archive format; a newer one is refused with `unsupportedVersion`. 2: a message's row may hold
  /// provider metadata, which a format-1 reader would take for a malformed row; an archive of format 1 is
  /// one of format 2 with no such message. 3: a row may be a message on a branch that is not shown
  /// (`off_screen`), which a format-2 reader would page into the conversation; opening an older archive
  /// adds the column, every row on screen. The message layout each stores is `messageLayout(format:)`.
  static let formatVersion: Int64 = 3

  /// The message layout (`MessageLayout`) archive format `format` stores.
  static func messageLayout(format: Int64) -> Int { format <= 1 ? 3 : 4 }

  static let fileName = "messages.sqlite"

  init(directory: String) throws(PersistenceError) {
    database = try SQLiteDatabase(path: "\(directory)/\(Self.fileName)")
    try migrate()
  }

  /// The archive in `directory`; one that cannot be read (damaged, or of a newer format) is moved aside,
  /// reported, and replaced by an empty one (`wasReplaced`: the conversations then page their older
  /// history from the server again).
  static func open(in directory: String, events: StorageEvents) throws(PersistenceError)
    -> (archive: MessageArchive, wasReplaced: Bool)
  {
    do throws(PersistenceError) {
      return (try MessageArchive(directory: directory), false)
    } catch  where error.isUnreadableContent {
      let path = "\(directory)/\(fileName)"
      _ = try FileSystem.moveAside(path)
      for suffix in ["-wal", "-shm"] {
        var isDirectory = false
        if FileSystem.exists(path + suffix, isDirectory: &isDirectory) { _ = try FileSystem.moveAside(path + suffix) }
      }
      events.report(.movedAside(kind: error.kind, file: path))
      return (try MessageArchive(directory: directory), true)
    }
  }

  private func migrate() throws(PersistenceError) {
    let version = try database.statement("PRAGMA user_version")
    defer { version.reset() }
    let found = try version.step() ? version.int64(0) : 0
    guard found <= Self.formatVersion else {
      throw PersistenceError(
        .unsupportedVersion, path: database.path,
        detail: "archive format \(found), newest known \(Self.formatVersion)")
    }
    if found < Self.formatVersion {
      try database.transaction { () throws(PersistenceError) in
        // A new database gets the newest tables; an older one gets what later formats added (format 2 only
        // stores a newer message layout in the same rows).
        if found == 0 {
          for sql in Self.schema { try database.execute(sql) }
        } else if found < 3 {
          try database.execute(Self.offScreenColumn)
        }
        try database.execute("PRAGMA user_version = \(Self.formatVersion)")
      }
    }
    // Added within format 1, so that an archive stays readable by the version before: that version ignores
    // the table and leaves the marks behind its own writes, and a stale mark only makes an open reconcile
    // more (see `JournalMark`).
    try database.execute(Self.markSchema)
    for sql in Self.conversationIndexSchema { try database.execute(sql) }
  }

  static let markSchema = """
    CREATE TABLE IF NOT EXISTS journal_mark(
      conversation TEXT PRIMARY KEY, length INTEGER NOT NULL, chain INTEGER NOT NULL)
    """

  /// Whether a row is a message on a branch that is not shown (format 3 on): searched, never paged.
  static let offScreenColumn = "ALTER TABLE message ADD COLUMN off_screen INTEGER NOT NULL DEFAULT 0"

  /// Messages by conversation and client ID, ordered by server order; the text index follows every row
  /// through triggers, in the same transaction, so it can never disagree with the messages.
  static let schema = [
    """
    CREATE TABLE message(
      id INTEGER PRIMARY KEY, conversation TEXT NOT NULL, client_id TEXT NOT NULL,
      created_at REAL NOT NULL, tie_break TEXT NOT NULL, body BLOB NOT NULL, text TEXT NOT NULL,
      UNIQUE(conversation, client_id))
    """,
    offScreenColumn,
    "CREATE INDEX message_order ON message(conversation, created_at, tie_break)",
    "CREATE INDEX message_time ON message(created_at, id)",
    // unicode61 folds case and, with remove_diacritics 2, accents: "cafe" finds "Café".
    """
    CREATE VIRTUAL TABLE message_text USING fts5(
      text, content='message', content_rowid='id', tokenize='unicode61 remove_diacritics 2')
    """,
    """
    CREATE TRIGGER message_inserted AFTER INSERT ON message BEGIN
      INSERT INTO message_text(rowid, text) VALUES (new.id, new.text);
    END
    """,
    """
    CREATE TRIGGER message_deleted AFTER DELETE ON message BEGIN
      INSERT INTO message_text(message_text, rowid, text) VALUES ('delete', old.id, old.text);
    END
    """,
    """
    CREATE TRIGGER message_updated AFTER UPDATE OF text ON message BEGIN
      INSERT INTO message_text(message_text, rowid, text) VALUES ('delete', old.id, old.text);
      INSERT INTO message_text(rowid, text) VALUES (new.id, new.text);
    END
    """,
  ]

  // MARK: - Writing

  /// Stores `messages` (committed ones; others are skipped) as on screen, `offScreen` as messages on
  /// branches that are not shown, and deletes `removed`, in one transaction. A message stored before is
  /// replaced, and a row whose bytes and place are unchanged is not written at all.
  ///
  /// `mark`, when given, is stored in the same transaction (alone when there is nothing else to write): the
  /// prefix of the journal this write completes.
  ///
  /// `offScreenIsComplete`: `offScreen` is every message of the conversation off screen, so any other row
  /// marked off screen goes back on screen, however old. A rewrite killed between its archive's transaction
  /// and its rename can have marked rows the journal's window no longer holds (a path that started in older
  /// history the user had paged in); the journal, whose branches are whole, says they are on screen.
  func write(
    _ messages: [Message], offScreen: [Message] = [], removing removed: [ClientMessageID],
    in conversation: ConversationID, mark: JournalMark? = nil, replacingFrom start: MessageOrderKey? = nil,
    offScreenIsComplete: Bool = false
  ) throws(PersistenceError) {
    let committed = messages.filter(\.isCommitted)
    let hidden = offScreen.filter(\.isCommitted)
    guard !committed.isEmpty || !hidden.isEmpty || !removed.isEmpty || mark != nil || offScreenIsComplete else {
      return
    }
    var removed = removed
    try database.transaction { () throws(PersistenceError) in
      if let mark { try storeMark(mark, in: conversation) }
      if let start {
        let kept = Set(committed.map(\.clientID)).union(hidden.map(\.clientID))
        removed += try clientIDs(from: start, in: conversation).filter { !kept.contains($0) }
      }
      let upsert = try database.statement(
        """
        INSERT INTO message(conversation, client_id, created_at, tie_break, body, text, off_screen)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
        ON CONFLICT(conversation, client_id) DO UPDATE SET
          created_at = excluded.created_at, tie_break = excluded.tie_break, body = excluded.body,
          text = excluded.text, off_screen = excluded.off_screen
        WHERE body != excluded.body OR off_screen != excluded.off_screen
        """)
      defer { upsert.reset() }
      var writer = ByteWriter(capacity: 512)
      for (group, isOffScreen) in [(committed, false), (hidden, true)] {
        for message in group {
          writer.bytes.removeAll(keepingCapacity: true)
          message.encode(into: &writer)
          let key = message.orderKey
          upsert.reset()
          upsert.bind(1, conversation.rawValue)
          upsert.bind(2, message.clientID.rawValue)
          upsert.bind(3, key.createdAt.timeIntervalSinceReferenceDate)
          upsert.bind(4, key.tieBreak)
          upsert.bind(5, writer.bytes)
          upsert.bind(6, message.text)
          upsert.bind(7, Int64(isOffScreen ? 1 : 0))
          try upsert.run()
        }
      }
      let delete = try database.statement("DELETE FROM message WHERE conversation = ?1 AND client_id = ?2")
      defer { delete.reset() }
      for clientID in removed {
        delete.reset()
        delete.bind(1, conversation.rawValue)
        delete.bind(2, clientID.rawValue)
        try delete.run()
      }
      if offScreenIsComplete {
        try showAgain(exceptFor: Set(hidden.map(\.clientID)), in: conversation)
      }
    }
  }

  /// Marks on screen every row of `conversation` marked off screen but the messages of `hidden`.
  private func showAgain(exceptFor hidden: Set<ClientMessageID>, in conversation: ConversationID)
    throws(PersistenceError)
  {
    let select = try database.statement("SELECT client_id FROM message WHERE conversation = ?1 AND off_screen = 1")
    defer { select.reset() }
    var marked: [ClientMessageID] = []
    select.bind(1, conversation.rawValue)
    while try select.step() { if let id = select.text(0) { marked.append(ClientMessageID(rawValue: id)) } }
    select.reset()  // done reading before the rows are written
    let show = try database.statement(
      "UPDATE message SET off_screen = 0 WHERE conversation = ?1 AND client_id = ?2")
    defer { show.reset() }
    for clientID in marked where !hidden.contains(clientID) {
      show.reset()
      show.bind(1, conversation.rawValue)
      show.bind(2, clientID.rawValue)
      try show.run()
    }
  }

  /// Deletes every stored message of `conversation`, its journal's mark and its list row.
  func removeConversation(_ conversation: ConversationID) throws(PersistenceError) {
    try database.transaction { () throws(PersistenceError) in
      for sql in [
        "DELETE FROM message WHERE conversation = ?1", "DELETE FROM journal_mark WHERE conversation = ?1",
        "DELETE FROM conversation_row WHERE conversation = ?1",
      ] {
        let delete = try database.statement(sql)
        defer { delete.reset() }
        delete.bind(1, conversation.rawValue)
        try delete.run()
      }
    }
  }

  private func storeMark(_ mark: JournalMark, in conversation: ConversationID) throws(PersistenceError) {
    let store = try database.statement(
      "INSERT OR REPLACE INTO journal_mark(conversation, length, chain) VALUES (?1, ?2, ?3)")
    defer { store.reset() }
    store.bind(1, conversation.rawValue)
    store.bind(2, Int64(mark.length))
    store.bind(3, Int64(bitPattern: mark.chain))
    try store.run()
  }

  /// How far into `conversation`'s journal this archive holds every committed message, nil when it does
  /// not know (see `JournalMark`).
  func mark(in conversation: ConversationID) throws(PersistenceError) -> JournalMark? {
    let read = try database.statement("SELECT length, chain FROM journal_mark WHERE conversation = ?1")
    defer { read.reset() }
    read.bind(1, conversation.rawValue)
    guard try read.step() else { return nil }
    return JournalMark(length: Int(read.int64(0)), chain: UInt64(bitPattern: read.int64(1)))
  }

  /// Writes every stored message of `conversation` into `destination`, a page at a time, those on branches
  /// not shown as such.
  func copy(_ conversation: ConversationID, to destination: MessageArchive) throws(PersistenceError) {
    for offScreen in [false, true] {
      var key = MessageOrderKey(createdAt: .distantFuture, tieBreak: "")
      while true {
        let page = try messages(before: key, in: conversation, limit: 1_000, offScreen: offScreen)
        try destination.write(
          offScreen ? [] : page.messages, offScreen: offScreen ? page.messages : [], removing: [], in: conversation)
        guard page.hasMore, let oldest = page.messages.first else { break }
        key = oldest.orderKey
      }
    }
  }

  /// Makes every write so far durable against a power cut (see the type's comment).
  func checkpoint() throws(PersistenceError) { try database.checkpoint() }

  /// The client IDs of the conversation's messages at or after `start` in server order, on screen or not.
  private func clientIDs(from start: MessageOrderKey, in conversation: ConversationID) throws(PersistenceError)
    -> [ClientMessageID]
  {
    let select = try database.statement(
      "SELECT client_id FROM message WHERE conversation = ?1 AND (created_at, tie_break) >= (?2, ?3)")
    defer { select.reset() }
    select.bind(1, conversation.rawValue)
    select.bind(2, start.createdAt.timeIntervalSinceReferenceDate)
    select.bind(3, start.tieBreak)
    var ids: [ClientMessageID] = []
    while try select.step() { if let id = select.text(0) { ids.append(ClientMessageID(rawValue: id)) } }
    return ids
  }

  // MARK: - Reading

  /// Up to `limit` messages just before `key` in server order, oldest first, and whether more are stored
  /// before them: those on screen, or with `offScreen` those on branches that are not shown. O(limit · log n)
  /// plus the other kind's rows in between: one index range.
  func messages(before key: MessageOrderKey, in conversation: ConversationID, limit: Int, offScreen: Bool = false)
    throws(PersistenceError) -> (messages: [Message], hasMore: Bool)
  {
    let select = try database.statement(
      """
      SELECT body FROM message WHERE conversation = ?1 AND (created_at, tie_break) < (?2, ?3) AND off_screen = ?5
      ORDER BY created_at DESC, tie_break DESC LIMIT ?4
      """)
    // Reset when done, or the statement would hold its read transaction open (and block checkpoints).
    defer { select.reset() }
    select.bind(1, conversation.rawValue)
    select.bind(2, key.createdAt.timeIntervalSinceReferenceDate)
    select.bind(3, key.tieBreak)
    select.bind(4, Int64(max(0, limit)) + 1)
    select.bind(5, Int64(offScreen ? 1 : 0))
    var messages: [Message] = []
    messages.reserveCapacity(limit)
    while try select.step() {
      guard messages.count < limit else { return (messages.reversed(), true) }
      messages.append(try Self.message(select, column: 0, path: database.path))
    }
    return (messages.reversed(), false)
  }

  /// Up to `limit` messages on screen just after `key` in server order, oldest first, and whether more are
  /// stored after them. O(limit · log n) plus the rows off screen in between: one index range.
  func messages(after key: MessageOrderKey, in conversation: ConversationID, limit: Int)
    throws(PersistenceError) -> (messages: [Message], hasMore: Bool)
  {
    let select = try database.statement(
      """
      SELECT body FROM message
      WHERE conversation = ?1 AND (created_at, tie_break) > (?2, ?3) AND off_screen = 0
      ORDER BY created_at, tie_break LIMIT ?4
      """)
    defer { select.reset() }
    select.bind(1, conversation.rawValue)
    select.bind(2, key.createdAt.timeIntervalSinceReferenceDate)
    select.bind(3, key.tieBreak)
    select.bind(4, Int64(max(0, limit)) + 1)
    var messages: [Message] = []
    messages.reserveCapacity(limit)
    while try select.step() {
      guard messages.count < limit else { return (messages, true) }
      messages.append(try Self.message(select, column: 0, path: database.path))
    }
    return (messages, false)
  }

  /// The newest `limit` messages on screen of `conversation`, oldest first, and whether more are stored
  /// before them.
  func newest(in conversation: ConversationID, limit: Int) throws(PersistenceError)
    -> (messages: [Message], hasMore: Bool)
  {
    try messages(
      before: MessageOrderKey(createdAt: .distantFuture, tieBreak: ""), in: conversation, limit: limit)
  }

  /// How many messages of `conversation` are stored (diagnostics, tests, `demo dump`): those on screen, or
  /// with `offScreen` those on branches that are not shown.
  func count(in conversation: ConversationID, offScreen: Bool = false) throws(PersistenceError) -> Int {
    let select = try database.statement("SELECT count(*) FROM message WHERE conversation = ?1 AND off_screen = ?2")
    defer { select.reset() }
    select.bind(1, conversation.rawValue)
    select.bind(2, Int64(offScreen ? 1 : 0))
    return try select.step() ? Int(select.int64(0)) : 0
  }

  static func message(_ statement: SQLiteDatabase.Statement, column: Int32, path: String)
    throws(PersistenceError) -> Message
  {
    try statement.withBlob(column) { (raw) throws(PersistenceError) -> Message in
      var reader = ByteReader(raw)
      do {
        return try Message(from: &reader)
      } catch {
        throw .corrupt(path, "a stored message does not decode")
      }
    }
  }
}
