public import ConversationState
import Foundation

/// Your server, as the store's runtime needs it. Implement it once per backend; the store does the rest
/// (request IDs, stale results, retries, ordering).
///
/// Only `send`, `history`, `messages(after:)` and `realtime` are required; the rest have defaults that
/// report `unsupported`, so a backend without ratings or tickets compiles as it is.
///
/// Throw a `ChatError` for failures the UI should classify (a 429, an unknown agent); any other error is
/// reported as a retryable `NETWORK` error. Cancellation is yours to honour when you can: a cancelled
/// request's results are ignored either way.
///
/// ```swift
/// struct MyServer: ChatBackend {
///   func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
///     AsyncThrowingStream { continuation in
///       let task = Task {
///         let response = try await api.post("/messages", payload)   // your HTTP client
///         continuation.yield(.accepted(response.message, conversationID: response.conversationID))
///         for try await event in api.events(response.streamURL) {      // e.g. an SSE decoder
///           continuation.yield(event.asReplyEvent)                     // .started, .delta, .finished…
///         }
///         continuation.finish()
///       }
///       continuation.onTermination = { _ in task.cancel() }
///     }
///   }
///   func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws -> HistoryPage { … }
///   func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] { … }
///   func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> { … }
/// }
/// ```
public protocol ChatBackend: Sendable {
  /// Sends a message (creating the conversation when `payload.conversationID` is nil) and streams what
  /// follows: `.accepted` first, then the agent's reply. Finish the stream when the reply is over; a stream
  /// that finishes without `.finished` leaves the reply interrupted.
  func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error>
  /// Streams a new answer to the user's message `prompt`.
  func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  /// A page of messages older than `cursor` (the newest page when nil).
  func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws -> HistoryPage
  /// The messages after `after` (all when nil), to catch up after a reconnect.
  func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message]
  /// The realtime connection: yield `.opened` once live, then events. Finishing or throwing means the
  /// connection is lost; the store reconnects with backoff (never after an authorization failure).
  func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error>
  /// A page of the user's conversations, most recent activity first.
  func conversations(after cursor: PageCursor?, limit: Int) async throws -> ConversationPage
  func rate(_ message: ServerMessageID, in conversation: ConversationID, as rating: Rating) async throws
  func submitFeedback(_ rating: Rating, comment: String?, in conversation: ConversationID) async throws
  func sendTyping(_ isTyping: Bool, in conversation: ConversationID) async throws
  func createTicket(_ draft: TicketDraft, from conversation: ConversationID?) async throws -> TicketReceipt
}

/// What a send or regeneration stream carries.
public enum ReplyEvent: Equatable, Sendable {
  /// The server accepted the user's message (sends only).
  case accepted(Message, conversationID: ConversationID)
  case started(agent: AgentInfo?)
  case delta(String)
  case toolCall(ToolCall)
  case toolResult(ToolCallID, ToolCall.Outcome)
  /// The reply is complete; `message` is the server's copy of it.
  case finished(Message)
}

/// What the realtime connection carries.
public enum RealtimeUpdate: Equatable, Sendable {
  /// The connection is live.
  case opened
  case event(ConversationID, RealtimeEvent)
}

extension ChatError {
  /// What an optional backend feature reports when the backend does not have it.
  public static func unsupported(_ feature: String) -> ChatError {
    ChatError("UNSUPPORTED", "This backend does not support \(feature).", status: 501)
  }
}

extension ChatBackend {
  public func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    AsyncThrowingStream { $0.finish(throwing: ChatError.unsupported("regenerating answers")) }
  }
  public func conversations(after cursor: PageCursor?, limit: Int) async throws -> ConversationPage {
    throw ChatError.unsupported("a conversation list")
  }
  public func rate(_ message: ServerMessageID, in conversation: ConversationID, as rating: Rating) async throws {
    throw ChatError.unsupported("ratings")
  }
  public func submitFeedback(_ rating: Rating, comment: String?, in conversation: ConversationID) async throws {
    throw ChatError.unsupported("conversation feedback")
  }
  public func sendTyping(_ isTyping: Bool, in conversation: ConversationID) async throws {}
  public func createTicket(_ draft: TicketDraft, from conversation: ConversationID?) async throws -> TicketReceipt {
    throw ChatError.unsupported("tickets")
  }
}
