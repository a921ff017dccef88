import ConversationState
import Persistence

extension ChatClient {
  /// Searches what this device stored for the person signed in (or the guest): every conversation, or only
  /// `conversationID`'s. A page of up to `limit` results, newest first; pass `page.next` as `after` for the
  /// next one.
  ///
  /// ```swift
  /// let page = try await client.search("refund")
  /// for (conversation, results) in page.byConversation { print(conversation, results.count) }
  /// ```
  ///
  /// It runs on the client's storage worker, after every write queued before it. It finds what is written:
  /// a conversation's follower writes each snapshot to the worker just after the store publishes it, so a
  /// message that arrived this very instant may be found only by the next search. What is searched and how words match: `ScopeDirectory.search` and
  /// `SearchWords`. Without storage (`ChatClientOptions.storage` nil) nothing is stored and every page is
  /// empty. Throws `tooLarge` for too many or too long words, and what reading the disk threw.
  public func search(
    _ words: String, in conversationID: ConversationID? = nil, after cursor: SearchCursor? = nil, limit: Int = 20
  ) async throws(PersistenceError) -> SearchPage {
    let storage = storage
    let result = await worker.run { () -> Result<SearchPage, PersistenceError> in
      guard let scope = storage.withLock({ $0.scope }) else { return .success(.empty) }
      do throws(PersistenceError) {
        return .success(try scope.search(words, in: conversationID, after: cursor, limit: limit))
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }
}
