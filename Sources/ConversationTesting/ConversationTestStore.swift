public import ConversationState
public import ConversationStore
public import Testing

/// A `TestStore` for one conversation.
public typealias ConversationTestStore = TestStore<ConversationReducer>

extension TestStore where R == ConversationReducer {
  /// A conversation test store that checks `invariantViolations()` and `transitionViolations(from:)` after
  /// every step, and at `finish()` reports requests still in flight and timers that never fired.
  /// `policy` sets the reducer's limits and timings.
  public convenience init(
    _ initialState: ConversationState = ConversationState(), policy: ChatPolicy = ChatPolicy(),
    exhaustivity: Exhaustivity = .on, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    self.init(
      initialState: initialState, reducer: ConversationReducer(policy: policy), exhaustivity: exhaustivity,
      outstanding: { effect, state, since in ConversationEffects.isOutstanding(effect, in: state, since: since) },
      invariants: { previous, current in current.invariantViolations() + current.transitionViolations(from: previous) },
      sourceLocation: sourceLocation)
  }

  /// The request ID the next request effect will carry.
  public var nextRequestID: RequestID { RequestID(epoch: state.epoch, sequence: state.requestSequence + 1) }
}

extension TestStore where R == ConversationListReducer {
  /// A conversation-list test store that checks its invariants after every step and reports a page request,
  /// a change or a deletion still in flight at `finish()`.
  public convenience init(
    _ initialState: ConversationListState = ConversationListState(), policy: ChatPolicy = ChatPolicy(),
    exhaustivity: Exhaustivity = .on, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    self.init(
      initialState: initialState, reducer: ConversationListReducer(policy: policy), exhaustivity: exhaustivity,
      outstanding: { effect, state, _ in
        switch effect {
        case .fetchConversations(let requestID, _, _): return state.loading?.requestID == requestID
        case .updateConversation(let requestID, _, _):
          return state.edits.contains { $0.sending?.requestID == requestID }
        case .deleteConversation(let requestID, _): return state.deleting.contains { $0.requestID == requestID }
        default: return false
        }
      },
      invariants: { _, current in current.invariantViolations() }, sourceLocation: sourceLocation)
  }

  /// The request ID the next page request will carry.
  public var nextRequestID: RequestID { RequestID(epoch: state.epoch, sequence: state.requestSequence + 1) }
}

/// A `TestStore` for a `ChatClient`'s rules.
public typealias ClientTestStore = TestStore<ClientReducer>

extension TestStore where R == ClientReducer {
  /// A client test store that checks `ClientState.invariantViolations()` and `transitionViolations(from:)`
  /// after every step.
  public convenience init(
    _ initialState: ClientState = ClientState(), reducer: ClientReducer = ClientReducer(),
    exhaustivity: Exhaustivity = .on, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    self.init(
      initialState: initialState, reducer: reducer, exhaustivity: exhaustivity,
      invariants: { previous, current in current.invariantViolations() + current.transitionViolations(from: previous) },
      sourceLocation: sourceLocation)
  }
}

/// What conversation effects wait for.
public enum ConversationEffects {
  /// The request an effect starts, if it starts one.
  public static func requestID(of effect: ConversationEffect) -> RequestID? {
    switch effect {
    case .sendMessage(let id, _), .regenerate(let id, _, _, _), .fetchHistory(let id, _, _, _),
      .fetchStoredHistory(let id, _, _, _), .fetchNewerStoredHistory(let id, _, _, _),
      .fetchMessagesAfter(let id, _, _), .submitRating(let id, _, _, _), .submitFeedback(let id, _, _, _),
      .connectRealtime(let id, _), .createTicket(let id, _, _), .submitReadCursor(let id, _, _),
      .refreshCredentials(let id), .runTool(let id, _, _), .submitToolResult(let id, _, _, _, _),
      .uploadAttachment(let id, _, _), .continueRun(let id, _, _), .resumeReply(let id, _):
      return id
    case .cancel, .sendTypingSignal, .startTimer, .cancelTimer, .enqueueOutbox, .requestAgentStateSnapshot,
      .changeStandingApprovals:
      return nil
    }
  }

  /// A request waits until the reducer no longer has it in flight; a hand-over to the outbox until the outbox
  /// reported it stored or refused; a timer waits until it fires, is
  /// cancelled or is started again; everything else is done once emitted.
  public static func isOutstanding(
    _ effect: ConversationEffect, in state: ConversationState, since: [TestStore<ConversationReducer>.Step]
  ) -> Bool {
    if let requestID = requestID(of: effect) { return state.requests[requestID] != nil }
    if case .enqueueOutbox(let operation) = effect, case .send(let outgoing) = operation.kind {
      return state.outboxRecording.contains(outgoing.clientID)
    }
    guard case .startTimer(let timer, _) = effect else { return false }
    for step in since {
      if case .timerFired(timer, _) = step.action { return false }
      if step.effects.contains(.cancelTimer(timer)) { return false }
      if step.effects.contains(where: { if case .startTimer(timer, _) = $0 { true } else { false } }) { return false }
    }
    return true
  }
}
