import ConversationState
import Foundation

extension ConversationReducer {
  func connect(_ state: inout ConversationState) -> [ConversationEffect] {
    switch state.connection {
    case .connecting, .connected, .syncing: return []
    case .idle, .closed, .reconnecting: break
    }
    state.failedConnectionAttempts = 0
    return [.cancelTimer(.reconnect)] + openConnection(&state)
  }

  func openConnection(_ state: inout ConversationState) -> [ConversationEffect] {
    let requestID = state.beginRequest(.connect)
    state.connection = .connecting
    return [.connectRealtime(requestID, state.conversationID)]
  }

  /// Live. When messages may have been missed (there is a confirmed message to sync from), the state is
  /// `syncing` until they are fetched; queued messages go out either way.
  func connectionOpened(_ requestID: RequestID, _ state: inout ConversationState) -> [ConversationEffect] {
    guard state.requests[requestID] == .connect else { return [] }
    state.requests[requestID] = nil
    state.failedConnectionAttempts = 0
    var effects: [ConversationEffect] = []
    if state.conversationID != nil && state.lastConfirmedMessageID != nil {
      effects += startSync(&state)
    } else {
      state.connection = .connected
    }
    return effects + dispatchPendingMessages(&state)
  }

  func startSync(_ state: inout ConversationState) -> [ConversationEffect] {
    guard let conversationID = state.conversationID else { return [] }
    state.connection = .syncing
    let requestID = state.beginRequest(.sync)
    return [.fetchMessagesAfter(requestID, conversationID, after: state.lastConfirmedMessageID)]
  }

  func connectionLost(_ error: ChatError, at: Date, jitter: Double, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    if state.connection == .idle || state.connection == .closed { return [] }
    let abandoned = state.requests.filter { $0.value == .connect || $0.value == .sync }.map(\.key)
    for requestID in abandoned { state.requests[requestID] = nil }
    var effects = abandoned.sorted { $0.sequence < $1.sequence }.map(ConversationEffect.cancel)
    effects += clearTyping(&state)
    state.backgroundError = error
    if error.isAuthorizationFailure {
      state.connection = .closed
      return effects
    }
    state.failedConnectionAttempts += 1
    let attempt = state.failedConnectionAttempts
    let delay = ReconnectBackoff.delay(attempt: attempt, jitter: jitter)
    state.connection = .reconnecting(attempt: attempt, retryAt: at.addingTimeInterval(delay))
    return effects + [.startTimer(.reconnect, seconds: delay)]
  }

  func disconnect(_ state: inout ConversationState) -> [ConversationEffect] {
    if state.connection == .closed || state.connection == .idle { return [] }
    let abandoned = state.requests.filter { $0.value == .connect || $0.value == .sync }.map(\.key)
    for requestID in abandoned { state.requests[requestID] = nil }
    state.connection = .closed
    return abandoned.sorted { $0.sequence < $1.sequence }.map(ConversationEffect.cancel)
      + clearTyping(&state) + [.cancelTimer(.reconnect), .disconnectRealtime]
  }

  /// Typing indicators are cleared on disconnect: nobody can be seen typing over a dead connection.
  func clearTyping(_ state: inout ConversationState) -> [ConversationEffect] {
    let participants = state.typing.keys.sorted()
    state.typing = [:]
    return participants.map { .cancelTimer(.typingExpiry($0)) }
  }
}
