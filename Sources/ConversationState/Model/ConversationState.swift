public import Foundation

/// Everything the UI shows about one conversation, as a plain value.
///
/// Change it only through `ConversationReducer`; read it from store snapshots. Copies are cheap and share
/// storage: the message list and the streamed reply text are persistent structures (see `MessageList`,
/// `StreamedText`), so holding an old snapshot never makes the next change copy the history.
public struct ConversationState: Equatable, Sendable, Codable {
  /// `nil` until the server creates the conversation, which it does on the first send.
  public var conversationID: ConversationID?
  public var title: String?
  public var status: ConversationStatus
  public var messages: MessageList
  /// The assistant reply being streamed, shown after `messages`.
  public var streamingReply: StreamingReply?
  public var history: HistoryPaging
  /// Per participant: when their typing indicator expires.
  public var typing: [ParticipantID: Date]
  /// Whether this user's typing signal was last sent as "typing".
  public var isUserTyping: Bool
  public var agentActivity: AgentActivity
  public var connection: ConnectionState
  public var feedbackMoment: FeedbackMoment?
  /// The feedback moment is offered at most once per conversation.
  public var hasOfferedFeedback: Bool
  public var readCursor: ReadCursor?
  /// Committed messages from others after `readCursor`.
  public var unreadCount: Int
  public var draft: String
  public var escalation: Escalation?
  /// The failure of the last thing the user asked for; `clearError` clears it.
  public var userError: ChatError?
  /// The last failure of background work (sync, realtime, connection).
  public var backgroundError: ChatError?
  /// The signed-in identity's epoch; work of an older epoch is ignored.
  public var epoch: IdentityEpoch
  public var identity: UserIdentity?
  /// Requests in flight, by ID. A result whose ID is not here is stale and ignored.
  public var requests: [RequestID: PendingRequest]
  /// Connection attempts that failed since the connection was last live; drives the backoff.
  public var failedConnectionAttempts: Int
  /// The counter request IDs are minted from, so replaying actions replays IDs.
  public var requestSequence: UInt64
  /// Whether the credential works: a UI shows "sign in again" for `needed`, and sends wait meanwhile.
  public var credentials: CredentialStatus
  /// After a `RATE_LIMITED` answer with a `retryAfter`: the local time before which nothing is sent again.
  /// Sends made meanwhile wait as `pending` and go out when it passes.
  public var retryableAt: Date?
  /// Catch-up after an outage stopped before the server said it was complete (the sync failed for good):
  /// messages may be missing between what is shown and the live ones. Cleared by a complete sync.
  public var hasMissedMessagesGap: Bool
  /// Sync attempts that failed in a row; drives the sync backoff.
  public var failedSyncAttempts: Int
  /// Per answer, the last rating the server accepted, kept while a rating of it is in flight so a failure
  /// rolls back to it, whatever order overlapping failures arrive in.
  public var acceptedRatings: [ClientMessageID: AcceptedRating]
  /// Messages that were sent again after the server said `CONVERSATION_CHANGED` and history was reloaded;
  /// a second such answer fails them instead of looping.
  public var resentAfterReload: Set<ClientMessageID>
  /// The unread count the server keeps (from a history page), which also covers messages not loaded here.
  public var serverUnreadCount: Int?
  /// The read cursor the server has stored, so a move of the cursor is sent only when it is newer.
  public var savedReadCursor: ServerMessageID?
  /// Messages handed to the durable outbox (`enqueueOutbox`) that it has not yet reported stored.
  public var outboxRecording: Set<ClientMessageID>
  /// The request sequence at which the credential was last sent for a refresh: a request begun before it
  /// carried the old credential, so its authorization failure is not held against the fresh one.
  public var credentialRenewal: UInt64?

  public init(
    conversationID: ConversationID? = nil, epoch: IdentityEpoch = IdentityEpoch(), identity: UserIdentity? = nil
  ) {
    self.conversationID = conversationID
    title = nil
    status = .ongoing
    messages = MessageList()
    streamingReply = nil
    history = HistoryPaging()
    typing = [:]
    isUserTyping = false
    agentActivity = .idle
    connection = .idle
    feedbackMoment = nil
    hasOfferedFeedback = false
    readCursor = nil
    unreadCount = 0
    draft = ""
    escalation = nil
    userError = nil
    backgroundError = nil
    self.epoch = epoch
    self.identity = identity
    requests = [:]
    failedConnectionAttempts = 0
    requestSequence = 0
    credentials = .valid
    retryableAt = nil
    hasMissedMessagesGap = false
    failedSyncAttempts = 0
    acceptedRatings = [:]
    resentAfterReload = []
    serverUnreadCount = nil
    savedReadCursor = nil
    outboxRecording = []
    credentialRenewal = nil
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
    requestSequence += 1
    let id = RequestID(epoch: epoch, sequence: requestSequence)
    requests[id] = purpose
    return id
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
