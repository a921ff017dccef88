import ConversationState
import Foundation

/// Generic request outcomes: what a failure or a bare success means for each kind of request.
extension ConversationReducer {
  func requestFailed(
    _ requestID: RequestID, _ error: ChatError, at: Date?, jitter: Double, _ state: inout ConversationState
  ) -> [ConversationEffect] {
    guard let purpose = state.requests.removeValue(forKey: requestID) else { return [] }
    // A reply that will be resumed keeps its app tools running: the server's run goes on without us.
    if let reply = state.streamingReply, reply.requestID == requestID,
      let resuming = resumeAfterDrop(reply, purpose, error, jitter: jitter, &state)
    {
      return resuming
    }
    var effects = cancelTools(of: requestID, &state) + followServerStatus(error, &state)
    if error.isAuthorizationFailure && purpose != .credentials {
      if case .send(let clientID) = purpose, state.streamingReply?.requestID != requestID {
        // Held, not failed: it goes out once the credential is fixed.
        state.messages.update(clientID) { if $0.delivery == .sending { $0.delivery = .pending } }
      } else {
        effects += settleFailure(purpose, requestID, error, at: at, jitter: jitter, &state)
      }
      return effects + authorizationFailed(error, from: requestID, &state)
    }
    return effects + settleFailure(purpose, requestID, error, at: at, jitter: jitter, &state)
  }

  private func settleFailure(
    _ purpose: PendingRequest, _ requestID: RequestID, _ error: ChatError, at: Date?, jitter: Double,
    _ state: inout ConversationState
  ) -> [ConversationEffect] {
    switch purpose {
    case .send(let clientID):
      if let reply = state.streamingReply, reply.requestID == requestID {
        let ended = droppedError(reply, error)
        interrupt(reply, ended, &state)
        state.userError = ended
        return dispatchPendingMessages(&state)
      }
      if error.code == .conversationChanged, state.messages[clientID: clientID]?.delivery == .sending,
        state.resentAfterReload.insert(clientID).inserted
      {
        // The server's advice: reload the conversation, then send again (once).
        state.messages.update(clientID) { $0.delivery = .pending }
        state.agentActivity = .idle
        return reloadHistory(&state) + dispatchPendingMessages(&state)
      }
      failOutgoing(clientID, error, &state)
      state.agentActivity = .idle
      state.userError = error
      return holdForRateLimit(error, at: at, &state) + dispatchPendingMessages(&state)

    case .regenerate(let answer):
      var error = error
      if let reply = state.streamingReply, reply.requestID == requestID {
        error = droppedError(reply, error)
        endNewestReply(&state)
      } else if error.code == .conversationChanged, state.resentAfterReload.insert(answer).inserted {
        // The server's advice, as for a send: reload the newest page, then regenerate again (once).
        state.agentActivity = .idle
        state.regenerateAfterReload = answer
        return reloadHistory(&state)
      }
      state.agentActivity = .idle
      state.userError = error
      return holdForRateLimit(error, at: at, &state)

    case .history:
      state.history.loadingRequest = nil
      state.history.requestedCursor = nil
      if state.history.isLoadingStored {
        // Storage could not be read: the server has the same history, so paging goes on from there.
        state.history.isLoadingStored = false
        state.history.hasStoredHistory = false
      }
      state.regenerateAfterReload = nil  // the reload it waited for failed: that error is the user's now
      state.userError = error
      return dispatchPendingMessages(&state)

    case .sync:
      return syncFailed(error, at: at, jitter: jitter, &state)

    case .rating(let clientID, _, _):
      settleRating(clientID, &state)
      state.userError = error
      return []

    case .feedback(let previous):
      state.feedbackMoment = previous
      state.userError = error
      return []

    case .connect:
      connectionFailed(error, &state)
      return []

    case .ticket:
      if case .creating(let draft, _) = state.escalation { state.escalation = .failed(draft, error) }
      state.userError = error
      return []

    case .readCursor:
      // Best effort: the cursor stays moved here and is sent again with the next move.
      return []

    case .credentials:
      return credentialsUnavailable(error, &state)

    case .upload(let clientID, _):
      // The message cannot go out without it: failed, retryable; a retry uploads only what is not stored.
      failOutgoing(clientID, error, &state)
      state.userError = error
      return []

    case .tool:
      // A tool's failure arrives as `toolRan(.failed)`; a bare failure of its request is reported the same way.
      state.requests[requestID] = purpose
      return toolRan(requestID, .failed(error), &state)

    case .toolResult:
      // The agent will not get this result; its reply ends (or times out) on the server's side.
      state.backgroundError = error
      return []

    case .continuation(let answer):
      var error = error
      if let reply = state.streamingReply, reply.requestID == requestID {
        error = droppedError(reply, error)
        interrupt(reply, error, &state)
      } else {
        endContinued(answer, error, &state)
      }
      state.userError = error
      return holdForRateLimit(error, at: at, &state)

    case .realtimeReply:
      // Nothing of ours carries such a reply; a failure reported for it ends it as any reply's would (a drop
      // cuts it off, `truncated`).
      if let reply = state.streamingReply, reply.requestID == requestID {
        interrupt(reply, droppedError(reply, error), &state)
      }
      return []
    }
  }

  /// Errors that tell where the conversation stands move its status, so the next send is not tried
  /// blindly; only to where the server says it stands, never to a guess.
  func followServerStatus(_ error: ChatError, _ state: inout ConversationState) -> [ConversationEffect] {
    if let named = error.conversationStatus {
      return named == state.status ? [] : statusChanged(to: named, &state)
    }
    let status: ConversationStatus
    switch error.code {
    case .conversationNotOngoing:
      // Said when the conversation ended and when a person took it over (messages then go to them): the
      // newest page says which. Until it does the status stays, and sends keep working.
      return state.conversationID == nil ? [] : reloadHistory(&state)
    case .conversationNotFound: status = .notFound
    case .chatUnavailable: status = .unavailable
    default: return []
    }
    return statusChanged(to: status, &state)
  }

  /// After `RATE_LIMITED` with a `retryAfter`: nothing is sent before it has passed. The server's wait is
  /// clamped by `ChatPolicy.serverDelay`, so no hint can hold sends for longer than the policy allows.
  private func holdForRateLimit(_ error: ChatError, at: Date?, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard error.code == .rateLimited, let hint = error.retryAfter, let seconds = policy.serverDelay(hint),
      seconds > 0
    else { return [] }
    state.retryableAt = (at ?? Date(timeIntervalSinceReferenceDate: 0)).addingTimeInterval(seconds)
    return [.startTimer(.rateLimitOver, seconds: seconds)]
  }

  func requestSucceeded(_ requestID: RequestID, _ state: inout ConversationState) -> [ConversationEffect] {
    switch state.requests[requestID] {
    case .send, .regenerate, .continuation: return streamClosed(requestID, &state)
    case .rating(let clientID, _, let requested):
      state.requests[requestID] = nil
      if requestID.sequence > state.acceptedRatings[clientID]?.requestSequence ?? 0 {
        state.acceptedRatings[clientID] = AcceptedRating(rating: requested, requestSequence: requestID.sequence)
      }
      settleRating(clientID, &state)
      credentialsProven(&state)
      return []
    case .feedback, .ticket:
      state.requests[requestID] = nil
      credentialsProven(&state)
      return []
    case .readCursor:
      return readCursorSaved(requestID, &state)
    case .realtimeReply:
      return streamClosed(requestID, &state)
    case .toolResult:
      state.requests[requestID] = nil
      return []
    case .tool, .upload:
      return []
    case .history, .sync, .connect, .credentials, nil:
      // These succeed with a payload (`historyLoaded`, `syncLoaded`, `connectionOpened`,
      // `credentialsRefreshed`); a bare success carries nothing to apply and keeps them in flight.
      return []
    }
  }

  /// Once no rating of an answer is in flight, it shows the last rating the server accepted: overlapping
  /// failures then can never leave one the server never saw.
  private func settleRating(_ clientID: ClientMessageID, _ state: inout ConversationState) {
    let inFlight = state.requests.values.contains { if case .rating(clientID, _, _) = $0 { true } else { false } }
    guard !inFlight, let accepted = state.acceptedRatings.removeValue(forKey: clientID) else { return }
    state.messages.update(clientID) { $0.rating = accepted.rating }
  }
}
