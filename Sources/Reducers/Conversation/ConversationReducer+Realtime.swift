import ConversationState
import Foundation

extension ConversationReducer {
  func realtime(
    _ event: RealtimeEvent, in conversationID: ConversationID, connection: RequestID?, receivedAt: Date?,
    _ state: inout ConversationState
  ) -> [ConversationEffect] {
    // An event from a connection that is no longer the live one (closed, replaced) is stale.
    if let connection {
      guard state.requests[connection] == .connect else { return [] }
      connectionProvenHealthy(&state)
    }
    // Before the conversation exists the connection carries all of the user's events; those of other
    // conversations (and the early echo of the first send, which its response confirms anyway) are the
    // list's business, not an error.
    guard let current = state.conversationID else { return [] }
    guard conversationID == current else {
      state.backgroundError = ChatError(
        .eventForOtherConversation, "An event for conversation \(conversationID) reached \(current); ignored.")
      return []
    }
    switch event {
    case .messageCreated(let message):
      guard message.serverID != nil else {
        state.backgroundError = ChatError(.invalidEvent, "A realtime message arrived without an ID; ignored.")
        return []
      }
      let incoming = echoAware(message, state)
      if isOffScreenCopy(incoming, state) { return [] }
      if incoming.role == .user && !state.messages.contains(incoming.clientID) {
        // The user wrote from another device.
        closeFeedbackMomentBecauseUserWrote(&state)
      }
      commitIncoming(incoming, &state)
      return []

    case .messageEdited(let edited):
      // An edit of a message this client never loaded is not an error: it is outside the loaded window.
      guard let serverID = edited.serverID, let existing = state.messages[serverID: serverID] else { return [] }
      var updated = edited
      updated.clientID = existing.clientID
      updated.rating = existing.rating
      commitIncoming(updated, &state)
      return []

    case .messageDeleted(let serverID):
      guard let existing = state.messages[serverID: serverID] else { return [] }
      remove(existing.clientID, &state)
      return []

    case .transcript(let serverID, let text):
      guard let existing = state.messages[serverID: serverID] else { return [] }
      state.messages.update(existing.clientID) { message in
        message.text = text
        message.isPlaceholderText = false
      }
      return []

    case .typingStarted(let participant, let at):
      if let identity = state.identity, participant.rawValue == identity.userID { return [] }
      // The expiry is local: counted from when this device received the event, so a sender whose clock
      // is ahead or behind cannot make an indicator stick or vanish. `at` is the sender's clock.
      state.typing[participant] = (receivedAt ?? at).addingTimeInterval(policy.typingLifetime)
      return [.startTimer(.typingExpiry(participant), seconds: policy.typingLifetime)]

    case .typingStopped(let participant):
      guard state.typing.removeValue(forKey: participant) != nil else { return [] }
      return [.cancelTimer(.typingExpiry(participant))]

    case .statusChanged(let status):
      return statusChanged(to: status, &state)

    case .replyStarted(let serverID, let agent, let at):
      return realtimeReplyStarted(serverID, agent: agent, at: receivedAt ?? at, connection: connection, &state)

    case .replyDelta(let serverID, let delta):
      // The realtime hot path: O(delta), like a delta on a send's stream.
      guard state.streamingReply?.serverID == serverID else {
        // Many servers send no start: the first delta starts the reply.
        let at = receivedAt ?? state.messages.lastCommitted?.createdAt ?? Date(timeIntervalSinceReferenceDate: 0)
        let effects = realtimeReplyStarted(serverID, agent: nil, at: at, connection: connection, &state)
        guard state.streamingReply?.serverID == serverID else { return effects }
        return effects + appendDelta(delta, &state)
      }
      return appendDelta(delta, &state)

    case .replyFinished(let serverID, let message):
      if let reply = state.streamingReply, reply.serverID == serverID {
        var final = message
        final.serverID = serverID
        // A send's (or regeneration's) stream that carried the start is over too: stop listening to it.
        let carriedByRequest = state.requests[reply.requestID]?.isRealtimeReply == false
        let effects = replyFinished(reply.requestID, final, userMessageID: nil, &state)
        return carriedByRequest ? [.cancel(reply.requestID)] + effects : effects
      }
      // Finished without (or after) its stream here: it lands as a message like any other.
      var final = message
      final.serverID = serverID
      final.reply = .completed
      commitIncoming(echoAware(final, state), &state)
      return []

    case .titleChanged(let title):
      state.title = title
      return []

    case .feedbackOffered(let prompt):
      guard !state.hasOfferedFeedback else { return [] }
      state.hasOfferedFeedback = true
      state.feedbackMoment = FeedbackMoment(question: prompt.question, agentName: prompt.agentName)
      return []
    }
  }

  /// The server moved the conversation. Once it no longer accepts messages, waiting ones can never go
  /// out: they stay, failed, so nothing the user wrote is lost (and can be discarded or taken back).
  func statusChanged(to status: ConversationStatus, _ state: inout ConversationState) -> [ConversationEffect] {
    let wasAccepting = state.status.acceptsMessages
    state.status = status
    // A human took over (or it ended) while the AI was about to answer: no AI answer is coming.
    if status != .ongoing && state.agentActivity == .thinking && state.streamingReply == nil {
      state.agentActivity = .idle
    }
    if status.acceptsMessages { return wasAccepting ? [] : dispatchPendingMessages(&state) }
    guard let refusal = statusRefusal(state) else { return [] }
    let error = ChatError(refusal.code, refusal.message)
    for message in state.messages.outgoing where message.delivery == .pending {
      failOutgoing(message.clientID, error, &state)
    }
    return []
  }

  func setTyping(_ isTyping: Bool, _ state: inout ConversationState) -> [ConversationEffect] {
    guard isTyping != state.isUserTyping, let conversationID = state.conversationID else { return [] }
    state.isUserTyping = isTyping
    return [.sendTypingSignal(conversationID, isTyping: isTyping, epoch: state.epoch)]
  }

  func timerFired(_ timer: TimerID, at: Date, _ state: inout ConversationState) -> [ConversationEffect] {
    switch timer {
    case .typingExpiry(let participant):
      // A refreshed indicator has a later expiry and its own timer: only an expired one goes. One whose
      // expiry is still ahead (counted from the sender's clock, when the event came without `receivedAt`)
      // waits out the rest, so it always goes; an expiry further ahead than a whole lifetime can only come
      // from a sender's clock running fast, and goes now.
      guard let expiry = state.typing[participant] else { return [] }
      let remaining = expiry.timeIntervalSince(at)
      guard remaining > 0, remaining <= policy.typingLifetime else {
        state.typing[participant] = nil
        return []
      }
      return [.startTimer(.typingExpiry(participant), seconds: remaining)]
    case .reconnect:
      // Polling mode arms no reconnect timer: its failed polls wait on the poll timer.
      guard case .reconnecting = state.connection, policy.connectionMode == .realtime else { return [] }
      return openConnection(&state)
    case .resync:
      guard state.connection == .syncing else { return [] }
      return startSync(&state)
    case .replyResume:
      return resumeReply(&state)
    case .rateLimitOver:
      guard state.retryableAt != nil else { return [] }
      state.retryableAt = nil
      return dispatchPendingMessages(&state)
    case .poll:
      return poll(&state)
    case .pace:
      return releasePacedText(&state)
    case .connectionHealthy:
      connectionProvenHealthy(&state)
      return []
    }
  }

  func updateAttachment(
    _ clientID: ClientMessageID, _ attachmentID: AttachmentID, progress: Double, url: URL?,
    _ state: inout ConversationState
  ) -> [ConversationEffect] {
    guard progress.isFinite, (0...1).contains(progress) else {
      state.backgroundError = ChatError(.invalidEvent, "Upload progress \(progress) is outside 0…1; ignored.")
      return []
    }
    guard let message = state.messages[clientID: clientID],
      let index = message.attachments.firstIndex(where: { $0.id == attachmentID })
    else {
      state.backgroundError = ChatError(.unknownMessage, "No attachment \(attachmentID) on message \(clientID).")
      return []
    }
    state.messages.update(clientID) { message in
      message.attachments[index].uploadProgress = max(message.attachments[index].uploadProgress, progress)
      if let url { message.attachments[index].url = url }
    }
    return []
  }

  /// A reply that streams over the realtime connection. One that continues a send's reply (the send's start
  /// named the same server ID), or one already finished, changes nothing.
  func realtimeReplyStarted(
    _ serverID: ServerMessageID, agent: AgentInfo?, at: Date, connection: RequestID?, _ state: inout ConversationState
  ) -> [ConversationEffect] {
    if state.streamingReply?.serverID == serverID || state.messages[serverID: serverID] != nil { return [] }
    let requestID = state.beginRequest(.realtimeReply(serverID))
    let effects = replyStarted(requestID, agent, at, replyID: serverID, &state)
    if state.streamingReply?.requestID == requestID { state.streamingReply?.connection = connection }
    return effects
  }

  /// Shows the next part of a paced reply; the timer goes on while there is more to show.
  func releasePacedText(_ state: inout ConversationState) -> [ConversationEffect] {
    guard case .paced(let bytesPerSecond) = policy.replyPresentation, let reply = state.streamingReply,
      let presented = reply.presentedUTF8Count
    else { return [] }
    // A pace only a host could set (NaN, negative, infinite) must not trap: at least a byte a tick, at most
    // more than any reply holds.
    let perTick = bytesPerSecond * ReplyPresentation.paceTick
    let step = perTick.isNaN || perTick < 1 ? 1 : Int(min(perTick, Double(Int32.max)))
    let next = min(reply.text.utf8Count, presented + step)
    state.streamingReply?.presentedUTF8Count = next
    return next < reply.text.utf8Count ? [.startTimer(.pace, seconds: ReplyPresentation.paceTick)] : []
  }
}
