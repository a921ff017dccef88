import ConversationState
import Foundation

/// Merging messages from the server into the timeline: one path for confirmations, echoes, realtime
/// messages, history pages and sync, so deduplication and unread counting are decided in one place.
extension ConversationReducer {
  /// Commits a message the server delivered or confirmed, keeping the unread count and typing in step.
  func commitIncoming(_ message: Message, _ state: inout ConversationState) {
    var message = message
    message.delivery = .sent
    if !message.parts.isEmpty { message.completeFromParts() }
    // Every commit settles a call still streaming its input, a finished or cut-off reply's as a server's.
    if message.toolCalls.contains(where: { $0.outcome == .inputStreaming }) {
      message.toolCalls = message.toolCalls.map(\.settled)
    }
    // A server copy (a sync, a history page) of an answer that waits here knows nothing of the wait: the
    // local outcome and the calls' outcomes stand until the continuation or the user ends it.
    if message.reply == .completed, let serverID = message.serverID,
      let local = state.messages.read(serverID: serverID, { $0.reply?.isAwaiting == true ? $0 : nil }) ?? nil
    {
      message.reply = local.reply
      message.toolCalls = local.toolCalls
    }
    // A server copy (a companion's history page, a sync) knows nothing of what the agent's protocol kept on
    // the answer here (`providerMetadata`): what this device kept stands.
    if message.role == .assistant, message.providerMetadata == nil, let serverID = message.serverID,
      let kept = state.messages.read(serverID: serverID, \.providerMetadata) ?? nil
    {
      message.providerMetadata = kept
    }
    // A copy that arrived by server ID alone (an echo or a sync before this confirmation) is this same
    // message: it goes, and the entry with the client ID the UI knows stays.
    if let serverID = message.serverID, let copyID = state.messages.clientID(ofServerID: serverID),
      copyID != message.clientID, state.messages.contains(message.clientID),
      let copy = state.messages[clientID: copyID]
    {
      _ = state.messages.remove(copy.clientID)
      if ReadCursor.isUnread(copy, against: state.readCursor) { state.unreadCount -= 1 }
    }
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
    // Newest first, so an older page lands in front one message at a time in O(1) each. The sort moves
    // indices, not messages: a page arrives oldest first, and moving each message past the others cost
    // more than committing them all.
    let keys = valid.map(\.orderKey)
    for index in keys.indices.sorted(by: { keys[$0] > keys[$1] }) {
      let message = echoAware(valid[index], state)
      if !isOffScreenCopy(message, state) { commitIncoming(message, &state) }
    }
  }

  /// Whether `message`, from the server, is a copy of one the user moved off screen to a sibling path: a
  /// server that keeps no branches sends them again (a history page, a sync, an echo), and they stay
  /// siblings.
  func isOffScreenCopy(_ message: Message, _ state: ConversationState) -> Bool {
    !state.branches.isEmpty && !state.messages.contains(message.clientID) && state.branches.hides(message)
  }

  /// A server message that is the echo of one of the user's own sends keeps that send's client ID: found
  /// by server ID, or — for servers that never return the ID of the user's message — as the first server
  /// copy from the same author with the same text within `ChatPolicy.echoMatchWindow` of a message of the
  /// user's that has no server ID yet (confirmed without one, or queued).
  func echoAware(_ message: Message, _ state: ConversationState) -> Message {
    guard let serverID = message.serverID else { return message }
    if let (clientID, rating) = state.messages.read(serverID: serverID, { ($0.clientID, $0.rating) }) {
      var message = message
      message.clientID = clientID
      message.rating = rating
      return message
    }
    guard message.role == .user, !state.messages.contains(message.clientID),
      let local = localCopyWithoutServerID(of: message, state)
    else { return message }
    var matched = message
    matched.clientID = local.clientID
    matched.attachments = matched.attachments.isEmpty ? local.attachments : matched.attachments
    return matched
  }

  /// The user's own message that `copy` (from the server, with an ID) stands for: same text, a compatible
  /// author, no server ID yet, created within the match window. Queued ones first, then the newest
  /// committed ones back to the edge of the window.
  private func localCopyWithoutServerID(of copy: Message, _ state: ConversationState) -> Message? {
    let window = policy.echoMatchWindow
    func matches(_ local: Message) -> Bool {
      local.role == .user && local.serverID == nil && local.text == copy.text
        && (local.author == nil || copy.author == nil || local.author == copy.author)
        && abs(local.createdAt.timeIntervalSince(copy.createdAt)) <= window
    }
    if let queued = state.messages.outgoing.first(where: { $0.delivery == .queued && matches($0) }) { return queued }
    // Most servers return IDs: then nothing committed lacks one, and nothing needs scanning.
    guard state.messages.committedWithoutServerIDCount > 0 else { return nil }
    var found: Message?
    state.messages.forEachCommitted(
      createdBetween: copy.createdAt.addingTimeInterval(-window), and: copy.createdAt.addingTimeInterval(window)
    ) { local in
      if matches(local) { found = local }
      return found == nil
    }
    return found
  }

  func markRead(upTo serverID: ServerMessageID, _ state: inout ConversationState) -> [ConversationEffect] {
    guard let message = state.messages[serverID: serverID], message.isCommitted else {
      state.backgroundError = ChatError(.unknownMessage, "Cannot mark unknown message \(serverID) read.")
      return []
    }
    guard moveReadCursor(upTo: serverID, &state) else { return [] }
    return outboxConversation(state) == nil ? saveReadCursor(&state) : queueReadCursor(&state)
  }

  /// Moves the read cursor forward to `serverID` (never back); false when it did not move.
  func moveReadCursor(upTo serverID: ServerMessageID, _ state: inout ConversationState) -> Bool {
    guard let message = state.messages[serverID: serverID], message.isCommitted else { return false }
    let cursor = ReadCursor(messageID: serverID, orderKey: message.orderKey)
    if let current = state.readCursor, cursor.orderKey <= current.orderKey { return false }
    state.readCursor = cursor
    recountUnread(&state)
    // Read up to the newest message: whatever the server counted unread is read too.
    if state.messages.lastCommitted?.serverID == serverID { state.serverUnreadCount = nil }
    return true
  }

  /// Sends the read cursor to the server, coalesced: one request at a time, and the newest cursor goes out
  /// when it completes.
  func saveReadCursor(_ state: inout ConversationState) -> [ConversationEffect] {
    guard let conversationID = state.conversationID, let cursor = state.readCursor?.messageID,
      cursor != state.savedReadCursor,
      !state.requests.values.contains(where: { if case .readCursor = $0 { true } else { false } })
    else { return [] }
    let requestID = state.beginRequest(.readCursor(cursor))
    return [.submitReadCursor(requestID, conversationID, upTo: cursor)]
  }

  func readCursorSaved(_ requestID: RequestID, _ state: inout ConversationState) -> [ConversationEffect] {
    guard case .readCursor(let cursor) = state.requests[requestID] else { return [] }
    state.requests[requestID] = nil
    state.savedReadCursor = cursor
    credentialsProven(&state)
    return saveReadCursor(&state)
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
