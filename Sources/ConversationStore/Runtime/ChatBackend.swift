public import ConversationState
import Foundation

/// Your server, as the store's runtime needs it. Implement it once per backend; the store does the rest
/// (request IDs, stale results, retries, ordering).
///
/// Only `send`, `history`, `messages(after:)` and `realtime` are required; the rest have defaults that
/// report `unsupported`, so a backend without ratings or tickets compiles as it is.
///
/// Throw a `ChatError` for failures the UI should classify (a 429, an unknown agent); any other error is
/// reported as a retryable `NETWORK` error (a `CancellationError` too, unless the store cancelled that
/// request). Cancellation reaches you as task cancellation of the async methods and as the stream's
/// `onTermination` (a stopped reply, a sign-out, `close()`): close the connection there. Results of a
/// cancelled request are ignored either way.
///
/// On Linux, do not await FoundationNetworking's async `URLSession.data(for:)` (or `bytes`, `download`) in
/// a method the store may cancel: cancelling a task inside one while its response completes deadlocks the
/// session (swift-corelibs-foundation#5412; seen here). Use `dataTask` with a completion handler and cancel
/// that task from another queue, as `HTTPChatBackend` does.
///
/// Messages you return: `createdAt` is the server's clock; `serverID` is the server's ID; `clientID` of a
/// message from the server can be any stable value (`"srv-" + serverID` is a good one): the store keeps the
/// client ID of a row it already shows (the user's own messages, the streaming reply), so you never need
/// to know it. `delivery` and `reply` are set by the store.
///
/// ```swift
/// struct MyServer: ChatBackend {
///   func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
///     AsyncThrowingStream { continuation in
///       let task = Task {
///         do {
///           let response = try await api.post("/messages", payload)  // your HTTP client
///           continuation.yield(.accepted(response.message, conversationID: response.conversationID))
///           for try await event in api.events(response.streamURL) {  // e.g. an SSE decoder
///             continuation.yield(event.asReplyEvent)  // .started, .delta, .finished…
///           }
///           continuation.finish()
///         } catch {
///           continuation.finish(throwing: error)  // never leave the stream open: the send would stay "sending"
///         }
///       }
///       continuation.onTermination = { _ in task.cancel() }  // the store stopped listening: stop the request
///     }
///   }
///   func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws
///     -> HistoryPage
///   {
///     try await api.history(conversation, before: cursor, limit: limit)
///   }
///   func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] {
///     try await api.messages(conversation, after: after)
///   }
///   func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
///     api.realtime(conversation)
///   }
/// }
/// ```
public protocol ChatBackend: Sendable {
  /// Sends a message (creating the conversation when `payload.conversationID` is nil) and streams what
  /// follows: `.accepted` first, then the agent's reply. Finish the stream when the reply is over; a stream
  /// that finishes without `.finished` leaves the reply `truncated`, with its text.
  ///
  /// In a conversation with branches (an edit, a switch), `payload.placement` says which message the new
  /// one follows; a server that keeps a tree puts it there, one that does not may ignore it and append
  /// (the store keeps the branches on the device either way).
  func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error>
  /// Streams a new answer to the user's message `prompt`, replacing the answer `answer` (its server ID, for
  /// backends that regenerate by answer). The store keeps the old answer, and what followed it, as a
  /// sibling once the new one finishes; a server need not keep it.
  func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  /// Streams the run that continues an answer that waited (`ReplyState.awaitingToolResults`, or
  /// `awaitingInput` once answered): `continuation` carries the app's tool outcomes and the user's
  /// answers. Its events continue the same answer. The default fails at once with `unsupported`, which
  /// leaves the answer `failed`.
  func continueRun(_ continuation: RunContinuation, in conversation: ConversationID)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  /// Streams the rest of a reply whose stream dropped, from `cursor` (the position of the last event the
  /// device applied). Called only for a reply whose events came `positioned`, after
  /// `ChatPolicy.reconnectBackoff`, at most `ChatPolicy.replyResumeAttempts` times in a row, and after a
  /// relaunch for the reply that was streaming then. Its events continue the same reply: yield them
  /// `positioned` as the first stream did; any at or before the cursor are dropped, so a server that
  /// replays from the start shows nothing twice. Throw `NOT_RESUMABLE` when the server has no such stream
  /// (it ended, or was never kept): the reply then ends `truncated` with what it had. The default fails
  /// with `unsupported`, which ends it the same way.
  func resumeReply(from cursor: ReplyCursor) -> AsyncThrowingStream<ReplyEvent, any Error>
  /// A page of messages older than `cursor` (the newest page when nil): at most `limit` of them, and the
  /// cursor of the page just older. A server that pages the other way, forward from a cursor and oldest
  /// first, is served through `ForwardPagedHistory`, which walks to the newest page once and pages back.
  /// A message the backend cannot read goes in the page's `unreadable`, not a thrown error: a page refused
  /// whole would be refused again on every retry, and the history above it could never be reached.
  func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws -> HistoryPage
  /// The messages after `after` (all when nil), to catch up after a reconnect.
  func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message]
  /// Like `messages(in:after:)`, saying whether the server has more after these; the store then asks again
  /// from the newest it has. The default calls `messages(in:after:)` and says there is no more.
  func catchUp(in conversation: ConversationID, after: ServerMessageID?) async throws -> CatchUpPage
  /// Stores an attachment's bytes and streams its progress, then the stored file's URL (`.stored`). The
  /// runtime calls it once per distinct content (by SHA-256), before the message is sent. The default
  /// fails with `unsupported`.
  func upload(_ attachment: AttachmentUpload) -> AsyncThrowingStream<UploadEvent, any Error>
  /// Sends the outcome of the app-side tool call `call` (a result, or the error the agent should see) for
  /// the reply streamed on the request `reply`. The default throws `unsupported`.
  func submitToolResult(
    _ outcome: ToolCall.Outcome, for call: ToolCallID, in conversation: ConversationID, reply: RequestID
  ) async throws
  /// Stores the user's read position (`upTo` and everything before it is read). The default does nothing:
  /// read state then stays on this device.
  func markRead(upTo message: ServerMessageID, in conversation: ConversationID) async throws
  /// The realtime connection: yield `.opened` once live, then events. Finishing or throwing means the
  /// connection is lost; the store reconnects with backoff (never after an authorization failure).
  ///
  /// A server with no realtime channel: finish the stream throwing `ChatError.unsupported("realtime")` and
  /// run the stores with `ChatPolicy.connectionMode = .polling`, which never calls this and polls
  /// `catchUp` every `ChatPolicy.pollingInterval` seconds instead.
  func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error>
  /// A page of the user's conversations, most recent activity first.
  func conversations(after cursor: PageCursor?, limit: Int) async throws -> ConversationPage
  /// Saves the user's change of a conversation of their list (a title, a pin, the archive, an unread
  /// mark). Throw `UNSUPPORTED` when the server keeps no list: the change is then kept on the device. A
  /// retryable error is retried with `ChatPolicy.outboxBackoff`; any other rolls the change back.
  func updateConversation(_ conversation: ConversationID, _ change: ConversationChange) async throws
  /// Deletes a conversation and its messages for the user. `UNSUPPORTED` (no list on the server) and
  /// `CONVERSATION_NOT_FOUND` (gone already) count as done; a retryable error is retried with
  /// `ChatPolicy.outboxBackoff`; any other brings the row back.
  func deleteConversation(_ conversation: ConversationID) async throws
  /// Records the user's thumbs up or down on the assistant message `message`.
  func rate(_ message: ServerMessageID, in conversation: ConversationID, as rating: Rating) async throws
  /// Sends the user's rating of the whole conversation, with an optional free-text comment.
  func submitFeedback(_ rating: Rating, comment: String?, in conversation: ConversationID) async throws
  /// Tells the other participants whether the user is typing. Best effort: a failure is ignored, never shown.
  func sendTyping(_ isTyping: Bool, in conversation: ConversationID) async throws
  /// Asks the agent to send its whole shared state again (a change to it did not apply here); the snapshot
  /// arrives as `ConversationAction.agentStateSnapshot`. Best effort. The default does nothing: the state
  /// then waits for the agent's next snapshot.
  func requestAgentState(in conversation: ConversationID?) async throws
  /// Hands the user over to a human by opening a support ticket, from `conversation` when there is one.
  func createTicket(_ draft: TicketDraft, from conversation: ConversationID?) async throws -> TicketReceipt
  /// Stores the anonymous user's contact details (`ChatClient.setContactDetails`: an e-mail from a pre-chat
  /// form) for the identity the credential names, replacing what it had; empty details clear them. Called
  /// once per change, again after a retryable failure (with backoff, or when the connection opens). The
  /// default throws `unsupported`, which the client shows as a background error and does not retry.
  func updateContactDetails(_ details: ContactDetails) async throws
  /// Uploads a batch of what the user did offline (`ChatClient` with storage sends these): apply the
  /// operations in sequence order, once per batch ID (answer `isDuplicate` for an ID already applied), and
  /// list the ones refused. Throw for a failure of the whole batch; it is retried unchanged with backoff
  /// (never after an authorization failure). The default throws `unsupported`.
  func uploadOutbox(_ batch: OutboxBatch) async throws -> OutboxReceipt
  /// The installation's outbox epoch (1 or more), for a protocol that carries it on every request (the
  /// HTTP protocol's `Outbox-Epoch` header). `ChatClient` with storage tells it once its storage is open and
  /// each time it changes (a sign-out raises it; a server's `OUTBOX_OUT_OF_SYNC` answer sets it), from no
  /// lock; it must return at once. The default does nothing.
  func outboxEpochChanged(_ epoch: UInt64)
}

/// What a send or regeneration stream carries.
///
/// The cases that carry a whole message, call or part are `indirect`: a stream is thousands of deltas, and
/// with a `Message` inline every event, and every copy of one as the deltas are joined, was the size of a
/// message (`agui.decode` read 11% fewer instructions with them boxed).
public enum ReplyEvent: Equatable, Sendable {
  /// The server accepted the user's message (sends only).
  indirect case accepted(Message, conversationID: ConversationID)
  /// The agent began its reply; `agent` names who answers, when the server says.
  indirect case started(agent: AgentInfo?, replyID: ServerMessageID? = nil)
  /// The next piece of the reply's text, to append to what came before.
  case delta(String)
  /// A text or reasoning part of the reply started; its deltas follow as `partDelta` until `partEnded`.
  /// Several parts may be open at once (reasoning beside text). See `MessagePart`.
  case partStarted(PartID, StreamedPartKind)
  /// Text for an open part, to append to what it had.
  case partDelta(PartID, String)
  /// A text or reasoning part is complete; a reasoning part's opaque provider value may come with it.
  case partEnded(PartID, encryptedValue: String? = nil)
  /// A whole part: a source, a file, host-defined data (a data part with an ID the reply already has
  /// replaces it in place), or text or reasoning that came in one piece.
  indirect case part(MessagePart)
  /// The agent began a tool call whose arguments stream (`toolInputDelta`, JSON text) before `toolCall`
  /// brings it complete; meanwhile the call shows `inputStreaming`.
  indirect case toolInputStarted(ToolCallID, name: String, execution: ToolCall.Execution)
  /// More of a streaming tool call's arguments, as JSON text.
  case toolInputDelta(ToolCallID, String)
  /// The agent threw away the step it was streaming and streams it again (AI SDK 7's `reset-step`): these
  /// parts and tool calls, which the step had sent, leave the reply (`ConversationAction.replyStepReset`).
  case stepReset(parts: [PartID], toolCalls: [ToolCallID])
  /// The agent started running a tool (or completed the call whose input streamed).
  indirect case toolCall(ToolCall)
  /// The tool call with this ID ended with this outcome.
  indirect case toolResult(ToolCallID, ToolCall.Outcome)
  /// The agent asks the user (an approval of a call, a question) before it goes on: AG-UI's interrupt,
  /// the AI SDK's `tool-approval-request`. Finish the stream when the run ends; the answer then waits
  /// (`awaitingInput`) and the user's answers come back through `continueRun`.
  indirect case inputRequested(InputRequest)
  /// The agent's whole shared state (AG-UI `STATE_SNAPSHOT`), for `ConversationState.agentState`.
  case agentState(JSONValue)
  /// A change to the agent's shared state as a JSON Patch (AG-UI `STATE_DELTA`); see
  /// `ConversationAction.agentStateDelta` for what happens when it does not apply.
  case agentStateDelta([JSONPatchOperation])
  /// The reply is complete; `message` is the server's copy of it. `userMessageID` is the server ID of the
  /// user's message, for servers that give it only here.
  ///
  /// What the committed answer takes from `message`: its server ID, time, finish reason and usage; its
  /// `text`, `parts`, `toolCalls` and `agent` when set, else the streamed ones (an empty text becomes what
  /// streamed, or the text parts joined). An adapter for a protocol that sends no copy (AG-UI, the AI SDK)
  /// passes a message with an empty text and the device time (`ChatClock.now()`) when the server gives
  /// none. The answer keeps the client ID of the row it streamed in.
  indirect case finished(Message, userMessageID: ServerMessageID? = nil)
  /// The server restated messages of the conversation beside the reply (AG-UI's `MESSAGES_SNAPSHOT`, a
  /// replayed thread): merged without losing anything the device shows. A message the conversation holds (by
  /// server ID) is updated in place and keeps its client ID, time and place; a new one takes its place
  /// among them in the order given (before the first held message it precedes); none is removed, and the
  /// reply streaming now is not among them. Times are placed by the store, so the ones given are not used.
  case restated([Message])
  /// The server took the user's message for later delivery without delivering it yet (sends only).
  case queued
  /// The server described the conversation along with the reply: its title, its status (nil: unchanged).
  indirect case described(title: String?, status: ConversationStatus?)
  /// Follow-up suggestions offered with this reply (`ConversationState.suggestions`): send them before the
  /// reply ends. Kept as `Suggestions.cleaned` keeps them. Of the four protocols only ours carries them
  /// (`reply.suggestions`); AG-UI, the AI SDK stream and OpenAI's have no such event.
  case suggested([String])
  /// Something of the request could not be used and was left out, and the reply goes on: a stored message
  /// whose provider payload the protocol could not read was sent as its text and calls. The store shows
  /// the error as `backgroundError`; nothing else changes.
  indirect case skipped(ChatError)
  /// An event at the position its protocol numbered it (a sequence number, an SSE event ID). A backend that
  /// resumes a dropped stream may replay events: one at or before the last position the reply applied is
  /// dropped (`StreamingReply.resumePosition` is where to resume from). A position wrapped around a positioned
  /// event replaces its position.
  indirect case positioned(StreamPosition, ReplyEvent)
}

/// Messages missed while disconnected, and whether the server has more after them.
public struct CatchUpPage: Hashable, Sendable {
  /// The messages, in any order.
  public var messages: [Message]
  /// Whether more follow the newest of these.
  public var hasMore: Bool

  /// A page of missed messages.
  public init(messages: [Message], hasMore: Bool) {
    self.messages = messages
    self.hasMore = hasMore
  }
}

/// What the realtime connection carries.
public enum RealtimeUpdate: Equatable, Sendable {
  /// The connection is live.
  case opened
  /// Something happened in a conversation: a message, an edit, a typing signal, a status change.
  case event(ConversationID, RealtimeEvent)
  /// A frame could not be read (`INVALID_EVENT`, with why): it is skipped, the store shows the error as
  /// `backgroundError`, and the connection goes on. A backend reports this rather than ending the stream
  /// over one bad frame.
  case rejected(ChatError)
  /// Something happened to the user's list that no conversation's event says: a conversation renamed,
  /// pinned, archived or deleted on another device. `ChatClient` hands it to `client.list`; a store alone
  /// ignores it.
  case list(ConversationListEvent)
}

extension ChatError {
  /// What an optional backend feature reports when the backend does not have it.
  public static func unsupported(_ feature: String) -> ChatError {
    ChatError("UNSUPPORTED", "This backend does not support \(feature).", status: 501)
  }
}

extension ChatBackend {
  /// By default, a stream that fails at once with an `unsupported` error.
  public func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    AsyncThrowingStream { $0.finish(throwing: ChatError.unsupported("regenerating answers")) }
  }
  /// By default, a stream that fails at once with an `unsupported` error.
  public func continueRun(_ continuation: RunContinuation, in conversation: ConversationID)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    AsyncThrowingStream { $0.finish(throwing: ChatError.unsupported("continuing runs")) }
  }
  /// By default, a stream that fails at once with an `unsupported` error.
  public func resumeReply(from cursor: ReplyCursor) -> AsyncThrowingStream<ReplyEvent, any Error> {
    AsyncThrowingStream { $0.finish(throwing: ChatError.unsupported("resuming replies")) }
  }
  /// By default, throws an `unsupported` error.
  public func conversations(after cursor: PageCursor?, limit: Int) async throws -> ConversationPage {
    throw ChatError.unsupported("a conversation list")
  }
  /// By default, throws an `unsupported` error: the list keeps the change on the device.
  public func updateConversation(_ conversation: ConversationID, _ change: ConversationChange) async throws {
    throw ChatError.unsupported("a conversation list")
  }
  /// By default, throws an `unsupported` error: the deletion is the device's.
  public func deleteConversation(_ conversation: ConversationID) async throws {
    throw ChatError.unsupported("a conversation list")
  }
  /// By default, throws an `unsupported` error.
  public func rate(_ message: ServerMessageID, in conversation: ConversationID, as rating: Rating) async throws {
    throw ChatError.unsupported("ratings")
  }
  /// By default, throws an `unsupported` error.
  public func submitFeedback(_ rating: Rating, comment: String?, in conversation: ConversationID) async throws {
    throw ChatError.unsupported("conversation feedback")
  }
  /// By default, does nothing: typing signals are best effort.
  public func sendTyping(_ isTyping: Bool, in conversation: ConversationID) async throws {}
  /// By default, does nothing: the agent's next snapshot ends the wait.
  public func requestAgentState(in conversation: ConversationID?) async throws {}
  /// By default, throws an `unsupported` error.
  public func createTicket(_ draft: TicketDraft, from conversation: ConversationID?) async throws -> TicketReceipt {
    throw ChatError.unsupported("tickets")
  }
  /// By default, the whole of `messages(in:after:)`, with nothing more after it.
  public func catchUp(in conversation: ConversationID, after: ServerMessageID?) async throws -> CatchUpPage {
    CatchUpPage(messages: try await messages(in: conversation, after: after), hasMore: false)
  }
  /// By default, nothing: the read position stays on this device.
  public func markRead(upTo message: ServerMessageID, in conversation: ConversationID) async throws {}

  public func outboxEpochChanged(_ epoch: UInt64) {}

  /// By default, throws an `unsupported` error.
  public func updateContactDetails(_ details: ContactDetails) async throws {
    throw ChatError.unsupported("contact details")
  }

  /// By default, throws an `unsupported` error.
  public func uploadOutbox(_ batch: OutboxBatch) async throws -> OutboxReceipt {
    throw ChatError.unsupported("offline outbox upload")
  }
  /// By default, throws an `unsupported` error.
  public func submitToolResult(
    _ outcome: ToolCall.Outcome, for call: ToolCallID, in conversation: ConversationID, reply: RequestID
  ) async throws {
    throw ChatError.unsupported("app-side tools")
  }
  /// By default, a stream that fails at once with an `unsupported` error.
  public func upload(_ attachment: AttachmentUpload) -> AsyncThrowingStream<UploadEvent, any Error> {
    AsyncThrowingStream { $0.finish(throwing: ChatError.unsupported("attachment uploads")) }
  }
}
