import ConversationState

extension ConversationReducer {
  /// Identify or sign out: a new epoch, every request of the old one cancelled, the conversation and its
  /// queued work dropped. Results of the old epoch that still arrive are ignored (their request IDs carry it).
  func switchIdentity(to identity: UserIdentity?, _ state: inout ConversationState) -> [ConversationEffect] {
    if identity != nil && identity == state.identity { return [] }
    // Cancelling every request closes the connection too: it is the `connect` request.
    let effects = cancelAll(&state)
    let sequence = state.requestSequence
    state = ConversationState(epoch: state.epoch.next, identity: identity)
    state.requestSequence = sequence
    return effects
  }

  /// Starts a new conversation for the same identity; the connection stays as it is.
  func clear(_ state: inout ConversationState) -> [ConversationEffect] {
    let connectionRequests = state.requests.filter { $0.value == .connect }
    state.requests = state.requests.filter { $0.value != .connect }
    let effects = cancelAll(&state)
    var fresh = ConversationState(epoch: state.epoch, identity: state.identity)
    fresh.requestSequence = state.requestSequence
    fresh.connection = state.connection == .syncing ? .connected : state.connection
    fresh.failedConnectionAttempts = state.failedConnectionAttempts
    fresh.requests = connectionRequests
    state = fresh
    return effects
  }

  /// Settles a state restored from disk: the run that started its requests is gone, so none of them will
  /// ever report back. Nothing is dropped that the user wrote.
  func relaunched(_ state: inout ConversationState) -> [ConversationEffect] {
    let stopped = ChatError(.network, "The app stopped before this finished.")
    for message in state.messages.outgoing where message.delivery == .sending {
      failOutgoing(message.clientID, stopped, &state)
    }
    if let reply = state.streamingReply {
      state.requests[reply.requestID] = nil
      interrupt(reply, ChatError(.incompleteStream, "The app stopped while this reply was streaming."), &state)
    }
    if case .creating(let draft, _) = state.escalation { state.escalation = .failed(draft, stopped) }
    state.requests = [:]
    state.history.loadingRequest = nil
    state.typing = [:]
    state.isUserTyping = false
    state.agentActivity = .idle
    state.connection = .idle
    state.failedConnectionAttempts = 0
    state.userError = nil
    return []
  }

  /// Cancel effects for every request in flight and every timer, in a stable order.
  private func cancelAll(_ state: inout ConversationState) -> [ConversationEffect] {
    var effects = state.requests.keys.sorted { $0.sequence < $1.sequence }.map(ConversationEffect.cancel)
    effects += state.typing.keys.sorted().map { .cancelTimer(.typingExpiry($0)) }
    effects += [.cancelTimer(.reconnect), .cancelTimer(.resync)]
    state.requests = [:]
    return effects
  }
}
