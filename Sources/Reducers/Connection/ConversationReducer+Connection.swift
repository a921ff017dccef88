import ConversationState
import Foundation

/// The realtime connection. Its `connect` request stays in `state.requests` for as long as the connection
/// is wanted and alive (connecting, connected, syncing), so `opened`, events and `lost` are accepted only
/// from that request, and closing it is `.cancel` of that request.
extension ConversationReducer {
  func connect(_ state: inout ConversationState) -> [ConversationEffect] {
    let resumed = resumeRelaunchedReply(&state)
    if policy.connectionMode == .polling { return resumed + connectByPolling(&state) }
    guard ConnectionRules.needsOpening(state.connection) else { return resumed }
    state.failedConnectionAttempts = 0
    return resumed + [.cancelTimer(.reconnect)] + openConnection(&state)
  }

  /// The request of the connection that is currently wanted, if any.
  func liveConnection(_ state: ConversationState) -> RequestID? {
    state.requests.first { $0.value == .connect }?.key
  }

  func openConnection(_ state: inout ConversationState) -> [ConversationEffect] {
    let requestID = state.beginRequest(.connect)
    state.connection = .connecting
    return [.connectRealtime(requestID, state.conversationID)]
  }

  /// Live. When messages may have been missed (there is a confirmed message to sync from), the state is
  /// `syncing` until they are fetched; queued messages go out either way.
  ///
  /// Opening proves nothing about the connection: the backoff starts again from its base only once it
  /// delivers an event or stays open for `ChatPolicy.healthyConnectionAfter` (`connectionProvenHealthy`), so
  /// a server that accepts and drops at once is retried at the backoff's pace.
  func connectionOpened(_ requestID: RequestID, _ state: inout ConversationState) -> [ConversationEffect] {
    guard state.requests[requestID] == .connect, state.connection == .connecting else { return [] }
    credentialsProven(&state)
    var effects: [ConversationEffect] = policy.pollingInterval == nil ? [] : [.cancelTimer(.poll)]
    if let seconds = ConnectionRules.healthyAfter(opening: state.failedConnectionAttempts, policy) {
      effects.append(.startTimer(.connectionHealthy, seconds: seconds))
    }
    if state.conversationID != nil && state.lastConfirmedMessageID != nil {
      effects += startSync(&state)
    } else {
      state.connection = .connected
    }
    return effects + dispatchPendingMessages(&state)
  }

  /// The live connection delivered an event, or stayed open long enough: the next loss starts the backoff
  /// from its base again.
  func connectionProvenHealthy(_ state: inout ConversationState) {
    guard state.failedConnectionAttempts != 0 else { return }
    var failedAttempts = state.failedConnectionAttempts
    ConnectionRules.provenHealthy(state.connection, failedAttempts: &failedAttempts)
    state.failedConnectionAttempts = failedAttempts
  }

  func startSync(_ state: inout ConversationState) -> [ConversationEffect] {
    guard let conversationID = state.conversationID else { return [] }
    state.connection = .syncing
    let requestID = state.beginRequest(.sync)
    return [.fetchMessagesAfter(requestID, conversationID, after: state.lastConfirmedMessageID)]
  }

  func connectionLost(
    _ requestID: RequestID, _ error: ChatError, at: Date, jitter: Double, _ state: inout ConversationState
  ) -> [ConversationEffect] {
    // A loss reported by a connection that is no longer the live one (closed, replaced) changes nothing.
    guard state.requests[requestID] == .connect else { return [] }
    var effects = dropConnectionRequests(except: requestID, &state)
    effects += clearTyping(&state)
    state.backgroundError = error
    // Both live in the state's one copy-on-write box: changed through locals, not two accesses at once.
    var (connection, failedAttempts) = (state.connection, state.failedConnectionAttempts)
    let loss = ConnectionRules.lost(
      error, at: at, jitter: jitter, policy, connection: &connection, failedAttempts: &failedAttempts)
    (state.connection, state.failedConnectionAttempts) = (connection, failedAttempts)
    switch loss {
    case .needsCredentials: return effects + authorizationFailed(error, from: requestID, &state)
    case .retry(let delay):
      let polls = state.failedConnectionAttempts == 1 ? startPolling(state) : []
      return effects + [.startTimer(.reconnect, seconds: delay)] + polls
    }
  }

  /// A connection request failed without the time and jitter a loss carries (`connectionLost`): it is
  /// closed, and a reply streaming over it is kept with what it had.
  func connectionFailed(_ error: ChatError, _ state: inout ConversationState) {
    interruptRealtimeReply(&state)
    state.connection = .closed
    state.backgroundError = error
  }

  /// The process that held the connection is gone (a relaunch): nothing is open, and the next connect
  /// backs off from the base.
  func connectionForgotten(_ state: inout ConversationState) {
    state.connection = .idle
    state.failedConnectionAttempts = 0
  }

  /// Another person signed in: their connection starts afresh, opened now when `connecting`; otherwise a
  /// live one is closed (it carried the last person's credential).
  func restartConnection(connecting: Bool, _ state: inout ConversationState) -> [ConversationEffect] {
    state.failedConnectionAttempts = 0
    if connecting {
      state.connection = .idle
      return connect(&state)
    }
    if state.connection == .syncing || state.connection == .connected { state.connection = .closed }
    return []
  }

  func disconnect(_ state: inout ConversationState) -> [ConversationEffect] {
    if state.connection == .closed || state.connection == .idle { return [] }
    let effects = dropConnectionRequests(except: nil, &state)
    state.connection = .closed
    let polls: [ConversationEffect] = policy.pollingInterval == nil ? [] : [.cancelTimer(.poll)]
    return effects + clearTyping(&state) + [.cancelTimer(.reconnect)] + polls
  }

  /// Re-opens a live connection that was opened before the conversation existed, now scoped to it, so the
  /// conversation the first send created is live (its events, and a sync of what was missed meanwhile).
  func retargetConnection(_ state: inout ConversationState) -> [ConversationEffect] {
    guard policy.connectionMode == .realtime, liveConnection(state) != nil else { return startPollingCreated(state) }
    return dropConnectionRequests(except: nil, &state) + openConnection(&state)
  }

  /// Forgets the connection and sync requests, cancelling each (but not `kept`, which already ended). A reply
  /// that was streaming over the connection is kept as interrupted, under its server ID, so its finished
  /// copy replaces it when the connection is back.
  private func dropConnectionRequests(except kept: RequestID?, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    interruptRealtimeReply(&state)
    return cancelRequests(except: kept, &state) { $0 == .connect || $0 == .sync }
  }

  /// Typing indicators are cleared on disconnect: nobody can be seen typing over a dead connection.
  func clearTyping(_ state: inout ConversationState) -> [ConversationEffect] {
    let participants = state.typing.keys.sorted()
    state.typing = [:]
    return participants.map { .cancelTimer(.typingExpiry($0)) }
  }

  /// A reply streaming over the connection cannot go on without it: it is kept, interrupted, under its
  /// server ID, so its finished copy replaces it when the connection is back.
  func interruptRealtimeReply(_ state: inout ConversationState) {
    for reply in state.liveReplies {
      guard case .realtimeReply = state.requests[reply.requestID] else { continue }
      state.requests[reply.requestID] = nil
      interrupt(reply, ChatError(.incompleteStream, "The connection dropped while this reply was streaming."), &state)
    }
  }
}
