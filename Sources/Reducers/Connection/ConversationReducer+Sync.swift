import ConversationState
import Foundation

/// Catching up: after a reconnect the connection is `syncing` until the messages it missed are fetched,
/// page by page; a failed catch-up backs off (`ChatPolicy.syncBackoff`), one that cannot succeed leaves a
/// visible gap. Polling (while realtime is down, or as `ConnectionMode.polling`) fetches the same way.
extension ConversationReducer {
  func syncLoaded(
    _ requestID: RequestID, _ messages: [Message], hasMore: Bool, jitter: Double, _ state: inout ConversationState
  ) -> [ConversationEffect] {
    guard state.requests[requestID] == .sync else { return [] }
    state.requests[requestID] = nil
    let newestBefore = state.lastConfirmedMessageID
    mergeFromServer(messages, &state)
    credentialsProven(&state)
    if hasMore && state.lastConfirmedMessageID == newestBefore {
      // "More" that brings nothing newer would be asked for again at once, and again: a loop a server's bug
      // must not be able to start. It is a failed catch-up, tried again after the sync backoff.
      let error = ChatError(.syncStalled, "The server said more messages follow, but sent none newer than the last.")
      return syncFailed(error, at: nil, jitter: jitter, &state)
    }
    state.failedSyncAttempts = 0
    // The server has more after these: page on from the newest now held, until it says it is done.
    if hasMore, let conversationID = state.conversationID {
      let next = state.beginRequest(.sync)
      return [.fetchMessagesAfter(next, conversationID, after: state.lastConfirmedMessageID)]
    }
    state.hasMissedMessagesGap = false
    syncEnded(&state)
    return pollAnswered(&state) + dispatchPendingMessages(&state)
  }

  /// A failed catch-up backs off like reconnects; one that cannot succeed leaves a visible gap. `at` is the
  /// local time of a failed request; nil for an answer that could not be used (`SYNC_STALLED`).
  func syncFailed(_ error: ChatError, at: Date?, jitter: Double, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    state.backgroundError = error
    if policy.connectionMode == .polling, error.retryable { return pollFailed(at: at, jitter: jitter, &state) }
    guard error.retryable else {
      state.hasMissedMessagesGap = true
      syncEnded(&state)
      // An authorization failure closes the connection next (`authorizationFailed`): no poll is armed.
      let next = error.isAuthorizationFailure ? [] : pollAnswered(&state)
      return next + dispatchPendingMessages(&state)
    }
    state.failedSyncAttempts += 1
    let delay = policy.syncBackoff.delay(attempt: state.failedSyncAttempts, jitter: jitter)
    return [.startTimer(.resync, seconds: delay)]
  }

  /// The catch-up is over, caught up or given up on: a syncing connection is connected.
  func syncEnded(_ state: inout ConversationState) {
    if state.connection == .syncing { state.connection = .connected }
  }
}
