import ConversationState
import Foundation

/// What a conversation file keeps besides its messages, its streamed reply and its draft: the fields that
/// survive a relaunch. Nothing here is a credential; requests, typing and errors are not kept (they belong
/// to the run that made them).
struct ConversationMeta: Equatable, Codable {
  var conversationID: ConversationID?
  var title: String?
  var status: ConversationStatus
  var history: HistoryPaging
  var readCursor: ReadCursor?
  var savedReadCursor: ServerMessageID?
  var unreadCount: Int
  var serverUnreadCount: Int?
  var feedbackMoment: FeedbackMoment?
  var hasOfferedFeedback: Bool
  var escalation: Escalation?
  var identity: UserIdentity?
  var epoch: IdentityEpoch
  var requestSequence: UInt64
  var hasMissedMessagesGap: Bool
  /// The agent's shared state (format 4 on; absent before, read as none).
  var agentState: JSONValue?
  /// Format version 1 kept the draft here; version 2 keeps it in its own record so a keystroke does not
  /// rewrite the rest. Read from version-1 files only.
  var draft: String?

  init(_ state: ConversationState) {
    conversationID = state.conversationID
    title = state.title
    status = state.status
    history = state.history
    history.loadingRequest = nil
    history.isLoadingStored = false
    history.hasStoredHistory = false  // worked out again when the file opens
    history.isLoadingNewer = false
    history.trimmedBefore = nil  // this run's, like the gap: a reopened conversation shows its newest page
    history.newerGap = nil
    readCursor = state.readCursor
    savedReadCursor = state.savedReadCursor
    unreadCount = state.unreadCount
    serverUnreadCount = state.serverUnreadCount
    feedbackMoment = state.feedbackMoment
    hasOfferedFeedback = state.hasOfferedFeedback
    escalation = state.escalation
    identity = state.identity
    epoch = state.epoch
    requestSequence = state.requestSequence
    hasMissedMessagesGap = state.hasMissedMessagesGap
    agentState = state.agentState
    draft = nil
  }

  func apply(to state: inout ConversationState) {
    state.conversationID = conversationID
    state.title = title
    state.status = status
    state.history = history
    state.readCursor = readCursor
    state.savedReadCursor = savedReadCursor
    state.unreadCount = unreadCount
    state.serverUnreadCount = serverUnreadCount
    state.feedbackMoment = feedbackMoment
    state.hasOfferedFeedback = hasOfferedFeedback
    state.escalation = escalation
    state.identity = identity
    state.epoch = epoch
    state.requestSequence = requestSequence
    state.hasMissedMessagesGap = hasMissedMessagesGap
    state.agentState = agentState
    if let draft { state.draft = draft }
  }
}

/// The streamed reply's fields other than its text, which is stored in appended chunks.
struct ReplyHeader: Equatable, Codable {
  var requestID: RequestID
  var clientID: ClientMessageID
  var toolCalls: [ToolCall]
  var agent: AgentInfo?
  var startedAt: Date
  var replacing: ClientMessageID?
  var serverID: ServerMessageID?
  /// The reply's parts with their text so far (format 3 on; nil when it has none). Rewritten whole with
  /// each reply record, so a long reasoning costs its length per write, once per `replyWriteInterval`.
  var parts: [StreamingPart]?
  /// What the agent asked in the reply, with answers given so far (format 4 on; nil when none).
  var inputRequests: [InputRequest]?
  /// For a continuation run: how much the earlier run wrote (format 4 on).
  var continuing: ContinuationSeed?
  /// The position of the last event applied when this header was written, with the text written beside
  /// it: where a relaunch resumes the stream (nil when its stream numbers no events, and in files written
  /// before resuming came; both fields are optional JSON, so the format number stays).
  var resumePosition: StreamPosition?
  /// The request that streams the reply (a send, a regeneration, a continuation), which a resumed stream
  /// is settled as.
  var purpose: PendingRequest?

  init(_ reply: StreamingReply, purpose: PendingRequest? = nil) {
    requestID = reply.requestID
    clientID = reply.clientID
    toolCalls = reply.toolCalls
    agent = reply.agent
    startedAt = reply.startedAt
    replacing = reply.replacing
    serverID = reply.serverID
    parts = reply.parts.isEmpty ? nil : reply.parts
    inputRequests = reply.inputRequests.isEmpty ? nil : reply.inputRequests
    continuing = reply.continuing
    resumePosition = reply.resumePosition
    self.purpose = reply.resumePosition == nil ? nil : purpose
  }

  /// The header with its parts' streamed text left out: what must be written at once when it changes (a
  /// part started or ended), where text that only grew waits for the write interval.
  var shape: ReplyHeader {
    var shape = self
    shape.resumePosition = nil  // it moves with the text, and is written with it
    shape.parts = parts?.map { part in
      var part = part
      part.text = StreamedText()
      return part
    }
    return shape
  }

  func reply(text: StreamedText) -> StreamingReply {
    var reply = StreamingReply(
      requestID: requestID, clientID: clientID, text: text, toolCalls: toolCalls, agent: agent, startedAt: startedAt,
      replacing: replacing, serverID: serverID)
    if let parts { reply.restoreParts(parts) }
    reply.inputRequests = inputRequests ?? []
    reply.continuing = continuing
    reply.resumePosition = resumePosition
    if let purpose, resumePosition != nil {
      // What `.relaunched` needs to resume it; it counts its attempts from there.
      reply.resumption = ReplyResumption(
        purpose: purpose, failedAttempts: 0,
        droppedBy: ChatError(.incompleteStream, "The app stopped while this reply was streaming."))
    }
    return reply
  }
}
