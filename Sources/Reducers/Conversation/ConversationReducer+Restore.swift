import ConversationState

/// A store opened before its stored copy was read (a client reads files on its worker): the copy lands
/// under what the user did meanwhile.
extension ConversationReducer {
  func restored(_ stored: ConversationState, _ state: inout ConversationState) -> [ConversationEffect] {
    // The new conversation's file (no ID) may be read after the server created the conversation: its copy
    // (a draft, messages written before) is still this store's, and the ID and history are the server's.
    let createdMeanwhile = stored.conversationID == nil && state.conversationID != nil
    guard state.isRestoring, stored.conversationID == state.conversationID || createdMeanwhile else { return [] }
    var merged = stored
    merged.isRestoring = false
    if createdMeanwhile {
      merged.conversationID = state.conversationID
      merged.history = state.history
      merged.status = state.status
    }
    // This run's and this person's (`ConversationState+Lifetimes.swift`): who is signed in, the connection,
    // the credential, what is in flight. Errors the stored copy showed stay under what this run shows.
    merged.session = state.session
    merged.requestSequence = max(stored.requestSequence, state.requestSequence)
    merged.run = state.run
    merged.isRestoring = false
    merged.userError = stored.userError
    merged.backgroundError = stored.backgroundError
    merged.outboxRecording.formUnion(stored.outboxRecording)
    merged.acceptedRatings = stored.acceptedRatings.merging(state.acceptedRatings) { _, now in now }
    merged.history.takeLoads(of: state.history)
    merged.streamingReply = state.streamingReply
    merged.agentActivity = state.agentActivity
    var effects: [ConversationEffect] = []
    if let stored = stored.streamingReply, resumesAfterRelaunch(stored) {
      if state.streamingReply == nil {
        // The reply that streamed when the app stopped resumes from its stored cursor.
        merged.streamingReply = stored
        effects = resumeRelaunchedReply(&merged)
      } else {
        // A reply of this run streams already: the stored one ends with what it had.
        interrupt(stored, droppedError(stored, stored.resumption?.droppedBy ?? Self.newerReply), &merged)
        merged.streamingReply = state.streamingReply
      }
    }
    // What the user or the server said since the store opened is newer than the stored copy.
    if !state.draft.isEmpty { merged.draft = state.draft }
    if let title = state.title { merged.title = title }
    if let escalation = state.escalation { merged.escalation = escalation }
    if let error = state.userError { merged.userError = error }
    if let error = state.backgroundError { merged.backgroundError = error }
    // The messages of this run, O(k log n) for k of them: committed ones in server order (a history page
    // that came first), then the user's outgoing ones after the stored outgoing ones, in send order.
    for message in state.messages where message.isCommitted {
      let wasUnread = merged.messages[clientID: message.clientID].map {
        ReadCursor.isUnread($0, against: merged.readCursor)
      }
      merged.messages.commit(message)
      let isUnread = ReadCursor.isUnread(message, against: merged.readCursor)
      merged.unreadCount += (isUnread ? 1 : 0) - (wasUnread == true ? 1 : 0)
    }
    for message in state.messages.outgoing { merged.messages.appendOutgoing(message) }
    state = merged
    // An answer stored with every result and answer in hand but not yet continued (the app stopped first)
    // goes on now: its results are delivered again, never produced again.
    return effects + continueIfReady(&state)
  }
}
