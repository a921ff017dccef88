/// Who has the conversation.
///
/// `ongoing <-> takenOver`, and either `-> ended`. The server moves it; the client only follows, also from
/// errors that say so: an error that names a status (`ChatError.conversationStatus`) moves it there,
/// `CONVERSATION_NOT_FOUND` is `notFound` and `CHAT_UNAVAILABLE` is `unavailable`.
///
/// `CONVERSATION_NOT_ONGOING` alone is not taken as `ended`: servers also say it when a teammate took the
/// conversation over. Without a named status the store keeps the status it had, asks for the newest
/// history page (whose `HistoryPage.status` tells), and sends keep working until the page or a
/// `RealtimeEvent.statusChanged` says otherwise.
public enum ConversationStatus: String, Hashable, Sendable, Codable, CaseIterable {
  /// The AI agent answers. Sends and regenerations are allowed.
  case ongoing
  /// A human agent has it: sends go to them; regenerating an AI answer is refused.
  case takenOver
  /// Closed: no sends, no retries, no regenerations.
  case ended
  /// The server does not know this conversation (deleted, or never created for this user): no sends.
  case notFound
  /// Chat is not available right now (outside office hours, switched off): a disabled state, not an
  /// error to retry. A `statusChanged(.ongoing)` event re-enables it.
  case unavailable

  /// Whether the user may send (or re-send) messages: while the AI agent or a human agent has the chat.
  public var acceptsMessages: Bool { self == .ongoing || self == .takenOver }
}

/// What the AI agent is doing, for a "thinking…" or "running tool…" indicator.
public enum AgentActivity: Hashable, Sendable, Codable {
  /// Nothing in progress.
  case idle
  /// A send was accepted or a regeneration started; no text yet.
  case thinking
  /// The agent is running a tool.
  case runningTool(String)
  /// Text deltas are arriving.
  case generating
}
