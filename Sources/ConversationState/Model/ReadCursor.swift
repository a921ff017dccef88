/// The newest message the user has seen. It only moves forward.
public struct ReadCursor: Hashable, Sendable, Codable {
  /// The server ID of the newest message the user has seen.
  public var messageID: ServerMessageID
  /// That message's place in server order; messages after it count as unread.
  public var orderKey: MessageOrderKey

  /// A cursor at a confirmed message.
  public init(messageID: ServerMessageID, orderKey: MessageOrderKey) {
    self.messageID = messageID
    self.orderKey = orderKey
  }

  /// Whether `message` counts as unread against this cursor (`nil`: nothing read yet). The user's own
  /// messages never do.
  public static func isUnread(_ message: Message, against cursor: ReadCursor?) -> Bool {
    guard message.role != .user, message.isCommitted else { return false }
    guard let cursor else { return true }
    return message.orderKey > cursor.orderKey
  }
}
