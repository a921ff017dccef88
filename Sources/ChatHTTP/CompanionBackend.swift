public import ConversationState
public import ConversationStore

/// A backend for an agent protocol that carries replies only (AG-UI, the AI SDK UI message stream, OpenAI's
/// streams), whose other calls go to `companion`, the host's own backend. Conforming gets every call but the
/// runs: history pages, the conversation list, ratings, feedback, typing, read state, tickets, uploads, the
/// outbox and realtime events go to the companion. Without one, those calls fail `UNSUPPORTED` (typing and
/// read state do nothing), history is empty, and the realtime connection opens and stays quiet (ending it
/// would make the store reconnect).
public protocol CompanionBackend: ChatBackend {
  /// The host's backend for what the protocol does not carry; nil when there is none.
  var companion: (any ChatBackend)? { get }
}

extension CompanionBackend {
  public func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws
    -> HistoryPage
  {
    guard let companion else { return HistoryPage(messages: [], nextCursor: nil, hasMore: false) }
    return try await companion.history(of: conversation, before: cursor, limit: limit)
  }

  public func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] {
    try await companion?.messages(in: conversation, after: after) ?? []
  }

  public func catchUp(in conversation: ConversationID, after: ServerMessageID?) async throws -> CatchUpPage {
    try await companion?.catchUp(in: conversation, after: after) ?? CatchUpPage(messages: [], hasMore: false)
  }

  public func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    if let companion { return companion.realtime(conversation: conversation) }
    return AsyncThrowingStream { $0.yield(.opened) }
  }

  public func conversations(after cursor: PageCursor?, limit: Int) async throws -> ConversationPage {
    guard let companion else { throw ChatError.unsupported("a conversation list") }
    return try await companion.conversations(after: cursor, limit: limit)
  }

  public func updateConversation(_ conversation: ConversationID, _ change: ConversationChange) async throws {
    guard let companion else { throw ChatError.unsupported("a conversation list") }
    try await companion.updateConversation(conversation, change)
  }

  public func deleteConversation(_ conversation: ConversationID) async throws {
    guard let companion else { throw ChatError.unsupported("a conversation list") }
    try await companion.deleteConversation(conversation)
  }

  public func rate(_ message: ServerMessageID, in conversation: ConversationID, as rating: Rating) async throws {
    guard let companion else { throw ChatError.unsupported("ratings") }
    try await companion.rate(message, in: conversation, as: rating)
  }

  public func submitFeedback(_ rating: Rating, comment: String?, in conversation: ConversationID) async throws {
    guard let companion else { throw ChatError.unsupported("conversation feedback") }
    try await companion.submitFeedback(rating, comment: comment, in: conversation)
  }

  public func sendTyping(_ isTyping: Bool, in conversation: ConversationID) async throws {
    try await companion?.sendTyping(isTyping, in: conversation)
  }

  public func markRead(upTo message: ServerMessageID, in conversation: ConversationID) async throws {
    try await companion?.markRead(upTo: message, in: conversation)
  }

  public func createTicket(_ draft: TicketDraft, from conversation: ConversationID?) async throws -> TicketReceipt {
    guard let companion else { throw ChatError.unsupported("tickets") }
    return try await companion.createTicket(draft, from: conversation)
  }

  public func upload(_ attachment: AttachmentUpload) -> AsyncThrowingStream<UploadEvent, any Error> {
    guard let companion else {
      return AsyncThrowingStream { $0.finish(throwing: ChatError.unsupported("attachment uploads")) }
    }
    return companion.upload(attachment)
  }

  public func uploadOutbox(_ batch: OutboxBatch) async throws -> OutboxReceipt {
    guard let companion else { throw ChatError.unsupported("offline outbox upload") }
    return try await companion.uploadOutbox(batch)
  }

  public func outboxEpochChanged(_ epoch: UInt64) { companion?.outboxEpochChanged(epoch) }

  public func updateContactDetails(_ details: ContactDetails) async throws {
    guard let companion else { throw ChatError.unsupported("contact details") }
    try await companion.updateContactDetails(details)
  }

  /// A run that fails at once with `error`, before anything is sent.
  package static func failing(_ error: ChatError) -> AsyncThrowingStream<ReplyEvent, any Error> {
    AsyncThrowingStream { $0.finish(throwing: error) }
  }
}
