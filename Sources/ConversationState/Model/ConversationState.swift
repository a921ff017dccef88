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
