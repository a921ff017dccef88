import ConversationState
import Foundation

/// The scope's list of conversations in the archive's database, one row per conversation: what the list
/// pages from when the backend keeps none (an agent backend), so a sidebar of 10,000 stored conversations
/// opens at its first page without reading the others.
///
/// A table of its own, created if missing, as the journal marks are: an older version ignores it, and
/// nothing it holds is the only copy of a message (a row is the list's summary; the conversation is in its
/// journal and the archive).
extension MessageArchive {
  static let conversationIndexSchema = [
    """
    CREATE TABLE IF NOT EXISTS conversation_row(
      conversation TEXT PRIMARY KEY, body BLOB NOT NULL, last_activity REAL NOT NULL, pinned_at REAL)
    """,
    "CREATE INDEX IF NOT EXISTS conversation_row_order ON conversation_row(pinned_at IS NULL, pinned_at, last_activity DESC, conversation)",
  ]

  /// Stores `rows` (replacing a stored row of the same conversation) and deletes `removed`, in one
  /// transaction.
  func saveRows(_ rows: [ConversationSummary], removing removed: [ConversationID]) throws(PersistenceError) {
    guard !rows.isEmpty || !removed.isEmpty else { return }
    try database.transaction { () throws(PersistenceError) in
      let upsert = try database.statement(
        "INSERT OR REPLACE INTO conversation_row(conversation, body, last_activity, pinned_at) VALUES (?1, ?2, ?3, ?4)")
      defer { upsert.reset() }
      let encoder = JSONEncoder()
      for row in rows {
        let body: Data
        do {
          body = try encoder.encode(row)
        } catch {
          throw PersistenceError(.io, path: database.path, detail: "a list row does not encode: \(error)")
        }
        upsert.reset()
        upsert.bind(1, row.id.rawValue)
        upsert.bind(2, [UInt8](body))
        upsert.bind(3, row.lastActivityAt.timeIntervalSinceReferenceDate)
        if let pinnedAt = row.pinnedAt {
          upsert.bind(4, pinnedAt.timeIntervalSinceReferenceDate)
        } else {
          upsert.bindNull(4)
        }
        try upsert.run()
      }
      let delete = try database.statement("DELETE FROM conversation_row WHERE conversation = ?1")
      defer { delete.reset() }
      for id in removed {
        delete.reset()
        delete.bind(1, id.rawValue)
        try delete.run()
      }
    }
  }

  /// Up to `limit` rows from `offset`: pinned first (earliest pinned first), then by activity, newest first.
  /// O(offset + limit) through the index, never a sort of the whole table.
  func rows(from offset: Int, limit: Int) throws(PersistenceError) -> (
    rows: [ConversationSummary], hasMore: Bool, total: Int
  ) {
    let select = try database.statement(
      """
      SELECT body FROM conversation_row
      ORDER BY pinned_at IS NULL, pinned_at, last_activity DESC, conversation LIMIT ?1 OFFSET ?2
      """)
    defer { select.reset() }
    select.bind(1, Int64(max(0, limit)) + 1)
    select.bind(2, Int64(max(0, offset)))
    var rows: [ConversationSummary] = []
    let decoder = JSONDecoder()
    while try select.step() {
      guard rows.count < limit else { return (rows, true, try rowCount()) }
      let row = try select.withBlob(0) { (raw) throws(PersistenceError) -> ConversationSummary in
        do {
          return try decoder.decode(ConversationSummary.self, from: Data(raw))
        } catch {
          throw .corrupt(database.path, "a stored list row does not decode")
        }
      }
      rows.append(row)
    }
    return (rows, false, offset + rows.count)
  }

  private func rowCount() throws(PersistenceError) -> Int {
    let count = try database.statement("SELECT count(*) FROM conversation_row")
    defer { count.reset() }
    return try count.step() ? Int(count.int64(0)) : 0
  }
}
