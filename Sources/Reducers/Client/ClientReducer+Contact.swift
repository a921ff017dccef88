import ConversationState
import Foundation

/// The anonymous user's contact details: the latest the host gave goes to the backend once, and again only
/// when they change. A retryable failure waits the outbox's backoff (30 s doubling to 240 s, full jitter) or
/// goes at once when the connection opens; an authorization failure waits for a fresh credential; a permanent
/// one is shown and not retried. They belong to the anonymous person: signing in or out forgets them.
extension ClientReducer {
  func setContactDetails(_ details: ContactDetails, _ state: inout ClientState) -> [ClientEffect] {
    // A signed-in user's details are their account's (`ChatClient.setContactDetails` refuses this).
    guard state.identity == nil else { return [] }
    if details == state.contact {
      switch state.contactUpload {
      case .idle, .sending, .refused: return []  // the backend has them, they are on their way, or it refused them
      case .waiting, .needsCredentials: break
      }
    }
    var effects = forgetContactUpload(&state)
    state.contact = details
    effects += sendContactDetails(&state)
    return effects
  }

  /// Sends `state.contact` now, unless a fresh credential is awaited.
  func sendContactDetails(_ state: inout ClientState) -> [ClientEffect] {
    guard let details = state.contact, !state.needsCredentials else {
      if state.contact != nil { state.contactUpload = .needsCredentials }
      return []
    }
    let request = state.beginRequest()
    state.contactUpload = .sending(request)
    return [.sendContactDetails(request, details)]
  }

  func contactDetailsSent(_ request: RequestID, _ state: inout ClientState) -> [ClientEffect] {
    guard state.contactUpload == .sending(request) else { return [] }
    state.contactUpload = .idle
    state.contactFailures = 0
    state.credentialRenewal = nil
    return []
  }

  func contactDetailsFailed(
    _ request: RequestID, _ error: ChatError, at: Date, jitter: Double, _ state: inout ClientState
  ) -> [ClientEffect] {
    guard state.contactUpload == .sending(request) else { return [] }
    state.backgroundError = error
    if error.isAuthorizationFailure {
      state.contactUpload = .needsCredentials
      return credentialRefused(by: request, error, &state)
    }
    guard error.retryable else {
      state.contactUpload = .refused(error)
      return []
    }
    state.contactFailures += 1
    let delay = policy.outboxBackoff.delay(attempt: state.contactFailures, jitter: jitter)
    state.contactUpload = .waiting(attempt: state.contactFailures, retryAt: finite(at).addingTimeInterval(delay))
    return [.startTimer(.contactRetry, seconds: delay)]
  }

  /// The backend proved reachable (the connection opened), or a fresh credential came: details that
  /// waited go now.
  func resumeContactUpload(_ state: inout ClientState) -> [ClientEffect] {
    switch state.contactUpload {
    case .waiting: return [.cancelTimer(.contactRetry)] + sendContactDetails(&state)
    case .needsCredentials: return sendContactDetails(&state)
    case .idle, .sending, .refused: return []
    }
  }

  /// Stops what was on its way or waiting (the details changed, or the person did).
  func forgetContactUpload(_ state: inout ClientState) -> [ClientEffect] {
    var effects: [ClientEffect] = []
    switch state.contactUpload {
    case .sending(let request): effects.append(.cancel(request))
    case .waiting: effects.append(.cancelTimer(.contactRetry))
    case .idle, .needsCredentials, .refused: break
    }
    state.contactUpload = .idle
    state.contactFailures = 0
    return effects
  }
}
