/// Where to resume a reply whose stream dropped (`ChatBackend.resumeReply`): the conversation, the reply as
/// the server named it, and the position of the last event the device applied.
///
/// A backend resumes from just after `position` where its protocol can (an SSE `Last-Event-ID`, the Responses
/// API's `starting_after`); one whose server replays the stream from its start passes every event again
/// with the position it had the first time, and the store drops the ones it already applied
/// (`ReplyEvent.positioned`), so no text shows twice.
public struct ReplyCursor: Hashable, Sendable, Codable {
  /// The conversation the reply belongs to.
  public var conversationID: ConversationID
  /// The server's ID of the reply, when its stream named one (`ReplyEvent.started(replyID:)`).
  public var replyID: ServerMessageID?
  /// The position of the last event applied to the reply, as its stream numbered it.
  public var position: StreamPosition

  /// A cursor at `position` of reply `replyID` in `conversationID`.
  public init(conversationID: ConversationID, replyID: ServerMessageID?, position: StreamPosition) {
    self.conversationID = conversationID
    self.replyID = replyID
    self.position = position
  }
}
