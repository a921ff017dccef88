import ConversationState
import Persistence

/// Reads up to `limit` stored messages of a conversation just older (`.before`) or just newer (`.after`)
/// than a position in server order, oldest first, and whether more are stored beyond them in that
/// direction: the runtime's answer to `fetchStoredHistory` (`HistoryPaging.hasStoredHistory`) and
/// `fetchNewerStoredHistory` (`HistoryPaging.newerGap`). `ChatClient` supplies one over its storage, on
/// its worker; a host that wires a store to a `ConversationFile` by hand passes `file.historyReader`.
public typealias StoredHistoryReader =
  @Sendable (ConversationID, StoredHistoryQuery, _ limit: Int) async throws -> (
    messages: [Message], hasMore: Bool
  )

/// Which side of a position in server order a `StoredHistoryReader` reads.
public enum StoredHistoryQuery: Hashable, Sendable {
  /// The page just older than the key (scrolling up).
  case before(MessageOrderKey)
  /// The page just newer than the key (scrolling back down to the newest messages).
  case after(MessageOrderKey)
}

extension ConversationFile {
  /// This file's older pages, for `ChatStore(_:backend:storedHistory:)`:
  ///
  /// ```swift
  /// let store = ChatStore(
  ///   file.restored ?? ConversationState(conversationID: id), backend: backend,
  ///   storedHistory: file.historyReader)
  /// ```
  ///
  /// It reads the disk on the task that asks (the runtime's request task, never the caller of `send`); a
  /// read that fails is `STORAGE_FAILED`, and paging goes on from the server.
  public var historyReader: StoredHistoryReader {
    { _, query, limit in
      do throws(PersistenceError) {
        return try self.storedMessages(query, limit: limit)
      } catch {
        throw ChatError(.storageFailed, "Stored history could not be read: \(error)")
      }
    }
  }
}

extension ConversationFile {
  /// The stored page `query` asks for (`storedMessages(before:limit:)` or `storedMessages(after:limit:)`).
  public func storedMessages(_ query: StoredHistoryQuery, limit: Int) throws(PersistenceError) -> (
    messages: [Message], hasMore: Bool
  ) {
    switch query {
    case .before(let key): return try storedMessages(before: key, limit: limit)
    case .after(let key): return try storedMessages(after: key, limit: limit)
    }
  }
}
