/// One row of a conversation as a list view shows it: a message, or the reply being streamed.
public enum ConversationRow: Equatable, Sendable, Identifiable {
  /// A message of the conversation, committed or still outgoing.
  case message(Message)
  /// An assistant reply being streamed: the newest is always the last row while it lasts, older ones
  /// still streaming (`ConversationState.overlappingReplies`) just before it.
  case reply(StreamingReply)

  /// The row's ID, the one change sets use: the message's client ID, or the reply's.
  public var id: ClientMessageID {
    switch self {
    case .message(let message): return message.clientID
    case .reply(let reply): return reply.clientID
    }
  }
}

/// The rows of a conversation in display order: its messages, then the replies being streamed, if any
/// (older ones still streaming, then the newest).
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
  /// The messages shown before the streaming replies.
  public let messages: MessageList
  /// Older replies still streaming, shown after the messages; almost always empty.
  public let overlapping: [StreamingReply]
  /// The newest reply being streamed, shown as the last row; nil when none is.
  public let reply: StreamingReply?

  /// The rows of `messages`, then `overlapping`, then `reply`.
  public init(messages: MessageList, overlapping: [StreamingReply] = [], reply: StreamingReply?) {
    self.messages = messages
    self.overlapping = overlapping
    self.reply = reply
  }

  /// The first row's position; always 0.
  public var startIndex: Int { 0 }
  /// One past the last row: the message count, plus one per reply streaming.
  public var endIndex: Int { messages.count + overlapping.count + (reply == nil ? 0 : 1) }

  /// The row at `position` in display order; O(log n). The position must be below `endIndex`.
  public subscript(position: Int) -> ConversationRow {
    if position < messages.count { return .message(messages[position]) }
    let offset = position - messages.count
    if offset < overlapping.count { return .reply(overlapping[offset]) }
    return .reply(reply!)
  }
}

extension ConversationState {
  /// The messages and then the streaming replies, as the rows a list view shows.
  public var rows: ConversationRows {
    ConversationRows(messages: messages, overlapping: overlappingReplies, reply: streamingReply)
  }

  /// The display position of the row with `clientID` (a message or a streaming reply); O(log n).
  public func rowIndex(of clientID: ClientMessageID) -> Int? {
    if let index = messages.index(of: clientID) { return index }
    let overlapping = overlappingReplies
    if let offset = overlapping.firstIndex(where: { $0.clientID == clientID }) { return messages.count + offset }
    if let reply = streamingReply, reply.clientID == clientID { return messages.count + overlapping.count }
    return nil
  }
}
