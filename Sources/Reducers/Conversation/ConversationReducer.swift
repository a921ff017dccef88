public import ConversationState

/// The rules of one conversation (DESIGN.md, "Conversation rules"), as a pure function.
///
/// Every action either changes the state and returns the effects to run, or is refused: an illegal user
/// action sets `userError` to a typed `ChatError` and changes nothing else; a stale backend result (its
/// request is no longer in flight, or belongs to an older identity epoch) is ignored.
///
/// ```swift
/// let reducer = ConversationReducer()
/// var state = ConversationState()
/// let effects = reducer.reduce(
///   into: &state,
///   action: .send(OutgoingMessage(clientID: "c1", text: "Hello", createdAt: now)))
/// // state.messages.outgoing[0].delivery == .sending
/// // effects == [.sendMessage(r0.1, SendPayload(conversationID: nil, clientID: "c1", text: "Hello", ...))]
/// ```
public struct ConversationReducer: Reducer {
  /// How long a typing indicator lasts without a refresh with the default policy, in seconds.
  public static let typingLifetime: Double = ChatPolicy().typingLifetime

  /// The limits, lifetimes and backoff settings this reducer applies.
  public let policy: ChatPolicy
  /// Whether a continuation waits until storage has its tool results and answers
  /// (`ConversationState.continuationAwaitingStorage`, `toolResultsStored`): set where a storage follows the
  /// store and reports writes (`ChatClient` with storage), so a result is on disk before the agent gets it,
  /// and a relaunch delivers it again rather than running the tool again. Whoever writes the state must
  /// send `.toolResultsStored(answer)` once a state holding `continuationAwaitingStorage` is written (also
  /// if the write failed); until then the continuation does not go out. Off by default: a store wired to
  /// storage by hand continues at once unless it reports writes so.
  public let storesBeforeContinuing: Bool

  /// A reducer applying `policy` (the documented defaults when omitted).
  public init(policy: ChatPolicy = ChatPolicy(), storesBeforeContinuing: Bool = false) {
    self.policy = policy
    self.storesBeforeContinuing = storesBeforeContinuing
  }

  public func reduce(into state: inout ConversationState, action: ConversationAction) -> [ConversationEffect] {
    // The hot path first, in one switch: a streamed delta is O(delta), touches only the streamed reply, and
    // carries no number to check. A delta over the live connection takes the same path: a reply that
    // streams over a connection is interrupted when that connection goes, so matching the reply's
    // connection proves the connection live without a look-up. Anything else takes the long way.
    switch action {
    case .replyDelta(let requestID, let delta) where state.isStreamingReply(of: requestID):
      return appendDelta(delta, &state)
    case .realtime(let conversationID, .replyDelta(let serverID, let delta), let connection, _)
    where state.isStreamingReply(serverID, over: connection, in: conversationID):
      return appendDelta(delta, &state)
    default: break
    }
    // The user's messages go out one at a time (`dispatchPendingMessages`): whichever step the server took
    // the one on its way in (an acceptance, a reply's start or end, an echo, a sync), the next goes. A
    // failure dispatches where it is settled.
    let sending = state.messages.outgoing.first { $0.delivery == .sending }?.clientID
    var effects = reduceOffHotPath(action, &state)
    if let sending, state.messages.read(clientID: sending, { $0.isCommitted || $0.delivery == .queued }) ?? false,
      !state.messages.outgoing.contains(where: { $0.delivery == .sending })
    {
      effects += dispatchPendingMessages(&state)
    }
    // Whatever ended the answer before (its finish, a stop, a failure, a sync), the next queued turn goes.
    if state.hasFollowUps { effects += advanceFollowUps(&state) }
    return effects
  }

  /// Every action but a streamed delta of the newest reply.
  private func reduceOffHotPath(_ action: ConversationAction, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    // An event of an older reply still streaming beside the newest (rare: the list is almost always empty).
    if !state.overlappingReplies.isEmpty, let index = overlappingIndex(for: action, state) {
      return focusing(index, action, &state)
    }
    if case .positioned(let requestID, let position, let event) = action {
      return positioned(requestID, position, event, &state)
    }
    guard action.hasOnlyFiniteNumbers else {
      let message = "A time or number in \(action.caseName) is not finite; ignored."
      if action.isUserIntent {
        state.userError = ChatError(.invalidAction, message)
      } else {
        state.backgroundError = ChatError(.invalidEvent, message)
      }
      return []
    }
    let effects = reduceChecked(&state, action)
    // Whatever put a newer answer in the list (a sync, the realtime connection, a realtime reply cut off by
    // a sign-in) or took the waiting one out, the wait is over.
    return state.awaitingRun == nil ? effects : endingSupersededWait(effects, &state)
  }

  /// Every action but the hot path's, its numbers known to be finite.
  private func reduceChecked(_ state: inout ConversationState, _ action: ConversationAction) -> [ConversationEffect] {
    switch action {
    case .send(let outgoing): return sendOrQueue(outgoing, &state)
    case .steer(let outgoing): return steer(outgoing, &state)
    case .retry(let clientID): return retry(clientID, &state)
    case .discard(let clientID): return discard(clientID, intoDraft: false, &state)
    case .takeBackIntoDraft(let clientID): return discard(clientID, intoDraft: true, &state)
    case .edit(let message, let replacement): return edit(message, replacement, &state)
    case .regenerate(let answer): return regenerate(answer, &state)
    case .showSibling(let message, let choice): return showSibling(of: message, choice, &state)
    case .showBranch(let message): return showBranch(containing: message, &state)
    case .editQueued(let turn, let text): return editQueued(turn, text: text, &state)
    case .removeQueued(let turn): return removeQueued(turn, intoDraft: false, &state)
    case .moveQueued(let turn, let index): return moveQueued(turn, to: index, &state)
    case .takeQueuedIntoDraft(let turn): return removeQueued(turn, intoDraft: true, &state)
    case .sendQueuedNow(let turn): return sendQueuedNow(turn, &state)
    case .resumeQueue: return resumeQueue(&state)
    case .stopReply: return stopReply(&state)
    case .answerInput(let id, let answer): return answerInput(id, answer, &state)
    case .approve(let id, let memory, let at): return approve(id, remembering: memory, at: at, &state)
    case .revokeApproval(let toolName): return revokeApproval(toolName, &state)
    case .standingApprovalsChanged(let grants, let userID):
      if state.identity?.userID == userID { state.standingApprovals = grants }
      return []
    case .setStarterPrompts(let starters):
      state.suggestions.starters = Suggestions.cleaned(starters)
      return []
    case .suggestFollowUps(let texts, let answer):
      offerFollowUps(texts, after: answer, &state)
      return []
    case .replySuggested(let requestID, let texts):
      guard let reply = state.streamingReply, reply.requestID == requestID else { return [] }
      offerFollowUps(texts, after: reply.clientID, &state)
      return []
    case .sendSuggestion(let index, let clientID, let at): return sendSuggestion(index, clientID, at, &state)
    case .loadHistory(let pageSize): return loadHistory(pageSize: pageSize, more: false, &state)
    case .loadMoreHistory(let pageSize): return loadHistory(pageSize: pageSize, more: true, &state)
    case .trimHistory(let keepingNewest): return trimHistory(keepingNewest: keepingNewest, &state)
    case .trimNewerHistory(let keepingOldest): return trimNewerHistory(keepingOldest: keepingOldest, &state)
    case .loadNewerHistory(let pageSize): return loadNewerHistory(pageSize: pageSize, &state)
    case .rateAnswer(let clientID, let rating): return rateAnswer(clientID, rating, &state)
    case .rateConversation(let rating, let comment): return rateConversation(rating, comment, &state)
    case .dismissFeedback:
      if state.feedbackMoment?.phase == .open { state.feedbackMoment?.phase = .dismissed }
      return []
    case .setDraft(let draft):
      state.draft = draft
      return []
    case .markRead(let serverID): return markRead(upTo: serverID, &state)
    case .setTyping(let isTyping): return setTyping(isTyping, &state)
    case .clearError:
      state.userError = nil
      return []
    case .clear: return clear(&state)
    case .open(let conversationID): return open(conversationID, &state)
    case .identify(let identity, let keepingGuestConversation):
      if keepingGuestConversation && state.identity == nil { return upgradeGuest(to: identity, &state) }
      return switchIdentity(to: identity, &state)
    case .signOut: return switchIdentity(to: nil, &state)
    case .credentialsRefreshed: return credentialsRefreshed(&state)
    case .credentialsNeeded(let error): return credentialsNeeded(error, &state)
    case .connect: return connect(&state)
    case .disconnect: return disconnect(&state)
    case .escalate(let draft): return escalate(draft, &state)
    case .relaunched: return relaunched(&state)
    case .restored(let stored): return restored(stored, &state)
    case .agentStateSnapshot(let snapshot): return agentStateSnapshot(snapshot, &state)
    case .agentStateDelta(let patch): return agentStateDelta(patch, &state)
    case .outboxRecorded(let clientID): return outboxRecorded(clientID, &state)
    case .toolResultsStored(let answer): return toolResultsStored(answer, &state)
    case .outboxRejected(let kind, let error): return outboxRejected(kind, error, &state)

    case .sendAccepted(let requestID, let confirmed, let conversationID):
      return sendAccepted(requestID, confirmed, conversationID, &state)
    case .requestFailed(let requestID, let error, let at, let jitter):
      return requestFailed(requestID, error.sanitized, at: at, jitter: jitter ?? 1, &state)
    case .sendQueued(let requestID): return sendQueued(requestID, &state)
    case .conversationDescribed(let requestID, let title, let status):
      guard state.requests[requestID] != nil else { return [] }
      if let title { state.title = title }
      guard let status, status != state.status else { return [] }
      return statusChanged(to: status, &state)
    case .requestSucceeded(let requestID): return requestSucceeded(requestID, &state)
    case .replyStarted(let requestID, let agent, let at, let replyID):
      return replyStarted(requestID, agent, at, replyID: replyID, &state)
    case .replyDelta(let requestID, let delta): return deltaWithoutStart(requestID, delta, &state)
    case .replyPartStarted(let requestID, let id, let kind): return replyPartStarted(requestID, id, kind, &state)
    case .replyPartDelta(let requestID, let id, let delta): return replyPartDelta(requestID, id, delta, &state)
    case .replyPartEnded(let requestID, let id, let encryptedValue):
      return replyPartEnded(requestID, id, encryptedValue: encryptedValue, &state)
    case .replyPartAdded(let requestID, let part): return replyPartAdded(requestID, part, &state)
    case .toolCallStarted(let requestID, let call): return toolCallStarted(requestID, call, &state)
    case .toolInputStarted(let requestID, let callID, let name, let execution):
      return toolInputStarted(requestID, callID, name: name, execution: execution, &state)
    case .toolInputDelta(let requestID, let callID, let delta): return toolInputDelta(requestID, callID, delta, &state)
    case .replyStepReset(let requestID, let parts, let calls):
      return replyStepReset(requestID, parts: parts, toolCalls: calls, &state)
    case .toolCallFinished(let requestID, let callID, let outcome):
      return toolCallFinished(requestID, callID, outcome, &state)
    case .inputRequested(let requestID, let request): return inputRequested(requestID, request, &state)
    case .positioned: return []  // handled above
    case .replyFinished(let requestID, let message, let userMessageID):
      return replyFinished(requestID, message, userMessageID: userMessageID, &state)
    case .replyEnded(let requestID): return streamClosed(requestID, &state)
    case .historyLoaded(let requestID, let page): return historyLoaded(requestID, page, &state)
    case .storedHistoryLoaded(let requestID, let messages, let hasMore):
      return storedHistoryLoaded(requestID, messages, hasMore: hasMore, &state)
    case .replyRestated(let requestID, let messages): return replyRestated(requestID, messages, &state)
    case .syncLoaded(let requestID, let messages, let hasMore, let jitter):
      return syncLoaded(requestID, messages, hasMore: hasMore, jitter: jitter ?? 1, &state)
    case .realtime(let conversationID, let event, let connection, let receivedAt):
      return realtime(event, in: conversationID, connection: connection, receivedAt: receivedAt, &state)
    case .connectionOpened(let requestID): return connectionOpened(requestID, &state)
    case .frameRejected(let requestID, let error):
      // The live connection's skipped frame, or what a request that streams a reply left out (`skipped`).
      if liveConnection(state) == requestID || state.requests[requestID]?.streamsReply == true {
        state.backgroundError = error
      }
      return []
    case .connectionLost(let requestID, let error, let at, let jitter):
      return connectionLost(requestID, error.sanitized, at: at, jitter: jitter, &state)
    case .ticketCreated(let requestID, let receipt):
      // A receipt for another request (a lying or confused backend) leaves that request in flight.
      guard state.requests[requestID] == .ticket else { return [] }
      state.requests[requestID] = nil
      state.escalation = .created(receipt)
      credentialsProven(&state)
      return []
    case .readCursorSaved(let requestID): return readCursorSaved(requestID, &state)
    case .toolRan(let requestID, let outcome): return toolRan(requestID, outcome, &state)
    case .uploadProgressed(let requestID, let fraction): return uploadProgressed(requestID, fraction, &state)
    case .uploadFinished(let requestID, let url): return uploadFinished(requestID, url, &state)
    case .attachmentProgress(let clientID, let attachmentID, let fraction):
      return updateAttachment(clientID, attachmentID, progress: fraction, url: nil, &state)
    case .attachmentUploaded(let clientID, let attachmentID, let url):
      return updateAttachment(clientID, attachmentID, progress: 1, url: url, &state)
    case .timerFired(let timer, let at): return timerFired(timer, at: at, &state)
    }
  }

  /// An event at a position of its stream: dropped when the request's reply has applied one at or past it
  /// (a replay after a resume), else applied, the reply then remembering the position. O(1) on top of the
  /// event, so a positioned delta still costs O(delta).
  func positioned(
    _ requestID: RequestID, _ position: StreamPosition, _ event: ConversationAction, _ state: inout ConversationState
  ) -> [ConversationEffect] {
    if state.isStreamingReply(of: requestID), let last = state.streamingReply?.resumePosition,
      !position.follows(last)
    {
      return []
    }
    let effects = reduce(into: &state, action: event)
    if state.isStreamingReply(of: requestID) {
      state.streamingReply?.resumePosition = position
      // A new event on a live stream (not the end that dropped it): the resumed stream works, and a later
      // drop starts its attempts over.
      if state.requests[requestID] != nil { resumed(&state) }
    }
    return effects
  }

  /// Refuses a user action: the typed error is the only change.
  func refuse(_ code: ChatError.Code, _ message: String, _ state: inout ConversationState) -> [ConversationEffect] {
    state.userError = ChatError(code, message)
    return []
  }

  /// Appends a delta to the streaming reply: O(delta). A paced reply starts its release timer when its
  /// shown text has caught up (the timer runs only while there is text to release).
  @inline(__always)
  func appendDelta(_ delta: String, _ state: inout ConversationState) -> [ConversationEffect] {
    if state.streamingReply?.parts.isEmpty == false { return appendDeltaToParts(delta, &state) }
    return appendReplyText(delta, &state)
  }

  /// Appends to the reply's `text` alone, with its size bound and its pacing.
  @inline(__always)
  func appendReplyText(_ delta: String, _ state: inout ConversationState) -> [ConversationEffect] {
    if passesReplyBytes(adding: delta.utf8.count, state) { return endReplyPastBytes(&state) }
    return appendBoundedReplyText(delta, &state)
  }

  /// Whether `bytes` more streamed (text, reasoning or tool input) would pass `maximumReplyBytes`.
  @inline(__always)
  func passesReplyBytes(adding bytes: Int, _ state: ConversationState) -> Bool {
    (state.streamingReply?.streamedUTF8Count ?? 0) &+ bytes > policy.maximumReplyBytes
  }

  /// Ends the reply whose next bytes would pass `maximumReplyBytes`.
  @inline(never)
  func endReplyPastBytes(_ state: inout ConversationState) -> [ConversationEffect] {
    endOversizedReply("The reply passed \(policy.maximumReplyBytes) bytes of text.", &state)
  }

  /// Appends to the reply's `text` a delta whose size bound was checked, with the pacing.
  @inline(__always)
  func appendBoundedReplyText(_ delta: String, _ state: inout ConversationState) -> [ConversationEffect] {
    guard case .paced = policy.replyPresentation else {
      state.streamingReply?.text.append(delta)
      if state.agentActivity != .generating { state.agentActivity = .generating }
      return []
    }
    let caughtUp = state.streamingReply?.presentedUTF8Count == state.streamingReply?.text.utf8Count
    state.streamingReply?.text.append(delta)
    if state.agentActivity != .generating { state.agentActivity = .generating }
    return caughtUp && !delta.isEmpty ? [.startTimer(.pace, seconds: ReplyPresentation.paceTick)] : []
  }

  /// Ends a reply that passed one of the policy's size limits (`maximumReplyBytes`,
  /// `maximumToolCallsPerReply`): it is kept, `failed`, with what arrived before the limit, and its
  /// stream is closed, so what a server sends can never grow the state without bound.
  @inline(never)
  func endOversizedReply(_ reason: String, _ state: inout ConversationState) -> [ConversationEffect] {
    guard let reply = state.streamingReply else { return [] }
    let error = ChatError(.replyTooLarge, reason)
    state.requests[reply.requestID] = nil
    interrupt(reply, error, &state)
    state.backgroundError = error
    return [.cancel(reply.requestID)] + cancelTools(of: reply.requestID, &state) + dispatchPendingMessages(&state)
  }
}
