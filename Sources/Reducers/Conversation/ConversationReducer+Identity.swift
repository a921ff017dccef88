import ConversationState

extension ConversationReducer {
  /// Identify or sign out: a new epoch, every request of the old one cancelled, the conversation and its
  /// queued work dropped. Results of the old epoch that still arrive are ignored (their request IDs carry it).
  ///
  /// Identifying the person already signed in (the same user ID in the same workspace) changes nothing but
  /// the identity's other fields (a new display name): apps identify on every launch, and that must not
  /// tear down the conversation under the user's screen.
  func switchIdentity(to identity: UserIdentity?, _ state: inout ConversationState) -> [ConversationEffect] {
    if let identity, let current = state.identity, identity.isSamePerson(as: current) {
      state.identity = identity
      return []
    }
    // Cancelling every request closes the connection too: it is the `connect` request.
    let effects = cancelAll(&state)
    let sequence = state.requestSequence
    state = ConversationState(epoch: state.epoch.next, identity: identity)
    state.requestSequence = sequence
    return effects
  }

  /// Starts a new conversation for the same identity; the connection, the credential and a rate limit
  /// stay as they are (they belong to the person, not the conversation).
  func clear(_ state: inout ConversationState) -> [ConversationEffect] {
    let kept = state.run.cleared
    state.requests = state.requests.filter { kept.requests[$0.key] == nil }
    var effects = cancelAll(&state, keepingConnectionTimers: true)
    var session = state.session
    if session.connection == .syncing {
      // The catch-up was of the conversation cleared; the connection itself stays live.
      session.connection = .connected
      effects.append(.cancelTimer(.resync))
    }
    state = ConversationState(session: session, run: kept)
    return effects
  }

  /// Shows an existing conversation (resume): the current one is cleared, the newest history page is
  /// asked for, and a live connection is re-opened for the conversation.
  func open(_ conversationID: ConversationID, _ state: inout ConversationState) -> [ConversationEffect] {
    guard !conversationID.rawValue.isEmpty else {
      return refuse(.invalidAction, "A conversation ID cannot be empty.", &state)
    }
    guard conversationID != state.conversationID else { return [] }
    var effects = clear(&state)
    state.conversationID = conversationID
    effects += retargetConnection(&state)
    return effects + reloadHistory(&state)
  }

  /// Signing in from anonymous, keeping the guest's conversation: a new epoch fences every request of the
  /// old one, but the conversation, its unsent and failed messages and the draft stay. Messages that were
  /// on their way go out again under the new identity with their client IDs (the idempotency keys).
  func upgradeGuest(to identity: UserIdentity, _ state: inout ConversationState) -> [ConversationEffect] {
    var shouldConnect = liveConnection(state) != nil
    if case .reconnecting = state.connection { shouldConnect = true }
    let interruptedReplies = state.liveReplies
    var effects = cancelAll(&state, keepingConnectionTimers: false)
    for reply in interruptedReplies {
      interrupt(reply, ChatError(.cancelled, "The reply stopped when you signed in."), &state)
    }
    for message in state.messages.outgoing where message.delivery == .sending {
      state.messages.update(message.clientID) { $0.delivery = .pending }
    }
    let author = ParticipantID(identity.userID)
    for message in state.messages.outgoing where message.author == nil {
      state.messages.update(message.clientID) { $0.author = author }
    }
    state.session = state.session.signedIn(identity)
    state.run = state.run.signedIn
    state.history.dropRequests()
    state.agentActivity = .idle
    effects += restartConnection(connecting: shouldConnect, &state)
    return effects + dispatchPendingMessages(&state)
  }

  /// Settles a state restored from disk: the run that started its requests is gone, so none of them will
  /// ever report back. Nothing is dropped that the user wrote.
  func relaunched(_ state: inout ConversationState) -> [ConversationEffect] {
    let stopped = ChatError(.network, "The app stopped before this finished.")
    for message in state.messages.outgoing where message.delivery == .sending {
      failOutgoing(message.clientID, stopped, &state)
    }
    let stoppedStreaming = ChatError(.incompleteStream, "The app stopped while this reply was streaming.")
    for reply in state.liveReplies {
      state.requests[reply.requestID] = nil
      // A reply whose stream can be resumed picks up from its stored cursor, as after a dropped connection.
      if reply.requestID == state.streamingReply?.requestID, resumesAfterRelaunch(reply) {
        state.streamingReply?.resumption?.failedAttempts = 0
        state.streamingReply?.resumption?.droppedBy = stoppedStreaming
        continue
      }
      interrupt(reply, stoppedStreaming, &state)
    }
    if case .creating(let draft, _) = state.escalation { state.escalation = .failed(draft, stopped) }
    settleToolsStoppedByRelaunch(&state)
    // The run that started the requests, the typing, the loads and the hand-overs to the outbox is gone.
    state.run = ConversationState.Run()
    state.session = state.session.relaunched
    state.history.dropRequests()
    state.agentActivity = .idle
    // At once: nothing has failed yet. (`connect` starts it too, for a host that drops these effects.)
    return state.streamingReply?.resumption == nil ? [] : [.startTimer(.replyResume, seconds: 0)]
  }

  /// The waiting answer's app calls that were running when the app stopped may have done their work: they
  /// are never run again (no tool runs twice for one call ID); each fails, and the agent is told so. A
  /// result stored before the app stopped stays, and goes to the agent when the store is restored.
  private func settleToolsStoppedByRelaunch(_ state: inout ConversationState) {
    guard var answer = awaitingAnswer(state) else { return }
    var changed = false
    for index in answer.toolCalls.indices
    where answer.toolCalls[index].execution == .client && answer.toolCalls[index].outcome == .running {
      answer.toolCalls[index].outcome = .failed(
        ChatError(.toolFailed, "The app stopped while this tool ran; it was not run again."))
      changed = true
    }
    if changed { commitIncoming(answer, &state) }
  }

  /// Cancel effects for every request in flight and every timer, in a stable order. The connection's
  /// timers (reconnect, poll) and a rate limit's stay when the connection does.
  private func cancelAll(_ state: inout ConversationState, keepingConnectionTimers: Bool = false)
    -> [ConversationEffect]
  {
    var effects = cancelRequests(&state) { _ in true }
    effects += state.typing.keys.sorted().map { .cancelTimer(.typingExpiry($0)) }
    if !keepingConnectionTimers {
      effects += [.cancelTimer(.reconnect), .cancelTimer(.resync), .cancelTimer(.rateLimitOver)]
      if policy.pollingInterval != nil { effects.append(.cancelTimer(.poll)) }
    }
    return effects
  }
}
