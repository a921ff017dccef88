import ConversationState
import Foundation

/// The meta record: what a conversation file keeps besides its messages, its streamed reply, its draft and
/// its branches. That is the conversation's `ConversationState.Stored` group, whole but for the branches (a
/// field added there is written here with no change to this type), with the person's identity, epoch and
/// request counter. Nothing here is a credential; requests, typing and errors are not kept (they belong to
/// the run that made them).
///
/// One flat JSON object, a key per field, as it was before the groups existed.
struct ConversationMeta: Equatable, Codable {
  var stored: ConversationState.Stored
  var identity: UserIdentity?
  var epoch: IdentityEpoch
  var requestSequence: UInt64
  /// Format version 1 kept the draft here; version 2 keeps it in its own record so a keystroke does not
  /// rewrite the rest. Read from version-1 files only.
  var draft: String?

  private enum CodingKeys: String, CodingKey {
    case identity, epoch, requestSequence, draft
  }

  init(_ state: ConversationState) {
    stored = state.stored.forFile
    // Format 6 on keeps them in a record of their own (`ConversationRecord.branches`): they hold whole
    // messages, and a read cursor moving must not rewrite them.
    stored.branches = nil
    identity = state.identity
    epoch = state.epoch
    requestSequence = state.requestSequence
    draft = nil
  }

  init(from decoder: any Decoder) throws {
    stored = try ConversationState.Stored(from: decoder)
    let container = try decoder.container(keyedBy: CodingKeys.self)
    identity = try container.decodeIfPresent(UserIdentity.self, forKey: .identity)
    epoch = try container.decode(IdentityEpoch.self, forKey: .epoch)
    requestSequence = try container.decode(UInt64.self, forKey: .requestSequence)
    draft = try container.decodeIfPresent(String.self, forKey: .draft)
  }

  func encode(to encoder: any Encoder) throws {
    try stored.encode(to: encoder)
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encodeIfPresent(identity, forKey: .identity)
    try container.encode(epoch, forKey: .epoch)
    try container.encode(requestSequence, forKey: .requestSequence)
    try container.encodeIfPresent(draft, forKey: .draft)
  }

  /// Sets `state`'s stored fields; its branches are those of a meta record written before format 6, none
  /// since (the branches record, read after, sets them).
  func apply(to state: inout ConversationState) {
    state.stored = stored
    state.identity = identity
    state.epoch = epoch
    state.requestSequence = requestSequence
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
