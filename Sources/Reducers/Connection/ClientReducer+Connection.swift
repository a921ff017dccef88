import ConversationState
import Foundation

/// The shared realtime connection, under the rules of every connection (`ConnectionRules`, which a
/// conversation's follows too): a loss backs off with jitter; opening proves nothing until the connection
/// delivers an event or stays open for `ChatPolicy.healthyConnectionAfter`; an authorization failure waits
/// for a fresh credential (the host's provider is asked once). No error ends it for good: every stop is a
/// state with a way back (`credentialsRefreshed`, a change of identity).
extension ClientReducer {
  func connect(_ state: inout ClientState) -> [ClientEffect] {
    // A backend with no realtime channel: each open conversation polls, and no shared connection is opened.
    guard policy.connectionMode == .realtime, ConnectionRules.needsOpening(state.connection) else { return [] }
    let request = state.beginRequest()
    state.connectionRequest = request
    state.connection = .connecting
    return [.cancelTimer(.reconnect), .connectRealtime(request)]
  }

  /// Nothing is open or on its way, and the next connect backs off from the base (another person signed in).
  func connectionForgotten(_ state: inout ClientState) {
    state.connectionRequest = nil
    state.connection = .idle
    state.failedConnectionAttempts = 0
  }

  /// The client closed: its connection is closed for good.
  func connectionClosed(_ state: inout ClientState) {
    state.connection = .closed
    state.connectionRequest = nil
  }

  func connectionOpened(_ request: RequestID, _ state: inout ClientState) -> [ClientEffect] {
    guard request == state.connectionRequest, state.connection == .connecting else { return [] }
    state.connection = .connected
    state.needsCredentials = false
    state.credentialRenewal = nil
    var effects: [ClientEffect] = []
    if let seconds = ConnectionRules.healthyAfter(opening: state.failedConnectionAttempts, policy) {
      effects.append(.startTimer(.connectionHealthy, seconds: seconds))
      // Stores that lost the connection with it are waiting out their own backoff: the connection is back,
      // so they resume (and catch up) now.
      let handles = state.openHandles
      if !handles.isEmpty { effects.append(.forward(.connect, to: handles)) }
    }
    // The backend is reachable: what the outbox holds can go, and contact details that waited.
    return effects + outboxChanged(reachable: true, &state) + resumeContactUpload(&state)
  }

  func connectionProvenHealthy(_ state: inout ClientState) {
    guard state.connection == .connected else { return }
    let recovering = state.failedConnectionAttempts > 0
    ConnectionRules.provenHealthy(state.connection, failedAttempts: &state.failedConnectionAttempts)
    clearRecoveredError(recovering: recovering, &state)
  }

  /// The banner of a failure goes once background work works again (`recovering`: what failed before works
  /// now; a refused credential works again whenever anything succeeds): the connection healthy and the
  /// outbox not held back (an upload that keeps failing keeps its error up). A frame the backend could not
  /// read is not a failure that recovers: its banner stays until something replaces it.
  func clearRecoveredError(recovering: Bool, _ state: inout ClientState) {
    guard recovering || state.backgroundError?.isAuthorizationFailure == true else { return }
    guard state.connection == .connected, !state.needsCredentials else { return }
    switch state.outbox {
    case .waiting, .needsCredentials: return
    case .idle, .preparing, .uploading: state.backgroundError = nil
    }
  }

  func connectionLost(
    _ request: RequestID, _ error: ChatError, at: Date, jitter: Double, _ state: inout ClientState
  ) -> [ClientEffect] {
    guard request == state.connectionRequest else { return [] }
    state.connectionRequest = nil
    state.backgroundError = error
    let effects: [ClientEffect] = [.cancelTimer(.connectionHealthy)]
    let loss = ConnectionRules.lost(
      error, at: at, jitter: jitter, policy, connection: &state.connection,
      failedAttempts: &state.failedConnectionAttempts)
    switch loss {
    case .needsCredentials:
      return effects + credentialRefused(by: request, error, &state)
    case .retry(let delay): return effects + [.startTimer(.reconnect, seconds: delay)]
    }
  }

  /// `failed` (the connection, an upload, the contact details) was refused for its credential. One that
  /// carried a credential older than the latest renewal says nothing about it: what it was waits for the
  /// connection to open with the fresh one. Otherwise the client needs credentials and asks the host's
  /// provider, once: not while a refresh runs, and not when the refused credential was the fresh one (a
  /// provider whose token is refused at once would be asked in a loop). Then `needsCredentials` holds until
  /// the host calls `credentialsRefreshed()`.
  func credentialRefused(by failed: RequestID, _ error: ChatError, _ state: inout ClientState) -> [ClientEffect] {
    if let renewal = state.credentialRenewal, failed.sequence <= renewal { return [] }
    let wasWaiting = state.awaitsHostCredentials
    state.needsCredentials = true
    if state.credentialRefresh != nil { return [] }
    guard refreshesCredentials, state.credentialRenewal == nil else {
      return wasWaiting ? [] : holdStores(error, state)
    }
    let request = state.beginRequest()
    state.credentialRefresh = request
    return [.refreshCredentials(request)]
  }

  /// The client waits for the host: so does every store, showing `needsCredentials` (it shares the
  /// credential), with nothing asked of the provider and nothing sent until `credentialsRefreshed`.
  func holdStores(_ error: ChatError, _ state: ClientState) -> [ClientEffect] {
    let handles = state.openHandles
    guard !handles.isEmpty else { return [] }
    let refusal =
      error.isAuthorizationFailure
      ? error : ChatError(.unauthorized, "The credential was refused and could not be renewed: \(error.message)")
    return [.forward(.credentialsNeeded(refusal), to: handles)]
  }

  func timerFired(_ timer: ClientTimer, _ state: inout ClientState) -> [ClientEffect] {
    switch timer {
    case .reconnect:
      guard case .reconnecting = state.connection else { return [] }
      return connect(&state)
    case .connectionHealthy:
      connectionProvenHealthy(&state)
      return []
    case .idleCheck:
      // Answered by the runtime with `releaseIdle`, which carries what only it can see: who holds a store.
      return []
    case .outboxRetry:
      guard case .waiting = state.outbox else { return [] }
      return prepareBatch(&state)
    case .contactRetry:
      guard case .waiting = state.contactUpload else { return [] }
      return sendContactDetails(&state)
    }
  }
}
