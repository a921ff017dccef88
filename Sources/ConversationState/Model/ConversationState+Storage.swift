public import Foundation

extension ConversationState {
  /// Everything a streamed delta leaves alone; each field is documented on `ConversationState`.
  @usableFromInline
  struct Cold: Equatable, Sendable, Codable {
    /// First, so that `==` compares it first: the message list is what two versions differ in most.
    @usableFromInline var messages: MessageList
    @usableFromInline var conversationID: ConversationID?
    @usableFromInline var title: String?
    @usableFromInline var status: ConversationStatus
    @usableFromInline var history: HistoryPaging
    @usableFromInline var typing: [ParticipantID: Date]
    @usableFromInline var isUserTyping: Bool
    @usableFromInline var connection: ConnectionState
    @usableFromInline var feedbackMoment: FeedbackMoment?
    @usableFromInline var hasOfferedFeedback: Bool
    @usableFromInline var readCursor: ReadCursor?
    @usableFromInline var unreadCount: Int
    @usableFromInline var draft: String
    @usableFromInline var escalation: Escalation?
    @usableFromInline var userError: ChatError?
    @usableFromInline var backgroundError: ChatError?
    @usableFromInline var epoch: IdentityEpoch
    @usableFromInline var identity: UserIdentity?
    @usableFromInline var requests: [RequestID: PendingRequest]
    @usableFromInline var failedConnectionAttempts: Int
    @usableFromInline var requestSequence: UInt64
    @usableFromInline var credentials: CredentialStatus
    @usableFromInline var retryableAt: Date?
    @usableFromInline var hasMissedMessagesGap: Bool
    @usableFromInline var failedSyncAttempts: Int
    @usableFromInline var acceptedRatings: [ClientMessageID: AcceptedRating]
    @usableFromInline var resentAfterReload: Set<ClientMessageID>
    @usableFromInline var regenerateAfterReload: ClientMessageID?
    @usableFromInline var serverUnreadCount: Int?
    @usableFromInline var savedReadCursor: ServerMessageID?
    @usableFromInline var outboxRecording: Set<ClientMessageID>
    @usableFromInline var credentialRenewal: UInt64?
    @usableFromInline var isRestoring: Bool
    @usableFromInline var agentState: JSONValue?
    @usableFromInline var needsAgentStateSnapshot: Bool
    @usableFromInline var awaitingRun: RequestID?
    @usableFromInline var continuationAwaitingStorage: ClientMessageID?
    /// nil rather than empty, so that a state without any leaves the key out of its JSON.
    @usableFromInline var overlappingReplies: [StreamingReply]?

    init(conversationID: ConversationID?, epoch: IdentityEpoch, identity: UserIdentity?) {
      messages = MessageList()
      self.conversationID = conversationID
      title = nil
      status = .ongoing
      history = HistoryPaging()
      typing = [:]
      isUserTyping = false
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
      regenerateAfterReload = nil
      serverUnreadCount = nil
      savedReadCursor = nil
      outboxRecording = []
      credentialRenewal = nil
      isRestoring = false
      agentState = nil
      needsAgentStateSnapshot = false
      awaitingRun = nil
      continuationAwaitingStorage = nil
      overlappingReplies = nil
    }
  }
}

extension ConversationState: Equatable {
  /// Field by field, except that parts two versions share (every part a delta left alone) compare by
  /// identity. The reply first: it is what differs between two frames of a streamed reply.
  @inlinable public static func == (lhs: Self, rhs: Self) -> Bool {
    StreamingReply.areEqual(lhs.streamingReply, rhs.streamingReply) && lhs.agentActivity == rhs.agentActivity
      && lhs.cold == rhs.cold
  }
}

extension ConversationState: Codable {
  /// The hot fields' keys; the cold ones are `Cold`'s, in the same JSON object, so the encoding is one
  /// flat object with a key per field, as before the fields were split.
  private enum HotKeys: String, CodingKey {
    case streamingReply, agentActivity
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: HotKeys.self)
    streamingReply = try container.decodeIfPresent(StreamingReply.self, forKey: .streamingReply)
    agentActivity = try container.decode(AgentActivity.self, forKey: .agentActivity)
    cold = CopyOnWrite(try Cold(from: decoder))
  }

  public func encode(to encoder: any Encoder) throws {
    try cold.value.encode(to: encoder)
    var container = encoder.container(keyedBy: HotKeys.self)
    try container.encodeIfPresent(streamingReply, forKey: .streamingReply)
    try container.encode(agentActivity, forKey: .agentActivity)
  }
}

extension ConversationState: CustomReflectable {
  /// The fields by name, as if they were stored here (a state diff walks them).
  public var customMirror: Mirror {
    let hotFields: [Mirror.Child] = [("streamingReply", streamingReply as Any), ("agentActivity", agentActivity)]
    return Mirror(self, children: hotFields + Array(Mirror(reflecting: cold.value).children), displayStyle: .struct)
  }
}
