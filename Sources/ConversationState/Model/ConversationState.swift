public import Foundation

/// Everything the UI shows about one conversation, as a plain value.
///
/// Change it only through `ConversationReducer`; read it from store snapshots. Copies are cheap and share
/// storage: the message list and the streamed reply text are persistent structures (see `MessageList`,
/// `StreamedText`), so holding an old snapshot never makes the next change copy the history.
///
/// A copy is a few references however many fields there are: what a streamed delta changes (the reply, the
/// agent's activity) is stored here, and everything else, the message list included, behind one reference.
/// So reading the state from a store is one retain (three while a reply streams: its fields and its text),
/// holding a snapshot costs the first delta after it a few more, and comparing two versions skips the parts
/// they share by identity.
public struct ConversationState: Sendable {
  /// Everything but the two fields a streamed delta changes, behind one reference (see the type's
  /// documentation and `ConversationState+Storage.swift`).
  @usableFromInline var cold: CopyOnWrite<Cold>

  /// `nil` until the server creates the conversation, which it does on the first send.
  @inlinable public var conversationID: ConversationID? {
    _read { yield cold.value.stored.conversationID }
    _modify { yield &cold.value.stored.conversationID }
  }
  /// The conversation's title as the server last named it, or as the user renamed it in the list (with a
  /// `ChatClient`, a rename here or on another device, and a generated title, reach the open conversation);
  /// nil until one does. A title the list makes up from the first message stays the list's.
  @inlinable public var title: String? {
    _read { yield cold.value.stored.title }
    _modify { yield &cold.value.stored.title }
  }
  /// Who answers (the AI agent or a human), or that the conversation has ended.
  @inlinable public var status: ConversationStatus {
    _read { yield cold.value.stored.status }
    _modify { yield &cold.value.stored.status }
  }
  /// The committed messages and the user's outgoing ones, in display order (see `MessageList`).
  @inlinable public var messages: MessageList {
    _read { yield cold.value.messages }
    _modify { yield &cold.value.messages }
  }
  /// The tokens the conversation's committed replies reported (`Message.usage`), summed: O(1). A
  /// regenerated answer's tokens leave with it; history loaded later adds its replies'.
  public var tokenUsage: TokenUsage { messages.tokenUsage }
  /// The assistant reply being streamed, shown after `messages` (and after `overlappingReplies`): the newest
  /// one when several stream at once.
  public var streamingReply: StreamingReply?
  /// Where the history paging stands: the cursor of the next older page and whether one is loading.
  @inlinable public var history: HistoryPaging {
    _read { yield cold.value.stored.history }
    _modify { yield &cold.value.stored.history }
  }
  /// Per participant: when their typing indicator expires.
  @inlinable public var typing: [ParticipantID: Date] {
    _read { yield cold.value.run.typing }
    _modify { yield &cold.value.run.typing }
  }
  /// Whether this user's typing signal was last sent as "typing".
  @inlinable public var isUserTyping: Bool {
    _read { yield cold.value.run.isUserTyping }
    _modify { yield &cold.value.run.isUserTyping }
  }
  /// What the agent is doing now (thinking, generating, calling a tool), for an indicator.
  public var agentActivity: AgentActivity
  /// The realtime connection's state, for a "reconnecting" banner.
  @inlinable public var connection: ConnectionState {
    _read { yield cold.value.session.connection }
    _modify { yield &cold.value.session.connection }
  }
  /// The moment to ask the user for feedback on the conversation, while it is offered or answered.
  @inlinable public var feedbackMoment: FeedbackMoment? {
    _read { yield cold.value.stored.feedbackMoment }
    _modify { yield &cold.value.stored.feedbackMoment }
  }
  /// The feedback moment is offered at most once per conversation.
  @inlinable public var hasOfferedFeedback: Bool {
    _read { yield cold.value.stored.hasOfferedFeedback }
    _modify { yield &cold.value.stored.hasOfferedFeedback }
  }
  /// The newest message this user has read.
  @inlinable public var readCursor: ReadCursor? {
    _read { yield cold.value.stored.readCursor }
    _modify { yield &cold.value.stored.readCursor }
  }
  /// Committed messages from others after `readCursor`.
  @inlinable public var unreadCount: Int {
    _read { yield cold.value.stored.unreadCount }
    _modify { yield &cold.value.stored.unreadCount }
  }
  /// The text the user is composing, kept with the conversation so it survives a restart.
  @inlinable public var draft: String {
    _read { yield cold.value.draft }
    _modify { yield &cold.value.draft }
  }
  /// A hand-over to a human agent (a ticket), once asked for.
  @inlinable public var escalation: Escalation? {
    _read { yield cold.value.stored.escalation }
    _modify { yield &cold.value.stored.escalation }
  }
  /// The failure of the last thing the user asked for; `clearError` clears it.
  @inlinable public var userError: ChatError? {
    _read { yield cold.value.run.userError }
    _modify { yield &cold.value.run.userError }
  }
  /// The last failure of background work (sync, realtime, connection).
  @inlinable public var backgroundError: ChatError? {
    _read { yield cold.value.run.backgroundError }
    _modify { yield &cold.value.run.backgroundError }
  }
  /// The signed-in identity's epoch; work of an older epoch is ignored.
  @inlinable public var epoch: IdentityEpoch {
    _read { yield cold.value.session.epoch }
    _modify { yield &cold.value.session.epoch }
  }
  /// Who is signed in (no credential: tokens never enter state); nil for a guest.
  @inlinable public var identity: UserIdentity? {
    _read { yield cold.value.session.identity }
    _modify { yield &cold.value.session.identity }
  }
  /// Requests in flight, by ID. A result whose ID is not here is stale and ignored.
  @inlinable public var requests: [RequestID: PendingRequest] {
    _read { yield cold.value.run.requests }
    _modify { yield &cold.value.run.requests }
  }
  /// Connection attempts that failed since the connection was last live; drives the backoff.
  @inlinable public var failedConnectionAttempts: Int {
    _read { yield cold.value.session.failedConnectionAttempts }
    _modify { yield &cold.value.session.failedConnectionAttempts }
  }
  /// The counter request IDs are minted from, so replaying actions replays IDs.
  @inlinable public var requestSequence: UInt64 {
    _read { yield cold.value.session.requestSequence }
    _modify { yield &cold.value.session.requestSequence }
  }
  /// Whether the credential works: a UI shows "sign in again" for `needed`, and sends wait meanwhile.
  @inlinable public var credentials: CredentialStatus {
    _read { yield cold.value.session.credentials }
    _modify { yield &cold.value.session.credentials }
  }
  /// After a `RATE_LIMITED` answer with a `retryAfter`: the local time before which nothing is sent again.
  /// Sends made meanwhile wait as `pending` and go out when it passes.
  @inlinable public var retryableAt: Date? {
    _read { yield cold.value.session.retryableAt }
    _modify { yield &cold.value.session.retryableAt }
  }
  /// Catch-up after an outage stopped before the server said it was complete (the sync failed for good):
  /// messages may be missing between what is shown and the live ones. Cleared by a complete sync.
  @inlinable public var hasMissedMessagesGap: Bool {
    _read { yield cold.value.stored.hasMissedMessagesGap }
    _modify { yield &cold.value.stored.hasMissedMessagesGap }
  }
  /// Sync attempts that failed in a row; drives the sync backoff.
  @inlinable public var failedSyncAttempts: Int {
    _read { yield cold.value.run.failedSyncAttempts }
    _modify { yield &cold.value.run.failedSyncAttempts }
  }
  /// Per answer, the last rating the server accepted, kept while a rating of it is in flight so a failure
  /// rolls back to it, whatever order overlapping failures arrive in.
  @inlinable public var acceptedRatings: [ClientMessageID: AcceptedRating] {
    _read { yield cold.value.run.acceptedRatings }
    _modify { yield &cold.value.run.acceptedRatings }
  }
  /// Messages that were sent again after the server said `CONVERSATION_CHANGED` and history was reloaded;
  /// a second such answer fails them instead of looping.
  @inlinable public var resentAfterReload: Set<ClientMessageID> {
    _read { yield cold.value.run.resentAfterReload }
    _modify { yield &cold.value.run.resentAfterReload }
  }
  /// The answer to regenerate again once the history reload in flight is in: its regeneration failed with
  /// `CONVERSATION_CHANGED`, which asks the client to reload the newest page first (once per answer, as
  /// for a send: `resentAfterReload` holds the answer until the user regenerates it again).
  @inlinable public var regenerateAfterReload: ClientMessageID? {
    _read { yield cold.value.run.regenerateAfterReload }
    _modify { yield &cold.value.run.regenerateAfterReload }
  }
  /// The unread count the server keeps (from a history page), which also covers messages not loaded here.
  @inlinable public var serverUnreadCount: Int? {
    _read { yield cold.value.stored.serverUnreadCount }
    _modify { yield &cold.value.stored.serverUnreadCount }
  }
  /// The read cursor the server has stored, so a move of the cursor is sent only when it is newer.
  @inlinable public var savedReadCursor: ServerMessageID? {
    _read { yield cold.value.stored.savedReadCursor }
    _modify { yield &cold.value.stored.savedReadCursor }
  }
  /// Messages handed to the durable outbox (`enqueueOutbox`) that it has not yet reported stored.
  @inlinable public var outboxRecording: Set<ClientMessageID> {
    _read { yield cold.value.run.outboxRecording }
    _modify { yield &cold.value.run.outboxRecording }
  }
  /// The request sequence at which the credential was last sent for a refresh: a request begun before it
  /// carried the old credential, so its authorization failure is not held against the fresh one.
  @inlinable public var credentialRenewal: UInt64? {
    _read { yield cold.value.session.credentialRenewal }
    _modify { yield &cold.value.session.credentialRenewal }
  }
  /// Whether the stored copy of this conversation is still being read: the store was opened before its file
  /// was (a `ChatClient` reads files on its worker, never on the caller's thread), and `.restored` brings it.
  /// A screen shows a placeholder rather than "no messages yet"; whatever the user does meanwhile is kept
  /// and lands after what was stored.
  @inlinable public var isRestoring: Bool {
    _read { yield cold.value.run.isRestoring }
    _modify { yield &cold.value.run.isRestoring }
  }
  /// The agent's shared state, as the agent last described it (AG-UI's `STATE_SNAPSHOT`, then
  /// `STATE_DELTA` patches): nil until it sends one. A host renders from it (a plan, a form, progress) and
  /// never changes it: the agent owns it.
  @inlinable public var agentState: JSONValue? {
    _read { yield cold.value.stored.agentState }
    _modify { yield &cold.value.stored.agentState }
  }
  /// A change to the agent's state did not apply: `agentState` is as it was before that change, a fresh
  /// snapshot has been asked for (`requestAgentStateSnapshot`), and later changes wait for it (they would
  /// change a state this client does not have).
  @inlinable public var needsAgentStateSnapshot: Bool {
    _read { yield cold.value.run.needsAgentStateSnapshot }
    _modify { yield &cold.value.run.needsAgentStateSnapshot }
  }

  /// The paths not on screen where the conversation forks (an answer regenerated, or a question edited,
  /// keeps the old one and what followed as a sibling); empty for a conversation that is a line. `messages`
  /// is the path on screen; `canChangeBranch` says whether it may change now.
  public var branches: ConversationBranches {
    get { cold.value.stored.branches ?? ConversationBranches() }
    set { cold.value.stored.branches = newValue.isEmpty ? nil : newValue }
  }

  /// What the user wrote while the agent was answering, waiting to be sent one at a time
  /// (`FollowUpQueue`); empty with nothing queued.
  public var followUps: FollowUpQueue {
    get { cold.value.stored.followUps ?? FollowUpQueue() }
    // An empty queue has nothing to hold back: emptying it lifts a pause.
    set { cold.value.stored.followUps = newValue.isEmpty ? nil : newValue }
    // Moved out while it is changed, so that its array is held once and changes in place: through `get` and
    // `set`, taking one turn off a queue of n would copy the other n - 1.
    _modify {
      var queue = cold.value.stored.followUps ?? FollowUpQueue()
      cold.value.stored.followUps = nil
      defer { cold.value.stored.followUps = queue.isEmpty ? nil : queue }
      yield &queue
    }
  }

  /// What the user may send next with one tap: starter prompts and the follow-ups offered with an answer
  /// (`Suggestions`); `shownSuggestions` is what to show now.
  public var suggestions: Suggestions {
    get { cold.value.stored.suggestions ?? Suggestions() }
    set { cold.value.stored.suggestions = newValue.isEmpty ? nil : newValue }
  }

  /// The suggestions to show now: the starters while the conversation has no message; the follow-ups while
  /// the answer they were offered with is the newest message and nothing is being answered; else none.
  /// `sendSuggestion(index, …)` sends one of these by its index.
  public var shownSuggestions: [String] {
    guard let suggestions = cold.value.stored.suggestions else { return [] }
    if messages.isEmpty && streamingReply == nil { return suggestions.starters }
    guard let after = suggestions.after, messages.last?.clientID == after, streamingReply == nil else { return [] }
    return suggestions.followUps
  }

  /// The approvals the user asked this conversation to remember (`ApprovalGrant`), in the order given.
  public var approvalGrants: [ApprovalGrant] {
    get { cold.value.stored.approvalGrants ?? [] }
    set { cold.value.stored.approvalGrants = newValue.isEmpty ? nil : newValue }
  }

  /// The person's "always" approvals (`ApprovalMemory.always`), in the order given: every conversation of
  /// theirs that `ChatClient` opens has them, and only theirs (a change of person empties them until the
  /// client hands in the new person's).
  public var standingApprovals: [ApprovalGrant] {
    get { cold.value.session.standingApprovals ?? [] }
    set { cold.value.session.standingApprovals = newValue.isEmpty ? nil : newValue }
  }

  /// Whether any approval is remembered, here or for the person: O(1), for the check on every approval
  /// request.
  @inlinable package var hasApprovalGrants: Bool {
    cold.value.stored.approvalGrants != nil || cold.value.session.standingApprovals != nil
  }

  /// Whether turns wait in `followUps`: O(1), for the reducer's check after every action.
  @inlinable package var hasFollowUps: Bool { cold.value.stored.followUps != nil }

  /// Whether the agent is answering: a reply streams, a request that streams one (a send, a regeneration, a
  /// continuation) is in flight, the app's tools run for one, or a message of the user's is on its way. A
  /// UI shows Stop while it is true; with `ChatPolicy.whileAnswering` at `.queue`, a send then waits in
  /// `followUps`.
  public var isAnswering: Bool {
    if streamingReply != nil || !overlappingReplies.isEmpty { return true }
    if requests.values.contains(where: { request in
      switch request {
      case .send, .regenerate, .continuation, .realtimeReply, .tool, .toolResult: true
      default: false
      }
    }) {
      return true
    }
    return messages.outgoing.contains { message in
      switch message.delivery {
      case .pending, .sending, .queued: true
      case .sent, .failed: false
      }
    }
  }

  /// The newest committed assistant message: the answer that may wait (`ReplyState.isAwaiting`). Messages
  /// of others after it (a human agent's, a system note) do not end its wait; the user's next send does.
  public var latestAnswer: Message? {
    let committed = messages.prefix(messages.committedCount)
    return committed.last { $0.role == .assistant }
  }

  /// The request of the run whose answer is the latest answer and waits (`ReplyState.isAwaiting`): the
  /// app's tools still running for it are requests `.tool(_, reply:)` of this run. Nil when no answer
  /// waits, and after a relaunch (tools do not outlive the process).
  @inlinable public var awaitingRun: RequestID? {
    _read { yield cold.value.run.awaitingRun }
    _modify { yield &cold.value.run.awaitingRun }
  }

  /// The waiting answer whose continuation is held until a state holding its tool results and answers is
  /// on disk (`ConversationReducer.storesBeforeContinuing`): the storage that writes this state reports
  /// `toolResultsStored` then. Nil otherwise. This run's: never stored, and a relaunch starts without it.
  @inlinable public var continuationAwaitingStorage: ClientMessageID? {
    _read { yield cold.value.run.continuationAwaitingStorage }
    _modify { yield &cold.value.run.continuationAwaitingStorage }
  }

  /// Older replies that still stream while a newer one does (`streamingReply`), oldest first: a second
  /// run, or a reply over the realtime connection, started before the first one ended. Each goes on taking
  /// its own events and is committed when it ends; none is shown as cut off while it still streams. Empty
  /// almost always; at most `maximumOverlappingReplies` (a newer reply past that cuts the oldest off,
  /// `truncated`). Shown between `messages` and `streamingReply` (see `rows`).
  public var overlappingReplies: [StreamingReply] {
    get { cold.value.run.overlappingReplies ?? [] }
    set { cold.value.run.overlappingReplies = newValue.isEmpty ? nil : newValue }
  }

  /// How many older replies may stream beside the newest (`overlappingReplies`).
  public static let maximumOverlappingReplies = 3

  /// Every reply streaming now, oldest first: `overlappingReplies`, then `streamingReply`.
  public var liveReplies: [StreamingReply] { overlappingReplies + (streamingReply.map { [$0] } ?? []) }

  public init(
    conversationID: ConversationID? = nil, epoch: IdentityEpoch = IdentityEpoch(), identity: UserIdentity? = nil
  ) {
    streamingReply = nil
    agentActivity = .idle
    cold = CopyOnWrite(Cold(conversationID: conversationID, epoch: epoch, identity: identity))
  }

  /// The unread count to show on a badge: the server's when it knows of more than are loaded here.
  public var unreadBadge: Int { max(unreadCount, serverUnreadCount ?? 0) }

  /// Whether the UI should ask the user to sign in again: an authorization failure the credential
  /// provider could not fix.
  public var needsCredentials: Bool {
    if case .needed = credentials { return true }
    return false
  }

  /// Whether nothing is in flight but the live realtime connection (whose `connect` request stays in
  /// `requests` for as long as it is open): every send, load and sync has been answered.
  public var isSettled: Bool { requests.values.allSatisfy { $0 == .connect } }

  /// Whether any of the user's messages is on its way.
  public var isSending: Bool { messages.outgoing.contains { $0.delivery == .sending } }

  /// The newest message the server confirmed, the point a reconnect syncs from.
  public var lastConfirmedMessageID: ServerMessageID? {
    var found: ServerMessageID?
    messages.forEachCommittedNewestFirst { message in
      found = message.serverID
      return found == nil
    }
    return found
  }

  /// Mints the next request ID of the current epoch and records what it is for.
  public mutating func beginRequest(_ purpose: PendingRequest) -> RequestID {
    let id = reserveRequestID()
    requests[id] = purpose
    return id
  }

  /// A fresh request ID that no request in flight carries, not registered as one (it names a group of
  /// requests, such as the tools of a run that is over).
  package mutating func reserveRequestID() -> RequestID {
    requestSequence += 1
    return RequestID(epoch: epoch, sequence: requestSequence)
  }
}

/// Who is signed in. It holds no credential: tokens are the backend's business and never enter state.
public struct UserIdentity: Hashable, Sendable, Codable {
  public var userID: String
  public var workspaceID: String?
  public var displayName: String?

  public init(userID: String, workspaceID: String? = nil, displayName: String? = nil) {
    self.userID = userID
    self.workspaceID = workspaceID
    self.displayName = displayName
  }

  /// Whether `other` names the same person: the same user ID in the same workspace (a display name may
  /// change; the person, their data and their conversations stay).
  public func isSamePerson(as other: UserIdentity) -> Bool {
    userID == other.userID && workspaceID == other.workspaceID
  }
}

/// Whether the credential behind this conversation's requests works.
///
/// ```
/// valid -> refreshing          (an authorization failure: the runtime asks the host's credential provider)
/// refreshing -> refreshed      (a fresh credential; requests resume)
/// refreshing -> needed         (no credential could be had)
/// refreshed -> valid           (a request succeeded with it)
/// refreshed -> needed          (it failed again at once: never refreshed in a loop)
/// needed -> refreshed          (`credentialsRefreshed` from the host)
/// ```
public enum CredentialStatus: Hashable, Sendable, Codable {
  /// Requests are accepted.
  case valid
  /// An authorization failure happened; a fresh credential is being fetched. Sends wait.
  case refreshing
  /// A fresh credential arrived and has not yet been proven by a successful request.
  case refreshed
  /// The server refused the credential and no fresh one could be had: the UI asks the user to sign in
  /// again. Sends wait; the connection is closed.
  case needed(ChatError)
}

/// The rating of an answer the server last accepted, and which rating request it came from (later requests
/// win, as the server applies them in order).
public struct AcceptedRating: Hashable, Sendable, Codable {
  /// The rating the server has.
  public var rating: Rating
  /// The sequence of the request that set it; 0 for the rating the answer had before.
  public var requestSequence: UInt64

  public init(rating: Rating, requestSequence: UInt64) {
    self.rating = rating
    self.requestSequence = requestSequence
  }
}
