import ConversationState
import Foundation

/// Catching up: after a reconnect the connection is `syncing` until the messages it missed are fetched,
/// page by page; a failed catch-up backs off (`ChatPolicy.syncBackoff`), one that cannot succeed leaves a
/// visible gap. While realtime is down, polling fetches the same way.
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
      return syncFailed(error, jitter: jitter, &state)
    }
    state.failedSyncAttempts = 0
    // The server has more after these: page on from the newest now held, until it says it is done.
    if hasMore, let conversationID = state.conversationID {
      let next = state.beginRequest(.sync)
      return [.fetchMessagesAfter(next, conversationID, after: state.lastConfirmedMessageID)]
    }
    state.hasMissedMessagesGap = false
    syncEnded(&state)
    return dispatchPendingMessages(&state)
  }

  /// A failed catch-up backs off like reconnects; one that cannot succeed leaves a visible gap.
  func syncFailed(_ error: ChatError, jitter: Double, _ state: inout ConversationState) -> [ConversationEffect] {
    state.backgroundError = error
    guard error.retryable else {
      state.hasMissedMessagesGap = true
      syncEnded(&state)
      return dispatchPendingMessages(&state)
    }
    state.failedSyncAttempts += 1
    let delay = policy.syncBackoff.delay(attempt: state.failedSyncAttempts, jitter: jitter)
    return [.startTimer(.resync, seconds: delay)]
  }

  /// While realtime is down, new messages are fetched every `ChatPolicy.pollInterval` seconds, if set.
  func startPolling(_ state: ConversationState) -> [ConversationEffect] {
    guard let interval = policy.pollInterval, interval > 0, state.conversationID != nil else { return [] }
    return [.startTimer(.poll, seconds: interval)]
  }

  func poll(_ state: inout ConversationState) -> [ConversationEffect] {
    guard state.connection.isOffline, let conversationID = state.conversationID else { return [] }
    var effects = startPolling(state)
    if !state.requests.values.contains(.sync) {
      let requestID = state.beginRequest(.sync)
      effects.append(.fetchMessagesAfter(requestID, conversationID, after: state.lastConfirmedMessageID))
    }
    return effects
  }

  /// The catch-up is over, caught up or given up on: a syncing connection is connected.
  func syncEnded(_ state: inout ConversationState) {
    if state.connection == .syncing { state.connection = .connected }
  }
}
