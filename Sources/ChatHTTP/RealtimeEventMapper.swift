public import ConversationState
public import ConversationStore
public import Foundation
public import ServerSentEvents

/// Turns the realtime stream's typed events (`message.created`, `typing.started`, … in
/// `Docs/HTTP-PROTOCOL.md`) into the store's realtime events, and those about the user's list
/// (`conversation.updated`, `conversation.deleted`) into list events (`listEvents(_:receivedAt:)`).
/// Unknown types give nil, and so does a
/// `message.deleted` with `"branch": true` (the message left the server's line and is kept as a branch;
/// the store keeps its own tree); a frame whose JSON
/// cannot be read throws `INVALID_EVENT`, and so does a message whose sources cannot be (see
/// `ReplyStreamMapper` for what a source must have).
public enum RealtimeEventMapper {
  /// The conversation and event `event` stands for; `receivedAt` (the device's clock) stands in for
  /// times the server leaves out. A message's `sources` become its parts after its text; `policy` bounds
  /// them (`maximumPartsPerReply` - 1 sources, with the text the parts of a reply).
  public static func map(_ event: ServerSentEvent, receivedAt: Date, policy: ChatPolicy = ChatPolicy())
    throws(ChatError) -> RealtimeUpdate?
  {
    guard Self.known.contains(event.type) else { return nil }
    let frame = try event.withDataUTF8 { bytes throws(ChatError) in
      try WireJSON.decode(RealtimeFrame.self, from: Data(bytes), what: "a \"\(event.type)\" event")
    }
    let conversation = ConversationID(frame.conversationId)
    let maximumSources = policy.maximumSourcesPerMessage
    func required<T>(_ value: T?, _ key: String) throws(ChatError) -> T {
      guard let value else { throw ChatError(.invalidEvent, "A \"\(event.type)\" event came without \"\(key)\".") }
      return value
    }
    let mapped: RealtimeEvent
    switch event.type {
    case "message.created":
      mapped = .messageCreated(try required(frame.message, "message").message(maximumSources: maximumSources))
    case "message.edited":
      mapped = .messageEdited(try required(frame.message, "message").message(maximumSources: maximumSources))
    case "message.deleted":
      let message = ServerMessageID(try required(frame.messageId, "message_id"))
      // Left the server's line for a branch (an edit, a regeneration, a send after a switch): it still
      // exists. The store keeps its own tree, and this event may come after the user switched back to it:
      // taken as a deletion, it would remove what is on screen.
      if frame.branch == true { return nil }
      mapped = .messageDeleted(message)
    case "typing.started":
      mapped = .typingStarted(
        ParticipantID(try required(frame.participantId, "participant_id")), at: frame.at ?? receivedAt)
    case "typing.stopped": mapped = .typingStopped(ParticipantID(try required(frame.participantId, "participant_id")))
    case "conversation.status":
      let wire = try required(frame.status, "status")
      guard let status = ConversationStatus(wire: wire) else {
        throw ChatError(.invalidEvent, "A \"conversation.status\" event named the unknown status \"\(wire)\".")
      }
      mapped = .statusChanged(status)
    case "conversation.title": mapped = .titleChanged(try required(frame.title, "title"))
    case "feedback.offered":
      mapped = .feedbackOffered(
        FeedbackPrompt(question: try required(frame.question, "question"), agentName: frame.agentName))
    case "reply.started":
      mapped = .replyStarted(
        ServerMessageID(try required(frame.messageId, "message_id")), agent: frame.agent?.info,
        at: frame.at ?? receivedAt)
    case "reply.delta":
      mapped = .replyDelta(
        ServerMessageID(try required(frame.messageId, "message_id")), try required(frame.delta, "delta"))
    default:  // "reply.finished"
      let message = try required(frame.message, "message").message(maximumSources: maximumSources)
      guard let id = message.serverID else { throw ChatError(.invalidEvent, "A finished reply came without its ID.") }
      mapped = .replyFinished(id, message)
    }
    return .event(conversation, mapped)
  }

  /// What a frame about the user's list of conversations means for it, or nil for any other type (those are
  /// a conversation's: `map(_:receivedAt:policy:)`, which gives nil for these two). `conversation.updated`
  /// is one `ConversationListEvent.conversationChanged` per field it carries, in the order `title`,
  /// `pinned` (with `pinned_at`, else `receivedAt`), `archived`, `unread`; none when it carries none of
  /// them. `conversation.deleted` is `conversationDeleted`. A frame that cannot be read (a field of the
  /// wrong type, an empty title, no `conversation_id`) throws `INVALID_EVENT`.
  ///
  /// ```swift
  /// if let events = try RealtimeEventMapper.listEvents(event, receivedAt: Date()) {
  ///   for event in events { list.send(.realtime(event)) }
  /// }
  /// ```
  public static func listEvents(_ event: ServerSentEvent, receivedAt: Date) throws(ChatError)
    -> [ConversationListEvent]?
  {
    guard Self.listTypes.contains(event.type) else { return nil }
    let frame = try event.withDataUTF8 { bytes throws(ChatError) in
      try WireJSON.decode(ConversationUpdatedFrame.self, from: Data(bytes), what: "a \"\(event.type)\" event")
    }
    let conversation = ConversationID(frame.conversationId)
    guard event.type == "conversation.updated" else { return [.conversationDeleted(conversation)] }
    return try frame.changes(receivedAt: receivedAt).map { .conversationChanged(conversation, $0) }
  }

  /// The frames about the user's list (`listEvents(_:receivedAt:)`).
  static let listTypes: Set<String> = ["conversation.updated", "conversation.deleted"]

  static let known: Set<String> = [
    "message.created", "message.edited", "message.deleted", "typing.started", "typing.stopped",
    "conversation.status", "conversation.title", "feedback.offered", "reply.started", "reply.delta",
    "reply.finished",
  ]
}

private struct RealtimeFrame: Decodable {
  var conversationId: String
  var message: WireMessage?
  var messageId: String?
  var participantId: String?
  var status: String?
  var title: String?
  var question: String?
  var agentName: String?
  var agent: WireAgent?
  var delta: String?
  var branch: Bool?
  var at: Date?

  private enum CodingKeys: String, CodingKey {
    case conversationId = "conversation_id"
    case message
    case messageId = "message_id"
    case participantId = "participant_id"
    case status, title, question
    case agentName = "agent_name"
    case agent, delta, at, branch
  }
}
