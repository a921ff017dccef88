/// One row of a conversation as a list view shows it: a message, or the reply being streamed.
public enum ConversationRow: Equatable, Sendable, Identifiable {
  /// A message of the conversation, committed or still outgoing.
  case message(Message)
  /// The assistant reply being streamed; always the last row while it lasts.
  case reply(StreamingReply)

  /// The row's ID, the one change sets use: the message's client ID, or the reply's.
  public var id: ClientMessageID {
    switch self {
    case .message(let message): return message.clientID
    case .reply(let reply): return reply.clientID
    }
  }
}

/// The rows of a conversation in display order: its messages, then the reply being streamed, if any.
///
/// A view over the state, built in O(1); indexing is O(log n). Together with `ConversationState.rowIndex(of:)`
/// it lets a toolkit turn a snapshot's change set into positional updates:
///
/// ```swift
/// for id in snapshot.changes.updated {
///   if let row = snapshot.state.rowIndex(of: id) { model.itemsChanged(position: row, removed: 1, added: 1) }
/// }
/// ```
public struct ConversationRows: RandomAccessCollection, Sendable {
  /// The messages shown before the streaming reply.
  public let messages: MessageList
  /// The reply being streamed, shown as the last row; nil when none is.
  public let reply: StreamingReply?

  /// The first row's position; always 0.
  public var startIndex: Int { 0 }
  /// One past the last row: the message count, plus one while a reply is streaming.
  public var endIndex: Int { messages.count + (reply == nil ? 0 : 1) }

  /// The row at `position` in display order; O(log n). The position must be below `endIndex`.
  public subscript(position: Int) -> ConversationRow {
    if position == messages.count, let reply { return .reply(reply) }
    return .message(messages[position])
  }
}

extension ConversationState {
  /// The messages and then the streaming reply, as the rows a list view shows.
  public var rows: ConversationRows { ConversationRows(messages: messages, reply: streamingReply) }

  /// The display position of the row with `clientID` (a message or the streaming reply); O(log n).
  public func rowIndex(of clientID: ClientMessageID) -> Int? {
    if let reply = streamingReply, reply.clientID == clientID, !messages.contains(clientID) { return messages.count }
    return messages.index(of: clientID)
  }
}
