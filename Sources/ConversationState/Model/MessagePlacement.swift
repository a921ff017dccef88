/// Where a new message goes in a conversation with branches (`ConversationState.branches`): after a given
/// message of the path on screen, or first of all. A send without one (`SendPayload.placement` nil) follows
/// the server's newest message, as every send in a conversation without branches does.
public enum MessagePlacement: Hashable, Sendable, Codable {
  /// After this message: an edit follows the message before the one it edits; after a switch, a send
  /// follows the last message of the branch shown.
  case after(ServerMessageID)
  /// Before every other message: an edit of the conversation's first message.
  case first
}
