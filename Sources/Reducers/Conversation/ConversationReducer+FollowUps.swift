import ConversationState

/// The follow-up queue (`FollowUpQueue`): what a send does while the agent answers, the user's changes to the
/// waiting turns, and the one place the queue drains (`advanceFollowUps`, after every action off the hot path).
extension ConversationReducer {
  /// The user's `send`: queued, sent after stopping the running reply, or sent at once, as
  /// `ChatPolicy.whileAnswering` says while the AI agent answers (or turns already wait: a new one goes
  /// behind them, whatever holds them). Offline, a send waits with the others in the conversation or the
  /// outbox, in order, as it always has: nothing is answering then.
  func sendOrQueue(_ outgoing: OutgoingMessage, _ state: inout ConversationState) -> [ConversationEffect] {
    guard Self.sendsWait(state) else { return send(outgoing, &state) }
    switch policy.whileAnswering {
    case .queue: return enqueue(outgoing, &state)
    case .overlap: return send(outgoing, &state)
    case .stopAndSend:
      if let refusal = sendRefusal(outgoing, state) { return refuse(refusal.code, refusal.message, &state) }
      return stopReply(&state) + send(outgoing, &state)
    }
  }

  /// Guidance for the running turn: a follow-up sent next (first in the queue), or sent at once with nothing
  /// answering and nothing queued (`ConversationAction.steer`).
  func steer(_ outgoing: OutgoingMessage, _ state: inout ConversationState) -> [ConversationEffect] {
    guard Self.sendsWait(state) else { return send(outgoing, &state) }
    return enqueue(outgoing, at: 0, &state)
  }

  /// Whether a message written now waits its turn: the AI agent has the conversation, it is online, and the
  /// agent answers or turns already wait.
  private static func sendsWait(_ state: ConversationState) -> Bool {
    state.status == .ongoing && !state.connection.isOffline && (state.isAnswering || !state.followUps.isEmpty)
  }

  /// Puts `outgoing`, checked as `send` checks it, at `position` in the queue (the end when nil).
  func enqueue(_ outgoing: OutgoingMessage, at position: Int? = nil, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    if let refusal = sendRefusal(outgoing, state) { return refuse(refusal.code, refusal.message, &state) }
    guard state.followUps.turns.count < ChatPolicy.maximumFollowUps else {
      return refuse(
        .tooManyFollowUps,
        "At most \(ChatPolicy.maximumFollowUps) messages wait for the agent; send one now or remove one.", &state)
    }
    if state.followUps.index(of: outgoing.clientID) != nil {
      return refuse(.invalidAction, "A message with client ID \(outgoing.clientID) already waits in the queue.", &state)
    }
    var turn = outgoing
    turn.placement = nil  // where it goes is decided when it is sent
    state.followUps.turns.insert(turn, at: position ?? state.followUps.turns.count)
    state.draft = ""
    state.userError = nil
    closeFeedbackMomentBecauseUserWrote(&state)
    return []
  }

  func editQueued(_ clientID: ClientMessageID, text: String, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard let index = state.followUps.index(of: clientID) else { return refuseUnknownTurn(clientID, &state) }
    var turn = state.followUps.turns[index]
    turn.text = text
    if let refusal = contentRefusal(turn) { return refuse(refusal.code, refusal.message, &state) }
    state.followUps.turns[index] = turn
    state.userError = nil
    return []
  }

  func removeQueued(_ clientID: ClientMessageID, intoDraft: Bool, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard let index = state.followUps.index(of: clientID) else { return refuseUnknownTurn(clientID, &state) }
    let turn = state.followUps.turns.remove(at: index)
    if intoDraft { state.draft = turn.text }
    state.userError = nil
    return []
  }

  func moveQueued(_ clientID: ClientMessageID, to index: Int, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard let from = state.followUps.index(of: clientID) else { return refuseUnknownTurn(clientID, &state) }
    let turn = state.followUps.turns.remove(at: from)
    state.followUps.turns.insert(turn, at: min(max(0, index), state.followUps.turns.count))
    state.userError = nil
    return []
  }

  /// Stops the running reply (keeping what it streamed) and sends the turn at once, ahead of the others.
  func sendQueuedNow(_ clientID: ClientMessageID, _ state: inout ConversationState) -> [ConversationEffect] {
    guard let index = state.followUps.index(of: clientID) else { return refuseUnknownTurn(clientID, &state) }
    if let refusal = statusRefusal(state) { return refuse(refusal.code, refusal.message, &state) }
    var effects = stopReply(&state)
    let turn = state.followUps.turns.remove(at: index)
    state.followUps.pause = nil
    effects += sendNow(turn, &state)
    return effects
  }

  func resumeQueue(_ state: inout ConversationState) -> [ConversationEffect] {
    guard state.followUps.pause != nil else { return [] }
    state.followUps.pause = nil
    state.userError = nil
    // The ending that paused it is judged: resuming must not pause again for the same message.
    state.followUps.judged = state.messages.last?.clientID
    return []
  }

  /// Drains or pauses the queue after an action: the first turn goes when nothing is answering and the last
  /// message ended well; an answer cut short or a failed message pauses it (once per message); an answer
  /// that waits for the user holds it. O(1) when the queue is empty.
  func advanceFollowUps(_ state: inout ConversationState) -> [ConversationEffect] {
    guard !state.followUps.isEmpty, state.followUps.pause == nil, !state.isAnswering, state.status.acceptsMessages
    else { return [] }
    if let last = state.messages.last, last.clientID != state.followUps.judged {
      if case .failed = last.delivery {
        state.followUps.pause = .sendFailed(last.clientID)
        state.followUps.judged = last.clientID
        return []
      }
      if last.role == .assistant, let reply = last.reply {
        if reply.isAwaiting { return [] }
        if reply.isCutShort {
          state.followUps.pause = .answerEnded(last.clientID, reply)
          state.followUps.judged = last.clientID
          return []
        }
      }
    }
    return sendNow(state.followUps.turns.removeFirst(), &state)
  }

  /// Sends a turn the queue held, as `send` sends a message but leaving the draft alone (the user may be
  /// writing the next one). It is checked again, as the policy may have changed since it was queued: one
  /// refused now goes back first in the queue, which pauses (`FollowUpPause.refused`); nothing is lost.
  private func sendNow(_ turn: OutgoingMessage, _ state: inout ConversationState) -> [ConversationEffect] {
    if let refusal = sendRefusal(turn, state) {
      let error = ChatError(refusal.code, refusal.message)
      state.followUps.turns.insert(turn, at: 0)
      state.followUps.pause = .refused(turn.clientID, error)
      state.userError = error
      return []
    }
    return send(turn, clearingDraft: false, &state)
  }

  private func refuseUnknownTurn(_ clientID: ClientMessageID, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    refuse(.unknownMessage, "No message \(clientID) waits in the queue; it may have been sent.", &state)
  }
}
