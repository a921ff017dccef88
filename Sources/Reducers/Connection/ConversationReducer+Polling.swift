import ConversationState
import Foundation

/// Polling: asking for the messages after the newest confirmed one every `ChatPolicy.pollingInterval`
/// seconds, by the catch-up's rules (paged while the server says there is more, a gap when it cannot
/// succeed). In `ConnectionMode.realtime` it fills in while the connection is down (`reconnecting`) and
/// stops when it is live; in `ConnectionMode.polling` it is the connection: `connect` starts it, and the
/// connection state follows its answers as it would a realtime connection's.
///
/// ```
/// polling mode:  idle | closed -> syncing            (connect: the first poll)
///                syncing | connected | reconnecting -> connected      (a poll answered)
///                any polling -> reconnecting(attempt) (a poll failed: the next after the longer of the
///                                                      interval and the reconnect backoff)
///                any polling -> closed               (disconnect, an authorization failure)
/// ```
extension ConversationReducer {
  /// Arms the next poll, when this policy polls and there is a conversation to poll.
  func startPolling(_ state: ConversationState) -> [ConversationEffect] {
    guard let interval = policy.pollingInterval, interval > 0, state.conversationID != nil else { return [] }
    return [.startTimer(.poll, seconds: interval)]
  }

  /// The poll timer fired.
  func poll(_ state: inout ConversationState) -> [ConversationEffect] {
    guard let conversationID = state.conversationID else { return [] }
    if policy.connectionMode == .polling {
      switch state.connection {
      case .connected, .reconnecting: break
      case .idle, .connecting, .syncing, .closed: return []
      }
      // Nothing to poll after yet: messages after "none" would be the whole history. The history's first
      // page (or the first confirmed message) comes first.
      guard state.lastConfirmedMessageID != nil || state.history.hasLoadedFirstPage else {
        return startPolling(state)
      }
      guard !state.requests.values.contains(.sync) else { return [] }
      let requestID = state.beginRequest(.sync)
      return [.fetchMessagesAfter(requestID, conversationID, after: state.lastConfirmedMessageID)]
    }
    // Realtime mode: only while the connection is down and wanted back.
    guard case .reconnecting = state.connection else { return [] }
    var effects = startPolling(state)
    if !state.requests.values.contains(.sync) {
      let requestID = state.beginRequest(.sync)
      effects.append(.fetchMessagesAfter(requestID, conversationID, after: state.lastConfirmedMessageID))
    }
    return effects
  }

  /// `connect` in polling mode: no realtime connection is opened; the first poll goes now (a catch-up of
  /// what came since the newest confirmed message, as after a reconnect), or, with nothing to poll after
  /// yet, the connection counts as connected and the next poll is armed.
  func connectByPolling(_ state: inout ConversationState) -> [ConversationEffect] {
    guard ConnectionRules.needsOpening(state.connection) else { return [] }
    state.failedConnectionAttempts = 0
    // The connection is still a request that lives while it is wanted, as a realtime one is; nothing
    // performs it: `disconnect` cancels it like any other.
    _ = state.beginRequest(.connect)
    var effects: [ConversationEffect] = [.cancelTimer(.reconnect), .cancelTimer(.poll)]
    if state.conversationID != nil && state.lastConfirmedMessageID != nil {
      effects += startSync(&state)
    } else {
      state.connection = .connected
      effects += startPolling(state)
    }
    return effects + dispatchPendingMessages(&state)
  }

  /// A poll (or polling mode's first catch-up) was answered, with messages or with an error retrying
  /// cannot fix: in polling mode the server is reachable, so the connection is connected and the next poll
  /// is armed. Realtime mode's fallback polls arm their own next one.
  func pollAnswered(_ state: inout ConversationState) -> [ConversationEffect] {
    guard policy.connectionMode == .polling else { return [] }
    switch state.connection {
    case .syncing, .connected, .reconnecting:
      if liveConnection(state) == nil { _ = state.beginRequest(.connect) }
      state.connection = .connected
      state.failedConnectionAttempts = 0
      state.failedSyncAttempts = 0
      return startPolling(state)
    case .idle, .connecting, .closed:
      return []
    }
  }

  /// A poll failed in a way that can pass. A request that failed (`at`: when, on the local clock) makes the
  /// connection `reconnecting`, and the next poll waits the longer of the interval and the reconnect
  /// backoff, so a server that is down is not asked every second. An answer that could not be used
  /// (`SYNC_STALLED`: "more" with nothing newer) still shows the server is there: the connection stays
  /// connected, and the next poll waits the longer of the interval and the sync backoff.
  func pollFailed(at: Date?, jitter: Double, _ state: inout ConversationState) -> [ConversationEffect] {
    switch state.connection {
    case .syncing, .connected, .reconnecting: break
    case .idle, .connecting, .closed: return []
    }
    let interval = policy.pollingInterval ?? 0
    guard let at else {
      if state.connection == .syncing { state.connection = .connected }
      state.failedSyncAttempts += 1
      return [
        .startTimer(
          .poll, seconds: max(interval, policy.syncBackoff.delay(attempt: state.failedSyncAttempts, jitter: jitter)))
      ]
    }
    if let live = liveConnection(state) { state.requests[live] = nil }
    state.failedConnectionAttempts += 1
    let attempt = state.failedConnectionAttempts
    let wait = max(interval, policy.reconnectBackoff.delay(attempt: attempt, jitter: jitter))
    let now = at.timeIntervalSinceReferenceDate.isFinite ? at : Date(timeIntervalSinceReferenceDate: 0)
    state.connection = .reconnecting(attempt: attempt, retryAt: now.addingTimeInterval(wait))
    return [.startTimer(.poll, seconds: wait)]
  }

  /// A new conversation was just created by its first send: in polling mode it is polled from now on.
  func startPollingCreated(_ state: ConversationState) -> [ConversationEffect] {
    guard policy.connectionMode == .polling, state.connection == .connected else { return [] }
    return startPolling(state)
  }
}
