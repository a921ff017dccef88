public import Foundation

/// Everything that can happen to a conversation: what the user asks for, and what the backend reports.
///
/// Actions carry every input a transition needs (new client IDs, the time, jitter), so a reducer is pure
/// and an action log replays to the same states. Results of requests carry the `RequestID` of the effect
/// that asked for them.
public enum ConversationAction: Equatable, Sendable, Codable {
  // MARK: User intents

  /// Send a message. A sent message clears the draft. Refused with a typed error in `userError`, the
  /// draft kept, when it is empty (`EMPTY_MESSAGE`), longer than the policy allows (`MESSAGE_TOO_LONG`),
  /// has too many, too large or disallowed attachments (`TOO_MANY_ATTACHMENTS`, `ATTACHMENT_TOO_LARGE`,
  /// `ATTACHMENT_TYPE_NOT_ALLOWED`), reuses a client ID (`INVALID_ACTION`), or the conversation does not
  /// accept messages (`CONVERSATION_NOT_ONGOING`, `CONVERSATION_NOT_FOUND`, `CHAT_UNAVAILABLE`).
  case send(OutgoingMessage)
  /// Guidance for the turn the agent is answering ("use the EU store, not the US one"). None of the
  /// protocols this library speaks can add input to a running turn (OpenAI's `response.steer` exists only
  /// over its WebSocket mode, which `OpenAIBackend` does not use), so it is a follow-up sent next: first in
  /// `ConversationState.followUps`, ahead of turns queued before it, whatever `ChatPolicy.whileAnswering`
  /// says, and sent once the answer completed (a paused queue holds it, first, until resumed). With nothing
  /// answering and nothing queued it is sent at once, as `send`. Refused as `send` is.
  case steer(OutgoingMessage)
  /// Send a failed message again, with the same client ID.
  case retry(ClientMessageID)
  /// Remove a failed (or still pending) message the user gave up on.
  case discard(ClientMessageID)
  /// Remove a failed (or still pending) message and put its text back into the draft, to edit and send
  /// anew.
  case takeBackIntoDraft(ClientMessageID)
  /// Edit a message the user sent: `replacement` (a new client ID, the new text and attachments) becomes
  /// its sibling and is sent, and the agent answers it; the message and everything after it stay as the
  /// sibling before (`ConversationState.branches`, `showSibling`). The new message follows the one before
  /// the edited message (`SendPayload.placement`); offline it waits in the outbox like any send. Discarding it
  /// after it failed shows the branch it replaced again. Refused, nothing changed, as `send` refuses its
  /// message, with `UNKNOWN_MESSAGE` when no message on screen has that ID, and with `INVALID_ACTION` for a
  /// message that is not the user's, one not yet sent, and whenever `ConversationState.canChangeBranch` is
  /// false. The IDs and the time come from the caller, as for every action: a store's `environment` makes
  /// them (`makeID()`, `clock.now()`), so a test replays the same edit.
  ///
  /// ```swift
  /// let edited = OutgoingMessage(
  ///   clientID: ClientMessageID(store.environment.makeID()), text: "Ship it to Lyon",
  ///   createdAt: store.environment.clock.now())
  /// store.send(.edit(question.clientID, edited))
  /// ```
  case edit(ClientMessageID, OutgoingMessage)
  /// Ask for a new version of an answer. The old answer and everything after it leave the screen only when
  /// the new one finishes, and stay as its sibling (`ConversationState.branches`, `showSibling`); the new
  /// one streams in the old one's place, and the next message follows it. Refused, nothing changed, with
  /// `UNKNOWN_MESSAGE` when no message on screen has that ID, `INVALID_ACTION` for a message that is not a
  /// finished answer of the agent (a question of the user's is edited with `edit`) or while a reply
  /// streams, and `CONVERSATION_NOT_ONGOING` once a person has the chat.
  case regenerate(ClientMessageID)
  /// Show another sibling of `message`, which starts the path on screen at a fork
  /// (`ConversationState.branches`): the one before it, the one after it, or the one at an index from 0.
  /// The path on screen is kept in its place. Refused (`INVALID_ACTION`, nothing changed) whenever
  /// `ConversationState.canChangeBranch` is false (a reply streams, a message of the user's is unsent, a
  /// request that changes messages is in flight, older history is shown without the newest), and while the
  /// path on screen does not start in memory (trimmed from the older end); `UNKNOWN_MESSAGE` for a message
  /// that has no siblings or no such sibling.
  case showSibling(of: ClientMessageID, SiblingChoice)
  /// Show the path that holds `message`, switching at every fork on the way; refused as `showSibling` is,
  /// and `UNKNOWN_MESSAGE` when no path holds it. A message on screen changes nothing.
  case showBranch(containing: ClientMessageID)
  /// Change the text of a turn waiting in `ConversationState.followUps`, keeping its place, client ID and
  /// attachments. Refused, nothing changed, as `send` refuses a text (`EMPTY_MESSAGE`,
  /// `MESSAGE_TOO_LONG`), and `UNKNOWN_MESSAGE` when no turn with that client ID waits (it may have been
  /// sent meanwhile).
  case editQueued(ClientMessageID, text: String)
  /// Take a turn out of `ConversationState.followUps` unsent; `UNKNOWN_MESSAGE` when none waits with that ID.
  case removeQueued(ClientMessageID)
  /// Move a waiting turn to `index` of `ConversationState.followUps.turns` (0 is next; an index past the
  /// end moves it last); `UNKNOWN_MESSAGE` when none waits with that ID.
  case moveQueued(ClientMessageID, to: Int)
  /// Take a waiting turn out of the queue and put its text in the draft, to rewrite and send anew (its
  /// attachments are not kept: attach them again). `UNKNOWN_MESSAGE` when none waits with that ID.
  case takeQueuedIntoDraft(ClientMessageID)
  /// Send a waiting turn now: the running reply is stopped, keeping what it streamed (as `stopReply`), and
  /// the turn is sent at once; the other turns wait for its answer, and a pause is lifted.
  /// `UNKNOWN_MESSAGE` when none waits with that ID; refused as `send` is when the conversation does not
  /// take messages.
  case sendQueuedNow(ClientMessageID)
  /// Let a paused queue (`FollowUpQueue.pause`) drain again: its first turn goes at once if nothing is
  /// answering. Nothing happens when it is not paused.
  case resumeQueue
  /// Stop the reply being streamed: its request is cancelled and the reply is kept with its text so far,
  /// `cancelled` (not shown as `userError`: the user asked for it). With no reply streaming, an answer
  /// waiting for the app's tools or the user's answers (`ReplyState.isAwaiting`) is stopped instead: its
  /// tools are cancelled and it becomes `cancelled`.
  case stopReply
  /// Answer the agent's request `id` (an approval, a question; see `InputRequest`) of the reply streaming
  /// or of the latest answer `awaitingInput`. Once every request of that answer is answered (and any
  /// tool results it awaits are in), the store continues the run (`ConversationEffect.continueRun`).
  /// Approving an app-run call runs it (`runTool`); denying one marks it `denied` without running it.
  /// Refused with `UNKNOWN_MESSAGE` when no open request has that ID, and `INVALID_ACTION` for an answer
  /// of the wrong kind (`InputRequest.accepts`) or a request already answered.
  indirect case answerInput(InputRequestID, InputAnswer)
  /// Approve the agent's request `id` to run a tool, as `answerInput(id, .approved)` does, and remember it
  /// (an `ApprovalGrant` timed `at`, the caller's clock): with `.conversation` in this conversation
  /// (`ConversationState.approvalGrants`), with `.always` for the person in all their conversations
  /// (`ConversationState.standingApprovals`, handed to the client: `changeStandingApprovals`). Later requests
  /// to run the same tool, and open ones in this answer, are approved at once, marked
  /// `InputRequest.grantedBy`. Refused as `answerInput` is, and with `INVALID_ACTION` for a request that is a
  /// question.
  case approve(InputRequestID, remembering: ApprovalMemory, at: Date)
  /// Forget every remembered approval of `toolName`, this conversation's and the person's standing one: its
  /// next request asks the user again, here and (for a standing one) in their other conversations.
  /// `INVALID_ACTION` when none is remembered.
  case revokeApproval(toolName: String)
  /// The person's standing approvals as their keeper has them now (`ChatClient` sends it; a host never
  /// needs to). Taken only when `userID` is the signed-in person's (nil: the anonymous user), so a list
  /// of a person who signed out meanwhile never lands in the next person's conversation.
  case standingApprovalsChanged([ApprovalGrant], userID: String?)
  /// The starter prompts to offer while the conversation is empty (the host's; they replace any before).
  /// Kept as `Suggestions.cleaned` keeps them.
  case setStarterPrompts([String])
  /// Follow-up suggestions for the answer `after` (the host's, say from a model call of its own): shown
  /// while that answer is the newest message (`shownSuggestions`). They replace any before.
  case suggestFollowUps([String], after: ClientMessageID)
  /// Sends the suggestion at `index` of `shownSuggestions`, as `send` sends a message with that text and
  /// `clientID`, written at `at`. `INVALID_ACTION`, nothing changed, when there is no such suggestion.
  case sendSuggestion(Int, clientID: ClientMessageID, at: Date)
  /// Load the first (newest) history page. Does nothing before the conversation exists (there is no
  /// history yet) or while a load is in flight; a page size outside the policy's range is refused with
  /// `INVALID_PAGE_SIZE`.
  case loadHistory(pageSize: Int)
  /// Load the next older history page. Does nothing while a load is in flight, after the oldest page, or
  /// before the conversation exists.
  case loadMoreHistory(pageSize: Int)
  /// Drop from memory the oldest committed messages beyond the newest `keepingNewest` (what the user
  /// scrolled past and left), so a long conversation's memory stays that of its window. They stay stored:
  /// `loadMoreHistory` reads them again from storage (`HistoryPaging.hasStoredHistory`), or, when nothing
  /// was stored, starts the server's paging again from its newest page. Send it when the user is back at
  /// the newest messages. Keeps messages still in use (an answer waiting for the app, one being rated or
  /// regenerated) and everything after them; does nothing while a history page is loading.
  case trimHistory(keepingNewest: Int)
  /// Drop from memory the newest committed messages beyond the oldest `keepingOldest` (what the user
  /// scrolled up and away from), so memory stays that of the window while the user reads far back. They
  /// stay stored: `HistoryPaging.newerGap` marks where, and `loadNewerHistory` pages them back in as the
  /// user scrolls down. Messages arriving meanwhile join `messages` after the gap. Needs storage (a
  /// `ChatClient` with storage, or a store given a `StoredHistoryReader`); without it, the first newer
  /// page finds nothing and the store goes back to the server's newest page. Keeps messages still in use
  /// and everything before them; does nothing while a history page is loading, or when a message after
  /// the gap is in use. A page size below 1 is refused with `INVALID_PAGE_SIZE`.
  case trimNewerHistory(keepingOldest: Int)
  /// Load the next newer stored page after the loaded window (`HistoryPaging.newerGap`), as the user
  /// scrolls down towards the newest messages. Does nothing without a gap or while a load is in flight; a
  /// page size outside the policy's range is refused with `INVALID_PAGE_SIZE`.
  case loadNewerHistory(pageSize: Int)
  /// Rate an answer up or down, or clear the rating with `.none`. Optimistic; rolled back on failure.
  case rateAnswer(ClientMessageID, Rating)
  /// Rate the conversation through the open feedback moment. Optimistic; rolled back on failure.
  case rateConversation(Rating, comment: String?)
  /// Close the feedback moment without rating.
  case dismissFeedback
  case setDraft(String)
  /// The user has seen everything up to and including this message. The cursor never moves back.
  case markRead(upTo: ServerMessageID)
  /// The user started or stopped typing; sent to the server only when it changes.
  case setTyping(Bool)
  /// Clear `userError`.
  case clearError
  /// Forget this conversation's messages and start a new one, for the same identity.
  case clear
  /// Show the existing conversation `conversationID` in this store (resume): the current one is cleared,
  /// the first history page is loaded, and a live connection is re-opened for it.
  case open(ConversationID)
  /// Sign in (or switch user): a new epoch, and every request of the old one cancelled.
  ///
  /// Switching between two people always clears the conversation. Signing in from anonymous clears it
  /// too, unless `keepingGuestConversation` is true: then the conversation, its unsent and failed
  /// messages and the draft stay (sends of the old epoch go out again under the new one, with the same
  /// client IDs), as SDKs that merge a visitor into the person do.
  case identify(UserIdentity, keepingGuestConversation: Bool = false)
  /// The host (or the runtime's credential provider) has a fresh credential for the same person: the
  /// "needs credentials" condition clears, the connection re-opens and held sends go out. The epoch stays.
  case credentialsRefreshed
  /// The credential this conversation shares with others (a `ChatClient`'s) was refused and the provider
  /// cannot help: the conversation shows `needsCredentials` with this error, its connection closes, and
  /// sends wait, without asking the provider, until `credentialsRefreshed`. Anything but an authorization
  /// failure is refused (`INVALID_ACTION`).
  case credentialsNeeded(ChatError)
  /// Sign out: a new epoch, everything of the old one dropped.
  case signOut
  /// Open the realtime connection: for `conversationID`, or, before the conversation exists, for the
  /// user's events (re-opened for the conversation once the first send creates it).
  case connect
  /// Close the realtime connection (its request is cancelled).
  case disconnect
  /// Create a support ticket from this conversation.
  case escalate(TicketDraft)
  /// The app started again with this state restored from disk: nothing of the previous run is in flight.
  /// Sending messages become failed (retryable), queued ones stay queued for the outbox, a reply that was
  /// streaming resumes from its stored cursor when it can and is kept `truncated` otherwise, and every
  /// request, load and typing indicator is dropped.
  case relaunched
  /// The stored copy of the conversation, read after its store opened (`isRestoring`), as `.relaunched` left
  /// it. It becomes the state with what happened since the store opened on top: messages the user wrote
  /// meanwhile come after the stored ones, a draft typed meanwhile wins over the stored draft, and requests
  /// in flight, the connection and the credential are this run's. Ignored unless the state `isRestoring`
  /// for the same conversation (a `.clear` or `.open` since made it another).
  indirect case restored(ConversationState)

  // MARK: Backend events

  /// The server accepted a send: the confirmed message (same client ID) and the conversation it is in.
  indirect case sendAccepted(RequestID, confirmed: Message, conversationID: ConversationID)
  /// A request failed. What that means depends on the request: a send fails its message, a stream
  /// interrupts its reply, a rating rolls back. The runtime supplies `at` (the local clock: a rate limit's
  /// `retryAfter` counts from it) and `jitter` in 0…1 (it spreads the retry of background work such as a
  /// sync; nil counts as 1).
  case requestFailed(RequestID, ChatError, at: Date? = nil, jitter: Double? = nil)
  /// The server described the conversation while answering this request (its title, its status).
  case conversationDescribed(RequestID, title: String?, status: ConversationStatus?)
  /// The server accepted a send for delivery without delivering it yet (and gave no message ID): the
  /// message is `queued` until its copy arrives.
  case sendQueued(RequestID)
  /// A request with no payload (rating, feedback) succeeded.
  case requestSucceeded(RequestID)
  /// The agent's whole shared state (AG-UI `STATE_SNAPSHOT`): it replaces `agentState`, and ends a wait
  /// for a snapshot.
  case agentStateSnapshot(JSONValue)
  /// A change to the agent's shared state as an RFC 6902 JSON Patch (AG-UI `STATE_DELTA`), applied whole
  /// or not at all. One that does not apply (or comes before any snapshot) leaves `agentState` as it was,
  /// sets `backgroundError` (`INVALID_EVENT`) and `needsAgentStateSnapshot`, and asks for a snapshot
  /// (`requestAgentStateSnapshot`); later changes are ignored until it comes.
  case agentStateDelta([JSONPatchOperation])
  /// The outbox has the message on disk: it shows `queued` and goes out with the outbox's next batch.
  case outboxRecorded(ClientMessageID)
  /// Storage has written a state holding `continuationAwaitingStorage` (this answer): its tool results and
  /// answers are on disk, and its continuation goes out (`ConversationReducer.storesBeforeContinuing`).
  case toolResultsStored(ClientMessageID)
  /// The outbox could not store an operation, or the server refused it in a batch. A message fails with
  /// `error` (retry sends it again); a rating of an answer goes back to the one it replaced and the
  /// conversation's feedback question opens again, both with `error` as `userError`; a read-cursor move is
  /// sent again with the next move (`backgroundError`).
  case outboxRejected(OutboxOperation.Kind, ChatError)
  /// The agent's reply to a send or regeneration began. `replyID`, when the server names the message the
  /// reply will become, lets the reply continue over the realtime connection without a duplicate.
  case replyStarted(RequestID, agent: AgentInfo?, at: Date, replyID: ServerMessageID? = nil)
  /// Text of the reply. In a reply that has parts it continues the last part when that is open text, else
  /// starts a text part (ID `text-<n>`, closed when another part starts) after everything so far.
  case replyDelta(RequestID, String)
  /// A text or reasoning part of the reply started; its deltas follow as `replyPartDelta` until
  /// `replyPartEnded`. Several parts may be open at once. Part IDs and tool call IDs share one space in a
  /// reply, and IDs `text-<n>` are the ones the reducer gives text that came without a part: an ID the reply
  /// already has is refused (`INVALID_EVENT` in `backgroundError`, nothing changed). The first part of a
  /// reply gives what streamed before it parts of its own (its text, then its tool calls).
  case replyPartStarted(RequestID, PartID, StreamedPartKind)
  /// Text for an open text or reasoning part, appended in O(delta). Text parts' deltas also append to the
  /// reply's `text`, in arrival order (two text parts open at once interleave there; the committed message's
  /// `text` stays that arrival order when it was interrupted, and is the server's, or the parts joined in
  /// order, when it finished). A delta for a part that is unknown or already ended is refused
  /// (`INVALID_EVENT`).
  case replyPartDelta(RequestID, PartID, String)
  /// A text or reasoning part is complete; `encryptedValue` is a reasoning part's opaque provider value,
  /// when one came with its end. Ending a part that is not open is refused (`INVALID_EVENT`).
  case replyPartEnded(RequestID, PartID, encryptedValue: String? = nil)
  /// A whole part: a source, file or data part, or a text or reasoning part that came in one piece. A data
  /// part whose ID the reply already has replaces that part in place; any other repeated ID is refused, and
  /// so is a `.toolCall` part (calls start with `toolCallStarted` or `toolInputStarted`).
  indirect case replyPartAdded(RequestID, MessagePart)
  /// The agent began a tool call whose arguments stream: the call shows `inputStreaming` with its name,
  /// and a part for it (ID: the call's) whose text grows with `toolInputDelta`, for display. The store
  /// does not parse it: the adapter keeps the arguments, parses them, and completes the call with
  /// `toolCallStarted` carrying the same ID and the parsed `input` (arguments that do not parse: `input` as
  /// `.string(raw)`, which an app tool's handler can refuse). The call then runs as any other; the streamed
  /// text is not kept on the committed message. A result
  /// (`toolCallFinished`) before the completion is refused (`INVALID_EVENT`).
  case toolInputStarted(RequestID, ToolCallID, name: String, execution: ToolCall.Execution)
  /// More of a streaming tool call's arguments, as JSON text; O(delta). For a call that is not streaming
  /// its input it is refused (`INVALID_EVENT`).
  case toolInputDelta(RequestID, ToolCallID, String)
  /// The agent threw away the step it was streaming and streams it again (AI SDK 7's `reset-step`: a retried
  /// model call): the reply's parts `parts` and tool calls `toolCalls` (with their approval requests) leave
  /// it, app tools running for those calls are cancelled, and the reply's text becomes what its remaining
  /// text parts hold (a host reading `appended(since:)` then gets nil and sets the whole text). IDs the reply
  /// does not have are ignored.
  case replyStepReset(RequestID, parts: [PartID], toolCalls: [ToolCallID])
  /// The backend offered follow-up suggestions with the reply of `requestID` (`ReplyEvent.suggested`): they
  /// go with that answer. Ignored unless that reply is streaming.
  case replySuggested(RequestID, [String])
  /// A tool call as the agent made it (its input complete): it starts running, or completes the call whose
  /// input streamed. Like a first delta, it starts its send's reply when it comes first. In a reply that
  /// has parts it gets a part with its ID (not when another part has that ID or the parts are at
  /// `maximumPartsPerReply`: then it is in `toolCalls` only, so a UI renders `toolCalls` without a part too).
  indirect case toolCallStarted(RequestID, ToolCall)
  case toolCallFinished(RequestID, ToolCallID, ToolCall.Outcome)
  /// The agent asks the user something in the reply streamed by the request: an approval of one of the
  /// reply's tool calls (which then shows `awaitingApproval`; an app-run one that was running is cancelled
  /// until approved) or a question. The reply goes on streaming; when it finishes with a request open it
  /// is committed `awaitingInput`. A request whose ID the reply already has, or an approval of a call the
  /// reply does not have or that has ended, is refused with `INVALID_EVENT` and changes nothing.
  indirect case inputRequested(RequestID, InputRequest)
  /// An event of the reply stream of the request, at the position its protocol gave it
  /// (`ReplyEvent.positioned`). When the request's streaming reply has already applied an event at or past
  /// that position (a stream resumed after a drop replays some), the action is dropped and nothing changes;
  /// otherwise it is applied and the reply remembers the position (`StreamingReply.resumePosition`). Only a
  /// live streaming reply holds a position: events before the reply starts are applied as they come.
  indirect case positioned(RequestID, StreamPosition, ConversationAction)
  /// The reply finished; `message` is the server's version of it (its text, server ID, tool calls, time).
  /// `userMessageID` is the server ID of the user's message it answers, for servers that give it only here.
  /// Its `text`, `parts`, `toolCalls` and `agent` are taken when set, else the streamed ones (an empty text
  /// becomes what streamed, or the text parts joined).
  ///
  /// The committed message keeps the client ID of the row it streamed in (`streamingReply.clientID`), not
  /// `message.clientID`: a UI keyed by client ID sees the row it was showing become the finished message, in
  /// place, instead of one row vanishing and another appearing.
  ///
  /// Its outcome: `awaitingInput` when the agent asked something (`inputRequested`); else, under
  /// `ToolResultDelivery.nextRun`, `awaitingToolResults` when the run made app-run calls (their results
  /// continue it); else `completed`. A continuation run's finish keeps the earlier run's text and parts
  /// in front of its own (`StreamingReply.continuing`).
  indirect case replyFinished(RequestID, message: Message, userMessageID: ServerMessageID? = nil)
  /// The stream closed without `replyFinished`: the reply is kept as interrupted (`INCOMPLETE_STREAM`).
  case replyEnded(RequestID)
  /// Messages the server restated beside the reply on request `RequestID` (`ReplyEvent.restated`): merged in
  /// the order given, held ones updated in place with their client IDs, times and places, new ones placed
  /// among them (their times made to fit that order), none removed.
  case replyRestated(RequestID, [Message])
  indirect case historyLoaded(RequestID, HistoryPage)
  /// The answer to `fetchStoredHistory` or `fetchNewerStoredHistory`: stored messages (committed ones,
  /// in any order), and whether
  /// storage holds more before them. Merged like a server page; the server's cursor is left as it is.
  case storedHistoryLoaded(RequestID, [Message], hasMore: Bool)
  /// Messages missed while disconnected (after the last confirmed one). `hasMore` says the server has
  /// more after these; the store then asks again, from the newest it now has. A page that says "more" but
  /// brings nothing newer is a stalled catch-up (`SYNC_STALLED`), retried after the sync backoff spread by
  /// `jitter` in 0…1 (the runtime supplies it; nil counts as 1).
  case syncLoaded(RequestID, [Message], hasMore: Bool = false, jitter: Double? = nil)
  /// A realtime event for `conversationID`.
  ///
  /// `connection` is the request ID of the connection that delivered it: the store's runtime always sets
  /// it, and an event from a connection that is no longer the live one is ignored. A host that routes
  /// events itself (one shared connection, a push notification) leaves it nil. `receivedAt` is when this
  /// device received the event, on the *local* clock (the runtime stamps it); times inside the event are
  /// the sender's clock. Local expiries (typing) are computed from `receivedAt`, or from the event's own
  /// time when it is nil.
  case realtime(ConversationID, RealtimeEvent, connection: RequestID? = nil, receivedAt: Date? = nil)
  /// The connection opened by the `connectRealtime` effect with this request ID is live.
  case connectionOpened(RequestID)
  /// The connection with this request ID carried a frame that could not be read (`INVALID_EVENT`): it is
  /// skipped and shown as `backgroundError`; the connection goes on.
  case frameRejected(RequestID, ChatError)
  /// The connection opened with this request ID dropped (a report from an older connection is ignored).
  /// `at` is the local clock; `jitter` in 0…1 spreads the reconnect (full jitter; anything else, NaN
  /// included, is clamped into 0…1, NaN counting as 1).
  case connectionLost(RequestID, ChatError, at: Date, jitter: Double)
  case ticketCreated(RequestID, TicketReceipt)
  /// The upload of this request moved on to `fraction` (0…1) of its bytes; progress never moves back.
  case uploadProgressed(RequestID, Double)
  /// The upload of this request finished: the file is stored at `url`.
  case uploadFinished(RequestID, URL)
  /// The app-side tool run by this request ended: its result, or the error the agent is told about.
  case toolRan(RequestID, ToolCall.Outcome)
  /// The server stored the read cursor sent with this request.
  case readCursorSaved(RequestID)
  case attachmentProgress(ClientMessageID, AttachmentID, Double)
  case attachmentUploaded(ClientMessageID, AttachmentID, URL)
  case timerFired(TimerID, at: Date)
}

/// A message the user is sending, with the values only the caller can supply.
public struct OutgoingMessage: Hashable, Sendable, Codable {
  public var clientID: ClientMessageID
  public var text: String
  public var attachments: [MessageAttachment]
  public var createdAt: Date
  /// Set by the store, not the host (a value given is replaced): where the message goes in a conversation
  /// with branches, kept with it when it waits in the outbox (`SendPayload.placement`).
  public var placement: MessagePlacement?

  public init(clientID: ClientMessageID, text: String, attachments: [MessageAttachment] = [], createdAt: Date) {
    self.clientID = clientID
    self.text = text
    self.attachments = attachments
    self.createdAt = createdAt
  }
}

/// What the realtime connection delivers for one conversation.
public enum RealtimeEvent: Equatable, Sendable, Codable {
  /// A new message, from anyone; an echo of the user's own send carries its client ID.
  indirect case messageCreated(Message)
  indirect case messageEdited(Message)
  case messageDeleted(ServerMessageID)
  /// The transcript of a voice or image message replaces its stand-in text.
  case transcript(ServerMessageID, text: String)
  /// `at` is the sender's clock; the indicator's local expiry is counted from the action's `receivedAt`.
  case typingStarted(ParticipantID, at: Date)
  case typingStopped(ParticipantID)
  case statusChanged(ConversationStatus)
  case titleChanged(String)
  case feedbackOffered(FeedbackPrompt)
  /// An agent's reply, streamed over the realtime connection rather than on a send request, began. `reply`
  /// is the server's ID of the message it will become; `at` is the sender's clock.
  indirect case replyStarted(ServerMessageID, agent: AgentInfo?, at: Date)
  /// The next piece of the reply `reply`, which began over realtime or on a send whose start named it.
  case replyDelta(ServerMessageID, String)
  /// The reply `reply` is complete; `message` is the server's copy of it. As for a send's `replyFinished`,
  /// the committed message keeps the client ID of the row it streamed in.
  indirect case replyFinished(ServerMessageID, Message)
}

/// Which sibling `ConversationAction.showSibling` shows.
public enum SiblingChoice: Hashable, Sendable, Codable {
  case previous
  case next
  /// The sibling at this index, from 0, in the order the siblings were made.
  case index(Int)
}
