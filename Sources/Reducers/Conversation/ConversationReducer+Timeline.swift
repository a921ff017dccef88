import ConversationState
import Foundation

/// Merging messages from the server into the timeline: one path for confirmations, echoes, realtime
/// messages, history pages and sync, so deduplication and unread counting are decided in one place.
extension ConversationReducer {
  /// Commits a message the server delivered or confirmed, keeping the unread count and typing in step.
  func commitIncoming(_ message: Message, _ state: inout ConversationState) {
    var message = message
    message.delivery = .sent
    switch state.messages.commit(message) {
    case .inserted:
      if ReadCursor.isUnread(message, against: state.readCursor) { state.unreadCount += 1 }
    case .replaced(let previous):
      let delta =
        (ReadCursor.isUnread(message, against: state.readCursor) ? 1 : 0)
        - (ReadCursor.isUnread(previous, against: state.readCursor) ? 1 : 0)
      state.unreadCount += delta
    case .unchanged:
      break
    }
    if let author = message.author, state.typing[author] != nil { state.typing[author] = nil }
  }

  /// Merges a batch from the server. Messages without a server ID cannot be deduplicated and are dropped
  /// with a background error that counts them; nothing else is lost.
  func mergeFromServer(_ messages: [Message], _ state: inout ConversationState) {
    let valid = messages.filter { $0.serverID != nil }
    if valid.count < messages.count {
      state.backgroundError = ChatError(
        .invalidEvent, "\(messages.count - valid.count) message(s) from the server had no ID and were skipped.")
    }
    // Newest first, so an older page lands in front one message at a time in O(1) each.
    for message in valid.sorted(by: { $0.orderKey > $1.orderKey }) {
      commitIncoming(echoAware(message, state), &state)
    }
  }

  /// A server message that is the echo of one of the user's own sends keeps that send's client ID.
  func echoAware(_ message: Message, _ state: ConversationState) -> Message {
    guard let serverID = message.serverID, let known = state.messages[serverID: serverID] else { return message }
    var message = message
    message.clientID = known.clientID
    message.rating = known.rating
    return message
  }

  func markRead(upTo serverID: ServerMessageID, _ state: inout ConversationState) -> [ConversationEffect] {
    guard let message = state.messages[serverID: serverID], message.isCommitted else {
      state.backgroundError = ChatError(.unknownMessage, "Cannot mark unknown message \(serverID) read.")
      return []
    }
    let cursor = ReadCursor(messageID: serverID, orderKey: message.orderKey)
    if let current = state.readCursor, cursor.orderKey <= current.orderKey { return [] }
    state.readCursor = cursor
    recountUnread(&state)
    return []
  }

  /// Counts unread messages from the newest back to the read cursor: O(unread), not O(history).
  func recountUnread(_ state: inout ConversationState) {
    let cursor = state.readCursor
    var unread = 0
    state.messages.forEachCommittedNewestFirst { message in
      if let cursor, message.orderKey <= cursor.orderKey { return false }
      if ReadCursor.isUnread(message, against: cursor) { unread += 1 }
      return true
    }
    state.unreadCount = unread
  }
}
