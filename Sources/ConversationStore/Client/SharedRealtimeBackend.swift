import ConversationState

/// The client's backend as each of its stores sees it: the host's backend, except that `realtime` is a
/// subscription to the client's one shared connection.
struct SharedRealtimeBackend: ChatBackend {
  let backend: any ChatBackend
  let hub: RealtimeHub

  func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    hub.subscribe(conversation)
  }

  func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> { backend.send(payload) }

  func continueRun(_ continuation: RunContinuation, in conversation: ConversationID)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    backend.continueRun(continuation, in: conversation)
  }

  // Forwarded like every other call: the protocol's default answers `UNSUPPORTED`, and a reply the client's
  // stores could not resume ended `truncated` on every backend that can resume.
  func resumeReply(from cursor: ReplyCursor) -> AsyncThrowingStream<ReplyEvent, any Error> {
    backend.resumeReply(from: cursor)
  }

  func updateContactDetails(_ details: ContactDetails) async throws { try await backend.updateContactDetails(details) }

  func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    backend.regenerate(in: conversation, replyTo: prompt, answer: answer)
  }

  func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws -> HistoryPage {
    try await backend.history(of: conversation, before: cursor, limit: limit)
  }

  func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] {
    try await backend.messages(in: conversation, after: after)
  }

  func catchUp(in conversation: ConversationID, after: ServerMessageID?) async throws -> CatchUpPage {
    try await backend.catchUp(in: conversation, after: after)
  }

  func upload(_ attachment: AttachmentUpload) -> AsyncThrowingStream<UploadEvent, any Error> {
    backend.upload(attachment)
  }

  func submitToolResult(
    _ outcome: ToolCall.Outcome, for call: ToolCallID, in conversation: ConversationID, reply: RequestID
  ) async throws {
    try await backend.submitToolResult(outcome, for: call, in: conversation, reply: reply)
  }

  func markRead(upTo message: ServerMessageID, in conversation: ConversationID) async throws {
    try await backend.markRead(upTo: message, in: conversation)
  }

  func conversations(after cursor: PageCursor?, limit: Int) async throws -> ConversationPage {
    try await backend.conversations(after: cursor, limit: limit)
  }

  func rate(_ message: ServerMessageID, in conversation: ConversationID, as rating: Rating) async throws {
    try await backend.rate(message, in: conversation, as: rating)
  }

  func submitFeedback(_ rating: Rating, comment: String?, in conversation: ConversationID) async throws {
    try await backend.submitFeedback(rating, comment: comment, in: conversation)
  }

  func sendTyping(_ isTyping: Bool, in conversation: ConversationID) async throws {
    try await backend.sendTyping(isTyping, in: conversation)
  }

  func requestAgentState(in conversation: ConversationID?) async throws {
    try await backend.requestAgentState(in: conversation)
  }

  func createTicket(_ draft: TicketDraft, from conversation: ConversationID?) async throws -> TicketReceipt {
    try await backend.createTicket(draft, from: conversation)
  }

  func uploadOutbox(_ batch: OutboxBatch) async throws -> OutboxReceipt { try await backend.uploadOutbox(batch) }
}
