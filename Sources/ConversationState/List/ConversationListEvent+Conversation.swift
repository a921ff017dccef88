/// The one path from a conversation's messages into its list row: what the list learns from a conversation
/// that is open (`reporting(from:to:changes:)`, a step of its state) and from one that is not (a realtime
/// event, `init?(_:in:)`) is built here, from the same message, the same way.
extension ConversationListEvent {
  /// `message` of `conversation` is the row's newest, with its preview and the server's ID (which makes
  /// the same message told twice count once).
  public static func messageCreated(_ message: Message, in conversation: ConversationID) -> ConversationListEvent {
    .messageCreated(
      conversation, preview: message.text, role: message.role, at: message.createdAt, messageID: message.serverID)
  }

  /// What the list learns from one step of an open conversation, from `previous` to `state` (`changes`
  /// between their messages): the user's message as soon as it is written and anyone else's once committed
  /// (a streamed reply is a row before it is a message, so its commit counts, not its first delta), in the
  /// order they were written; a new status or title; and `markRead` when the conversation was read, also
  /// when a message arrived and was read between the two states. Nothing for a conversation without an ID.
  ///
  /// ```swift
  /// for action in ConversationListEvent.reporting(from: before, to: after, changes: snapshot.changes) {
  ///   list.send(action)
  /// }
  /// ```
  public static func reporting(
    from previous: ConversationState, to state: ConversationState, changes: ChangeSet<ClientMessageID>
  ) -> [ConversationListAction] {
    guard let id = state.conversationID else { return [] }
    var actions: [ConversationListAction] = []
    var othersWrote = false
    if !changes.isReset {
      var arrived: [Message] = []
      for clientID in changes.inserted.union(changes.updated) {
        guard let message = state.messages[clientID: clientID] else { continue }
        let before = previous.messages[clientID: clientID]
        if message.role == .user ? before == nil : message.isCommitted && before?.isCommitted != true {
          arrived.append(message)
        }
      }
      arrived.sort { $0.createdAt < $1.createdAt }
      for message in arrived {
        actions.append(.realtime(.messageCreated(message, in: id)))
        othersWrote = othersWrote || message.role != .user
      }
    }
    if state.status != previous.status { actions.append(.realtime(.statusChanged(id, state.status))) }
    if let title = state.title, title != previous.title { actions.append(.realtime(.titleChanged(id, title))) }
    if state.unreadCount == 0 && (previous.unreadCount > 0 || othersWrote) { actions.append(.markRead(id)) }
    return actions
  }
}
