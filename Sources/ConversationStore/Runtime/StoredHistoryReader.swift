import ConversationState
import Persistence

/// Reads up to `limit` stored messages of a conversation just older than a position in server order,
/// oldest first, and whether more are stored before them: the runtime's answer to `fetchStoredHistory`
/// (`HistoryPaging.hasStoredHistory`). `ChatClient` supplies one over its storage, on its worker; a host
/// that wires a store to a `ConversationFile` by hand passes `file.historyReader`.
public typealias StoredHistoryReader =
  @Sendable (ConversationID, _ before: MessageOrderKey, _ limit: Int) async throws -> (
    messages: [Message], hasMore: Bool
  )

extension ConversationFile {
  /// This file's older pages, for `ChatStore(_:backend:storedHistory:)`:
  ///
  /// ```swift
  /// let store = ChatStore(file.restored ?? ConversationState(conversationID: id), backend: backend,
  ///                       storedHistory: file.historyReader)
  /// ```
  ///
  /// It reads the disk on the task that asks (the runtime's request task, never the caller of `send`); a
  /// read that fails is `STORAGE_FAILED`, and paging goes on from the server.
  public var historyReader: StoredHistoryReader {
    { _, before, limit in
      do throws(PersistenceError) {
        return try self.storedMessages(before: before, limit: limit)
      } catch {
        throw ChatError(.storageFailed, "Stored history could not be read: \(error)")
      }
    }
  }
}
