import ConversationState

/// Who is signed in. Identifying the person already signed in takes the new details and changes nothing
/// else; a guest signing in while keeping their conversations moves them (and everything else of the
/// guest) into the account; any other change of person clears every store and starts a new epoch.
extension ClientReducer {
  func identify(_ identity: UserIdentity, keeping: Bool, _ state: inout ClientState) -> [ClientEffect] {
    if let current = state.identity, identity.isSamePerson(as: current) {
      guard identity != current else { return [] }
      state.identity = identity
      return [.forward(.identify(identity), to: state.openHandles)]
    }
    guard keeping, state.identity == nil else { return switchPerson(to: identity, &state) }
    // The guest's conversations go on under the account: their data moves, and the connection (opened with
    // the guest's credential) is opened again with the account's.
    let handles = state.openHandles
    state.identity = identity
    state.epoch = state.epoch.next
    state.needsCredentials = false
    state.backgroundError = nil
    // The connection is swapped before the stores hear of the account, so a store that reconnects for it
    // subscribes to the account's connection, never again to the guest's.
    return [.moveGuestData(to: identity.userID, conversations: handles)] + restartBackgroundWork(&state)
      + [.forward(.identify(identity, keepingGuestConversation: true), to: handles)]
  }

  /// Another person (nil: signed out): every store is cleared and closed, and the scope changes.
  func switchPerson(to identity: UserIdentity?, _ state: inout ClientState) -> [ClientEffect] {
    if identity == nil && state.identity == nil { return [] }
    let handles = state.openHandles
    // Only a sign-out ends the outbox's epoch (MyBot's rule): a person replacing another, or a guest signing
    // in without their data, goes on numbering in it, so a server that checks the epoch never refuses the
    // next person's batches as stale.
    let outboxEpoch: OutboxEpochChange = identity == nil ? .raised : .continued
    state.identity = identity
    forgetEveryStore(&state)
    state.needsCredentials = false
    let clearing: ConversationAction = identity.map { .identify($0, keepingGuestConversation: false) } ?? .signOut
    return [.switchScope(userID: identity?.userID, closing: handles, with: clearing, outboxEpoch: outboxEpoch)]
      + restartBackgroundWork(&state)
  }

  /// The same person starts afresh: every store is cleared and closed, a new epoch fences what was in
  /// flight, and the scope's data goes (`resetScope`). Not a sign-out: the outbox's epoch goes on.
  func resetSession(_ state: inout ClientState) -> [ClientEffect] {
    let handles = state.openHandles
    forgetEveryStore(&state)
    let contact = state.contact
    var effects: [ClientEffect] = [.resetScope(closing: handles)] + restartBackgroundWork(&state)
    // A guest's contact details are the person's, not the conversation's: they stay.
    if let contact { effects += setContactDetails(contact, &state) }
    return effects
  }

  /// A new epoch fences what the stores had in flight, and the client holds none of them any more.
  private func forgetEveryStore(_ state: inout ClientState) {
    state.epoch = state.epoch.next
    state.open = [:]
    state.conversations = [:]
    state.newConversation = nil
    state.lastUse = [:]
    state.backgroundError = nil
  }

  /// The connection, a credential refresh and the uploader of the previous epoch stop; new ones start. The
  /// anonymous user's contact details are forgotten: whoever comes next is signed in, or another guest.
  private func restartBackgroundWork(_ state: inout ClientState) -> [ClientEffect] {
    var effects: [ClientEffect] = forgetContactUpload(&state)
    state.contact = nil
    for request in [state.connectionRequest, state.credentialRefresh, state.outbox.requestID] {
      if let request { effects.append(.cancel(request)) }
    }
    // `connect` below cancels the reconnect timer.
    effects += [.cancelTimer(.connectionHealthy), .cancelTimer(.outboxRetry)]
    state.credentialRefresh = nil
    state.credentialRenewal = nil
    connectionForgotten(&state)
    state.outbox = .idle
    state.outboxFailures = 0
    return effects + connect(&state) + prepareBatch(&state)
  }

  func credentialsRefreshed(_ state: inout ClientState) -> [ClientEffect] {
    let handles = state.openHandles
    var effects: [ClientEffect] = handles.isEmpty ? [] : [.forward(.credentialsRefreshed, to: handles)]
    guard
      state.needsCredentials || state.connection == .closed || state.outbox == .needsCredentials
        || state.contactUpload == .needsCredentials
    else {
      return effects
    }
    state.needsCredentials = false
    // What is asked from now on carries the fresh credential, until something proves it works.
    state.credentialRenewal = state.nextRequest
    if state.backgroundError?.isAuthorizationFailure == true { state.backgroundError = nil }
    if let refresh = state.credentialRefresh {
      effects.append(.cancel(refresh))
      state.credentialRefresh = nil
    }
    if state.connection == .closed || state.connection == .idle {
      state.failedConnectionAttempts = 0
      effects += connect(&state)
    }
    if state.outbox == .needsCredentials {
      state.outbox = .idle
      effects += prepareBatch(&state)
    }
    return effects + resumeContactUpload(&state)
  }
}
