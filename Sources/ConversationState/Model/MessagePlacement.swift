/// Where a new message goes in a conversation with branches (`ConversationState.branches`). A send without
/// one (`SendPayload.placement` nil) follows the server's newest message, as every send in a conversation
/// without branches does. Our protocol writes each case as `Docs/HTTP-PROTOCOL.md` (Branches) says.
public enum MessagePlacement: Hashable, Sendable, Codable {
  /// After this message: an edit follows the message before the one it edits; after a switch, a send
  /// follows the last message of the branch shown. On our wire, `"parent_id": "…"`.
  case after(ServerMessageID)
  /// Before every other message: an edit of the conversation's first message. On our wire,
  /// `"parent_id": null`.
  case first
  /// A sibling of this message, the one an edit replaces: the new message follows that message's parent,
  /// not the message itself. Used for an edit of the first message loaded while older history is not, so
  /// this device cannot name the parent (the server can). On our wire, `"sibling_of": "…"`. When the replaced
  /// message has no server ID either, the edit carries no placement and follows the server's newest.
  case beside(ServerMessageID)
}
