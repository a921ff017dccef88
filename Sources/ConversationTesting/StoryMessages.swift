public import ConversationState
public import Foundation

extension Date {
  /// A fixed point in time, `seconds` after the start of every story (2025-06-15T15:06:40Z), so stories
  /// that write times as small numbers read and replay the same everywhere.
  public static func story(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_750_000_000 + seconds) }
}

extension Message {
  /// A committed message from the server, created `seconds` into the story; its client ID is `srv-<id>`
  /// unless given.
  ///
  /// ```swift
  /// store.send(.realtime("c1", .messageCreated(.server("Hello", id: "s1", at: 1))))
  /// ```
  public static func server(
    _ text: String, id: String, role: Role = .assistant, at seconds: Double, author: ParticipantID? = nil,
    clientID: ClientMessageID? = nil
  ) -> Message {
    Message(
      clientID: clientID ?? ClientMessageID("srv-\(id)"), serverID: ServerMessageID(id), role: role,
      author: author, text: text, createdAt: .story(seconds), delivery: .sent,
      reply: role == .assistant ? .completed : nil)
  }

  /// The server's confirmation of the user's message `clientID`.
  public static func confirmed(_ text: String, clientID: ClientMessageID, serverID: String, at seconds: Double)
    -> Message
  {
    Message(
      clientID: clientID, serverID: ServerMessageID(serverID), role: .user, text: text, createdAt: .story(seconds),
      delivery: .sent)
  }
}

extension ConversationState {
  /// An existing conversation with `messages` already committed, all unread.
  public static func existing(_ messages: [Message] = [], id: ConversationID = "conv-1") -> ConversationState {
    var state = ConversationState(conversationID: id)
    for message in messages { state.messages.commit(message) }
    state.unreadCount = messages.filter { ReadCursor.isUnread($0, against: nil) }.count
    return state
  }
}
