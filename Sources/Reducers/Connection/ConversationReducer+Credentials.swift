import ConversationState

/// Authorization failures are never a silent stall: the runtime asks the host's credential provider once,
/// and what cannot be fixed is shown as `needsCredentials`, with sends waiting and the connection closed
/// until `credentialsRefreshed`.
extension ConversationReducer {
  /// Reacts to a 401/403 (or an identity code) from any request or the connection.
  ///
  /// A request begun before the latest refresh carried the old credential: its failure says nothing about
  /// the fresh one, so it is not a reason to give up (several requests in flight fail together when a token
  /// expires, and their answers can arrive after the refresh). What it held goes out again.
  func authorizationFailed(_ error: ChatError, from requestID: RequestID, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    if state.credentials == .refreshed, let renewal = state.credentialRenewal, requestID.sequence < renewal {
      let reconnect = state.connection == .closed ? connect(&state) : []
      return reconnect + dispatchPendingMessages(&state)
    }
    var effects: [ConversationEffect] = []
    if state.connection != .closed && state.connection != .idle { effects += disconnect(&state) }
    switch state.credentials {
    case .valid:
      state.credentials = .refreshing
      let refresh = state.beginRequest(.credentials)
      state.credentialRenewal = refresh.sequence
      effects.append(.refreshCredentials(refresh))
    case .refreshing:
      break
    case .refreshed, .needed:
      // A fresh credential failed at once: asking again would loop; the user has to sign in.
      state.credentials = .needed(error)
    }
    state.backgroundError = error
    return effects
  }

  /// A fresh credential for the same person: the epoch stays, the connection re-opens, held sends go out.
  func credentialsRefreshed(_ state: inout ConversationState) -> [ConversationEffect] {
    let waiting: Bool
    switch state.credentials {
    case .valid, .refreshed: waiting = false
    case .refreshing, .needed: waiting = true
    }
    guard waiting else { return [] }
    var effects = dropCredentialRequests(&state)
    state.credentials = .refreshed
    if state.backgroundError?.isAuthorizationFailure == true { state.backgroundError = nil }
    if state.connection == .closed { effects += connect(&state) }
    return effects + dispatchPendingMessages(&state)
  }

  /// The credential was refused elsewhere (a client's shared connection) and the provider cannot help:
  /// held like a refusal of this conversation's own fresh credential, with nothing asked of the provider.
  func credentialsNeeded(_ error: ChatError, _ state: inout ConversationState) -> [ConversationEffect] {
    guard error.isAuthorizationFailure else {
      return refuse(
        .invalidAction, "credentialsNeeded takes an authorization failure, not \(error.code.rawValue).", &state)
    }
    var effects: [ConversationEffect] = []
    if state.connection != .closed && state.connection != .idle { effects += disconnect(&state) }
    // A refresh this store started is overtaken: its answer would reopen what the host must decide on.
    effects += dropCredentialRequests(&state)
    state.credentials = .needed(error)
    state.backgroundError = error
    return effects
  }

  /// Forgets the provider calls this store has running, oldest first, and returns their cancellations: a
  /// credential came (or was refused) from elsewhere, and their answers are stale.
  private func dropCredentialRequests(_ state: inout ConversationState) -> [ConversationEffect] {
    let pending = state.requests.filter { $0.value == .credentials }.map(\.key).sorted { $0.sequence < $1.sequence }
    for requestID in pending { state.requests[requestID] = nil }
    return pending.map(ConversationEffect.cancel)
  }

  /// The credential provider could not help: the user must sign in again.
  func credentialsUnavailable(_ error: ChatError, _ state: inout ConversationState) -> [ConversationEffect] {
    state.credentials = .needed(error)
    state.backgroundError = error
    return []
  }

  /// A request succeeded, so a refreshed credential works.
  func credentialsProven(_ state: inout ConversationState) {
    if state.credentials == .refreshed { state.credentials = .valid }
  }
}
