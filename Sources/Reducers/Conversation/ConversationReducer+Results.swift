import ConversationState

/// Generic request outcomes: what a failure or a bare success means for each kind of request.
extension ConversationReducer {
  func requestFailed(_ requestID: RequestID, _ error: ChatError, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard let purpose = state.requests.removeValue(forKey: requestID) else { return [] }
    switch purpose {
    case .send(let clientID):
      if let reply = state.streamingReply, reply.requestID == requestID {
        interrupt(reply, error, &state)
      } else {
        failOutgoing(clientID, error, &state)
        state.agentActivity = .idle
      }
      state.userError = error
      return dispatchPendingMessages(&state)

    case .regenerate:
      if let reply = state.streamingReply, reply.requestID == requestID { state.streamingReply = nil }
      state.agentActivity = .idle
      state.userError = error
      return []

    case .history:
      state.history.loadingRequest = nil
      state.userError = error
      return []

    case .sync:
      state.backgroundError = error
      guard !error.isAuthorizationFailure else { return disconnect(&state) }
      return [.startTimer(.resync, seconds: Self.resyncDelay)]

    case .rating(let clientID, let previous, let requested):
      // Roll back only if no later rating replaced this one meanwhile.
      state.messages.update(clientID) { message in
        if message.rating == requested { message.rating = previous }
      }
      state.userError = error
      return []

    case .feedback(let previous):
      state.feedbackMoment = previous
      state.userError = error
      return []

    case .connect:
      // Connection failures carry time and jitter as `connectionLost`; a bare failure closes it.
      state.connection = .closed
      state.backgroundError = error
      return []

    case .ticket:
      if case .creating(let draft, _) = state.escalation { state.escalation = .failed(draft, error) }
      state.userError = error
      return []
    }
  }

  func requestSucceeded(_ requestID: RequestID, _ state: inout ConversationState) -> [ConversationEffect] {
    switch state.requests[requestID] {
    case .send, .regenerate: return streamClosed(requestID, &state)
    case .rating, .feedback, .ticket:
      state.requests[requestID] = nil
      return []
    case .history, .sync, .connect, nil:
      // These succeed with a payload (`historyLoaded`, `syncLoaded`, `connectionOpened`); a bare success
      // carries nothing to apply and keeps them in flight.
      return []
    }
  }
}
