/// The I/O a conversation transition asks for. The store's runtime performs it; results come back as
/// actions tagged with the effect's `RequestID` (which carries the identity epoch).
public enum ConversationEffect: Equatable, Sendable, Codable {
  /// Send a message (creating the conversation when `conversationID` is nil) and stream the reply.
  case sendMessage(RequestID, SendPayload)
  /// Stream a new answer to the user's message `replyTo` (the prompt of the answer being regenerated).
  case regenerate(RequestID, ConversationID, replyTo: ServerMessageID, answer: ServerMessageID?)
  /// Cancel a request in flight; its late results are ignored anyway.
  case cancel(RequestID)
  case fetchHistory(RequestID, ConversationID, cursor: PageCursor?, limit: Int)
  /// Read up to `limit` stored messages just older than `before` from this device's storage (see
  /// `HistoryPaging.hasStoredHistory`); answered with `storedHistoryLoaded`, or `requestFailed`.
  case fetchStoredHistory(RequestID, ConversationID, before: MessageOrderKey, limit: Int)
  /// Read up to `limit` stored messages just newer than `after` (`HistoryPaging.newerGap`); answered with
  /// `storedHistoryLoaded` (and whether more are stored after them), or `requestFailed`.
  case fetchNewerStoredHistory(RequestID, ConversationID, after: MessageOrderKey, limit: Int)
  /// Fetch the messages after `after` (all, when nil) to catch up after a reconnect.
  case fetchMessagesAfter(RequestID, ConversationID, after: ServerMessageID?)
  case submitRating(RequestID, ConversationID, ServerMessageID, Rating)
  case submitFeedback(RequestID, ConversationID, Rating, comment: String?)
  case sendTypingSignal(ConversationID, isTyping: Bool, epoch: IdentityEpoch)
  case startTimer(TimerID, seconds: Double)
  case cancelTimer(TimerID)
  /// Open the realtime connection: for one conversation, or with nil for all of the user's events. Report
  /// success as `connectionOpened`, events as `realtime(…, connection:)` and the end as `connectionLost`,
  /// each with this request ID. The connection stays in `requests` while it is live; closing it is
  /// `.cancel` of this request ID.
  case connectRealtime(RequestID, ConversationID?)
  case createTicket(RequestID, ConversationID?, TicketDraft)
  /// Tell the server the user has read up to `upTo`. Coalesced: one in flight at a time, and the newest
  /// cursor goes out when it completes. Report `readCursorSaved` or `requestFailed`.
  case submitReadCursor(RequestID, ConversationID, upTo: ServerMessageID)
  /// Upload `attachment` (its `source`) of the waiting message `message`. Report `uploadProgressed` as it
  /// goes and `uploadFinished` with the stored file's URL, or `requestFailed`. The message is sent once
  /// every attachment is uploaded.
  case uploadAttachment(RequestID, ClientMessageID, MessageAttachment)
  /// Run the app-side tool `call` with the handler the host registered under its name, giving up after
  /// `deadline` seconds. Report `toolRan` with the outcome (a missing or throwing handler, or a timeout, is a
  /// failed outcome the agent is told about, never a hang).
  case runTool(RequestID, ToolCall, deadline: Double)
  /// Send the outcome of the app-side tool call `call` to the backend, for the reply streamed by `reply`.
  /// Report `requestSucceeded` or `requestFailed`.
  case submitToolResult(RequestID, ConversationID, reply: RequestID, ToolCallID, ToolCall.Outcome)
  /// Ask the host's credential provider for a fresh credential after an authorization failure. Report
  /// `credentialsRefreshed`, or `requestFailed` when none can be had (the state then shows
  /// `needsCredentials`). Asked at most once per failure: a failure right after a refresh is surfaced.
  case refreshCredentials(RequestID)
  /// Store what the user did offline (a message, a rating, feedback, a read-cursor move) in the durable
  /// outbox (`ChatPolicy.offlineDelivery == .outbox`). Report `outboxRecorded` once a message is on disk, and
  /// `outboxRejected` when an operation could not be stored.
  indirect case enqueueOutbox(OutboxOperation)
  /// A change to the agent's shared state did not apply: ask the agent for its whole state again
  /// (`ChatBackend.requestAgentState(in:)`); it arrives as `agentStateSnapshot`.
  case requestAgentStateSnapshot(ConversationID?)
  /// Start the run that continues an answer that waited (for the app's tool results, for the user's
  /// answers): `ChatBackend.continueRun`. Its events come back under this request ID, as a send's do, and
  /// continue the same answer in its row.
  indirect case continueRun(RequestID, ConversationID, RunContinuation)
  /// Resume the streaming reply whose stream dropped, from `cursor` (`ChatBackend.resumeReply`). Its events
  /// come back under this request ID and continue the same reply in its row; events it replays at or before
  /// the cursor are dropped.
  case resumeReply(RequestID, ReplyCursor)
  /// The user gave or revoked a standing approval (`ApprovalMemory.always`): hand the change to whoever
  /// keeps the person's approvals (`ChatClient`), which tells their other conversations. No answer comes
  /// back as an action; a store without a keeper drops it (the state keeps it for the store's life).
  case changeStandingApprovals(StandingApprovalChange)
}

/// What a send effect sends.
public struct SendPayload: Hashable, Sendable, Codable {
  public var conversationID: ConversationID?
  /// The idempotency key: a retry sends the same one.
  public var clientID: ClientMessageID
  public var text: String
  public var attachments: [MessageAttachment]
  /// Where the message goes on the path on screen, in a conversation that has branches
  /// (`ConversationState.branches`): an edit follows the message before the one it edits (or comes first),
  /// and after a switch a send follows the last message of the branch shown. Nil in a conversation without
  /// branches and while a reply streams: the message follows the server's newest. A backend that keeps no
  /// branches ignores it.
  public var placement: MessagePlacement?

  public init(
    conversationID: ConversationID?, clientID: ClientMessageID, text: String, attachments: [MessageAttachment],
    placement: MessagePlacement? = nil
  ) {
    self.conversationID = conversationID
    self.clientID = clientID
    self.text = text
    self.attachments = attachments
    self.placement = placement
  }
}
