/// Where a new message goes in a conversation with branches (`ConversationState.branches`): after a given
/// message of the path on screen, first of all, or beside the message an edit replaced. A send without one (`SendPayload.placement` nil) follows
/// the server's newest message, as every send in a conversation without branches does.
public enum MessagePlacement: Hashable, Sendable, Codable {
  /// After this message: an edit follows the message before the one it edits; after a switch, a send
  /// follows the last message of the branch shown.
  case after(ServerMessageID)
  /// Before every other message: an edit of the conversation's first message.
  case first
  /// As a sibling of this message, after whatever it follows: an edit of the first message loaded while
  /// older history is not, so this device cannot name the message before it (the server can).
  case beside(ServerMessageID)
}
