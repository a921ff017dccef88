/// What a request in flight is for, so its result (or failure) can be applied, or ignored once stale.
public enum PendingRequest: Hashable, Sendable, Codable {
  /// Sending the user's message; its stream carries the agent's reply.
  case send(ClientMessageID)
  /// Regenerating the answer with this client ID.
  case regenerate(answer: ClientMessageID)
  /// An older (or the first) history page.
  case history
  /// Messages missed while disconnected.
  case sync
  /// Rating an answer from `previous` to `requested`; a failure rolls back unless a later rating won.
  case rating(ClientMessageID, previous: Rating, requested: Rating)
  /// Rating the conversation; `previous` is the moment to roll back to on failure.
  case feedback(previous: FeedbackMoment)
  /// Opening the realtime connection.
  case connect
  /// Creating a support ticket.
  case ticket
  /// Saving the read cursor at the server.
  case readCursor(ServerMessageID)
  /// Getting a fresh credential from the host.
  case credentials
  /// Uploading an attachment of a message that waits for it.
  case upload(ClientMessageID, AttachmentID)
  /// Running the app-side tool call `call` of the reply streamed by `reply`.
  case tool(ToolCallID, reply: RequestID)
  /// Sending the result of the app-side tool call to the backend.
  case toolResult(ToolCallID)
  /// A reply streaming over the realtime connection (no request of ours carries it); it ends with its
  /// finish, or is interrupted when the connection goes.
  case realtimeReply(ServerMessageID)
  /// A run continuing the answer `answer` with the app's tool results or the user's answers.
  case continuation(answer: ClientMessageID)

  /// Whether this request streams a reply (a send, a regeneration, a continuation run, a reply over the
  /// realtime connection): only these take a reply's finish or end.
  public var streamsReply: Bool {
    switch self {
    case .send, .regenerate, .continuation, .realtimeReply: true
    default: false
    }
  }

  /// Whether a failure of this request is the user's to see (`userError`) rather than a background one.
  public var isUserInitiated: Bool {
    switch self {
    case .send, .regenerate, .rating, .feedback, .ticket, .continuation: return true
    case .history: return true
    case .sync, .connect, .readCursor, .credentials, .realtimeReply, .tool, .toolResult: return false
    case .upload: return true
    }
  }
}

/// A timer a reducer asked for; it comes back as `timerFired`.
public enum TimerID: Hashable, Sendable, Codable {
  /// A participant's typing indicator expires.
  case typingExpiry(ParticipantID)
  /// Try to connect again.
  case reconnect
  /// Fetch the missed messages again after a failed sync.
  case resync
  /// Resume the streaming reply whose stream dropped (`ReplyResumption`).
  case replyResume
  /// The server's `retryAfter` has passed: held sends may go out again.
  case rateLimitOver
  /// Poll for new messages while the realtime connection is down (`ChatPolicy.pollInterval`).
  case poll
  /// Release the next part of a paced reply's text.
  case pace
  /// The realtime connection has stayed open for `ChatPolicy.healthyConnectionAfter`: it counts as healthy,
  /// and the reconnect backoff starts again from its base.
  case connectionHealthy
}
