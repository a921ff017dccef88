import ConversationStore
import ConversationTesting
import Foundation

/// The host's HTTP client for a support-chat server that pages forward, as the backends article's example
/// calls it; here it answers from a `ForwardPagingServer`.
struct SupportAPI: Sendable {
  /// What `GET /conversations/{id}/messages?after=<cursor>&limit=<n>` answers.
  struct MessagesAnswer: Sendable {
    var messages: [Message]
    var nextCursor: String?
    var total: Int?
  }

  let server: ForwardPagingServer

  func messages(in conversation: ConversationID, after cursor: String?, limit: Int) async throws -> MessagesAnswer {
    let page = try server.page(of: conversation, after: cursor, limit: limit)
    return MessagesAnswer(messages: page.messages, nextCursor: page.nextCursor, total: page.totalCount)
  }
}

// The article's backend, which the forward paging stories run a real store against.
// DOC-FORWARD-PAGING-BEGIN
struct SupportServer: ChatBackend {
  let api: SupportAPI
  let pages: ForwardPagedHistory

  init(api: SupportAPI, pageLimit: Int = 50, policy: ChatPolicy = ChatPolicy()) throws {
    self.api = api
    pages = try ForwardPagedHistory(serverPageLimit: pageLimit, policy: policy) { conversation, after, limit in
      // GET /conversations/{id}/messages?after=<cursor>&limit=50 → {messages, next_cursor, total_count?}
      let answer = try await api.messages(in: conversation, after: after, limit: limit)
      return ForwardPagedHistory.Page(
        messages: answer.messages, nextCursor: answer.nextCursor, totalCount: answer.total)
    }
  }

  func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws
    -> HistoryPage
  {
    try await pages.history(of: conversation, before: cursor, limit: limit)
  }
}
// DOC-FORWARD-PAGING-END

// What the stories do not use: history is all they ask of the server.
extension SupportServer {
  func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    AsyncThrowingStream { $0.finish(throwing: ChatError.unsupported("sending, in a paging story")) }
  }

  func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] { [] }

  func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    AsyncThrowingStream { $0.finish(throwing: ChatError.unsupported("realtime, in a paging story")) }
  }
}
