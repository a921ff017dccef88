import ConversationState
import Foundation

extension ConversationReducer {
  func replyStarted(
    _ requestID: RequestID, _ agent: AgentInfo?, _ at: Date, replyID: ServerMessageID? = nil,
    _ state: inout ConversationState
  ) -> [ConversationEffect] {
    let replacing: ClientMessageID?
    switch state.requests[requestID] {
    case .send(let clientID):
      replacing = nil
      // The server is answering the question, so it has it, whether or not it said so first.
      if var question = state.messages[clientID: clientID], question.delivery == .sending {
        question.delivery = .sent
        commitIncoming(question, &state)
      }
    case .regenerate(let answer): replacing = answer
    case .realtimeReply, .continuation: replacing = nil
    default: return []
    }
    guard state.streamingReply?.requestID != requestID else { return [] }
    let clientID = ClientMessageID("reply-\(requestID)")
    // This request's reply was cut off and then moved off screen with its path (a regeneration finished
    // under it): the rest of it belongs to a path not shown, and streams nowhere.
    if !state.branches.isEmpty, state.branches.hides(clientID) { return [] }
    var effects: [ConversationEffect] = []
    if let previous = state.streamingReply {
      // A reply whose stream is still open goes on beside the new one (a second run, a reply over the
      // realtime connection); one whose request is over, or a regeneration (it replaces what follows its
      // answer), is cut off.
      let overlaps =
        state.requests[previous.requestID] != nil && previous.replacing == nil && replacing == nil
      if overlaps {
        state.streamingReply = nil
        if state.overlappingReplies.count == ConversationState.maximumOverlappingReplies {
          interrupt(state.overlappingReplies[0], Self.newerReply, &state)  // takes it out of the list
        }
        state.overlappingReplies.append(previous)
      } else {
        if previous.resumption != nil {
          // It waited to resume: its wait and the app's tools it kept running end with it.
          effects = [.cancelTimer(.replyResume)] + cancelTools(of: previous.requestID, &state)
        }
        interrupt(previous, Self.newerReply, &state)
      }
    }
    // Local and server clocks disagree; a reply must never sort before the question it answers (a
    // millisecond after it, at the earliest, so equal times cannot fall back to comparing unrelated IDs).
    let startedAt = max(at, state.messages.lastCommitted?.createdAt.addingTimeInterval(0.001) ?? at)
    var reply = StreamingReply(
      requestID: requestID, clientID: clientID, agent: agent, startedAt: startedAt, replacing: replacing,
      serverID: replyID)
    if policy.replyPresentation != .stream { reply.presentedUTF8Count = 0 }
    if case .continuation(let answer) = state.requests[requestID] {
      reply = continuedReply(of: answer, reply, &state)
    }
    state.streamingReply = reply
    state.agentActivity = .thinking
    return effects
  }

  /// Many SSE servers send no start frame: the first delta of a send's or regeneration's stream starts its
  /// reply. A delta for a request that is not streaming anything is stale and ignored.
  func deltaWithoutStart(_ requestID: RequestID, _ delta: String, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    let effects = startReplyIfNeeded(requestID, &state)
    guard state.streamingReply?.requestID == requestID else { return effects }
    return effects + appendDelta(delta, &state)
  }

  /// Starts the reply of a send or regeneration that is streaming without a start frame (see
  /// `deltaWithoutStart`); nothing when its reply already streams or the request is not such a one.
  func startReplyIfNeeded(_ requestID: RequestID, _ state: inout ConversationState) -> [ConversationEffect] {
    guard state.streamingReply?.requestID != requestID else { return [] }
    switch state.requests[requestID] {
    case .send, .regenerate, .continuation: break
    default: return []
    }
    let at = state.messages.lastCommitted?.createdAt ?? Date(timeIntervalSinceReferenceDate: 0)
    return replyStarted(requestID, nil, at, &state)
  }

  /// A call that comes first starts its send's reply, as a first delta does.
  func toolCallStarted(_ requestID: RequestID, _ call: ToolCall, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    let started = startReplyIfNeeded(requestID, &state)
    return started + toolCallStartedInReply(requestID, call, &state)
  }

  private func toolCallStartedInReply(_ requestID: RequestID, _ call: ToolCall, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard var reply = state.streamingReply, reply.requestID == requestID else { return [] }
    if let index = reply.toolCalls.firstIndex(where: { $0.id == call.id }) {
      if reply.toolCalls[index].outcome == .inputStreaming {
        return completeStreamedInput(call, at: index, requestID, &state)
      }
      reply.toolCalls[index] = call
    } else {
      if reply.toolCalls.count >= policy.maximumToolCallsPerReply {
        return endOversizedReply("The reply made more than \(policy.maximumToolCallsPerReply) tool calls.", &state)
      }
      if call.execution == .client && reply.clientToolCallCount >= policy.clientToolCallLimit {
        return endAtToolLoopLimit(reply, &state)
      }
      reply.toolCalls.append(call)
      state.streamingReply = reply
      addToolCallPart(call, &state)
      state.agentActivity = .runningTool(call.name)
      return runTool(call, reply: requestID, &state)
    }
    state.streamingReply = reply
    state.agentActivity = .runningTool(call.name)
    return []
  }

  /// Ends a reply whose next app-run call would pass `clientToolCallLimit`: interrupted `TOOL_LOOP_LIMIT`,
  /// its stream and its running tools cancelled.
  func endAtToolLoopLimit(_ reply: StreamingReply, _ state: inout ConversationState) -> [ConversationEffect] {
    let error = ChatError(
      .toolLoopLimit, "The agent called more than \(policy.clientToolCallLimit) client tools in one reply.")
    state.requests[reply.requestID] = nil
    interrupt(reply, error, &state)
    state.userError = error
    return [.cancel(reply.requestID)] + cancelTools(of: reply.requestID, &state)
  }

  func toolCallFinished(
    _ requestID: RequestID, _ callID: ToolCallID, _ outcome: ToolCall.Outcome, _ state: inout ConversationState
  ) -> [ConversationEffect] {
    guard state.streamingReply?.requestID == requestID else { return [] }
    guard let index = state.streamingReply?.toolCalls.firstIndex(where: { $0.id == callID }) else {
      state.backgroundError = ChatError(.invalidEvent, "A result arrived for unknown tool call \(callID).")
      return []
    }
    guard state.streamingReply?.toolCalls[index].outcome != .inputStreaming else {
      state.backgroundError = ChatError(
        .invalidEvent, "A result arrived for tool call \(callID) before its input was complete.")
      return []
    }
    // A denied call never ran: a result for it is the agent's echo of the denial, and changes nothing.
    if case .denied = state.streamingReply?.toolCalls[index].outcome { return [] }
    var outcome = outcome
    if case .succeeded(let result) = outcome, result.encodedByteCount > policy.maximumToolResultBytes {
      let error = ChatError(
        .toolResultTooLarge, "The result of tool call \(callID) exceeds \(policy.maximumToolResultBytes) bytes.")
      outcome = .failed(error)
      state.backgroundError = error
    }
    state.streamingReply?.toolCalls[index].outcome = outcome
    state.agentActivity = .thinking
    // The server settled an app-run call itself: the app's run of it is moot.
    return cancelRequests(&state) { if case .tool(callID, requestID) = $0 { true } else { false } }
  }

  func replyFinished(
    _ requestID: RequestID, _ message: Message, userMessageID: ServerMessageID?, _ state: inout ConversationState
  ) -> [ConversationEffect] {
    // A finish naming a request that streams no reply (a confused backend) is not one.
    guard let purpose = state.requests[requestID], purpose.streamsReply else { return [] }
    state.requests[requestID] = nil
    let reply = state.streamingReply?.requestID == requestID ? state.streamingReply : nil
    if reply != nil { resumed(&state) }
    let outcome = reply.map(outcome(of:)) ?? .completed
    // A run that waits leaves its tools running for the answer; any other's are moot.
    let effects = outcome.isAwaiting ? [] : cancelTools(of: requestID, &state)
    if reply != nil { endNewestReply(&state) }
    if case .send(let clientID) = purpose, let sent = state.messages[clientID: clientID] {
      // The reply finished, so the server has the question; some servers name its ID only here.
      if !sent.isCommitted || (sent.serverID == nil && userMessageID != nil) {
        var confirmed = sent
        confirmed.delivery = .sent
        if confirmed.serverID == nil { confirmed.serverID = userMessageID }
        commitIncoming(confirmed, &state)
      }
    }
    credentialsProven(&state)
    var final = message
    // The answer keeps the row the UI has shown it in: the streaming reply's client ID, or that of the
    // interrupted stub a newer reply left behind. A list view updates the row instead of replacing it.
    let stub = ClientMessageID("reply-\(requestID)")
    if let reply {
      final.clientID = reply.clientID
    } else if state.messages.contains(stub) {
      final.clientID = stub
    }
    final.role = .assistant
    final.delivery = .sent
    final.reply = outcome
    if let reply, let seed = reply.continuing {
      composeContinued(&final, reply, seed)
    } else {
      if final.toolCalls.isEmpty, let reply { final.toolCalls = reply.toolCalls }
      if final.parts.isEmpty, let reply, !reply.parts.isEmpty { final.parts = reply.committedParts }
      // A protocol that sends no copy of the answer finishes with an empty one: the text that streamed stands
      // (a reply in parts gets the text parts joined when it is committed).
      if final.text.isEmpty, final.parts.isEmpty, let reply { final.text = reply.text.string }
      if final.agent == nil { final.agent = reply?.agent }
    }
    if final.serverID == nil { final.serverID = reply?.serverID }
    if case .regenerate(let answer) = purpose {
      // Only now, with the new answer in hand, does the old one (and what followed it) leave the screen: it
      // stays as the new answer's sibling.
      let after = state.messages.index(of: answer).flatMap { $0 > 0 ? state.messages[$0 - 1].clientID : nil }
      let replaced = state.messages.removeCommitted(from: answer)
      state.branches.keep(replaced, after: after, replacedBy: final.clientID)
      recountUnread(&state)
    }
    commitIncoming(final, &state)
    settleActivity(&state)
    guard outcome.isAwaiting else { return effects }
    state.awaitingRun = requestID
    return effects + continueIfReady(&state)
  }

  /// A stream closed without a finish: the reply so far is kept, `truncated`, and may be regenerated.
  func streamClosed(_ requestID: RequestID, _ state: inout ConversationState) -> [ConversationEffect] {
    guard let purpose = state.requests[requestID], purpose.streamsReply else { return [] }
    state.requests[requestID] = nil
    // Made only where it is used: most streams end after their reply finished, with nothing to fail.
    func incomplete() -> ChatError { ChatError(.incompleteStream, "The reply stopped before it was finished.") }
    // A clean end carries no random value: the wait is the longest of its attempt's (jitter 1).
    if let reply = state.streamingReply, reply.requestID == requestID,
      let resuming = resumeAfterDrop(reply, purpose, incomplete(), jitter: 1, &state)
    {
      return resuming
    }
    let tools = cancelTools(of: requestID, &state)
    if let reply = state.streamingReply, reply.requestID == requestID {
      let error = droppedError(reply, incomplete())
      interrupt(reply, error, &state)
      state.userError = error
    } else if case .send(let clientID) = purpose, state.messages.containsOutgoing(clientID) {
      failOutgoing(clientID, incomplete(), &state)
    } else if case .continuation(let answer) = purpose {
      let error = incomplete()
      endContinued(answer, error, &state)
      state.userError = error
    }
    settleActivity(&state)
    return tools + dispatchPendingMessages(&state)
  }

  /// Stops every reply streaming (the newest and any older one beside it), or the wait of the latest
  /// answer.
  func stopReply(_ state: inout ConversationState) -> [ConversationEffect] {
    guard state.streamingReply != nil else { return abandonAwaiting(&state) }
    var effects: [ConversationEffect] = []
    for reply in state.liveReplies {
      state.requests[reply.requestID] = nil
      if reply.resumption != nil { effects.append(.cancelTimer(.replyResume)) }
      interrupt(reply, ChatError(.cancelled, "Stopped."), &state)
      effects += [.cancel(reply.requestID)] + cancelTools(of: reply.requestID, &state)
    }
    state.agentActivity = .idle
    return effects
  }

  /// Regenerates answer `answerID`; `retryingAfterReload` is the one automatic retry after
  /// `CONVERSATION_CHANGED` (a user's own regeneration gives the answer that one retry again).
  func regenerate(_ answerID: ClientMessageID, retryingAfterReload: Bool = false, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    if !retryingAfterReload { state.resentAfterReload.remove(answerID) }
    guard state.status == .ongoing else {
      return refuse(.conversationNotOngoing, "Answers can be regenerated only while the AI agent has the chat.", &state)
    }
    guard let answer = state.messages[clientID: answerID] else {
      return refuse(.unknownMessage, "There is no answer \(answerID) to regenerate.", &state)
    }
    // As `edit` refuses the agent's message: the message is there, the action is the wrong one for it.
    guard answer.role == .assistant, answer.isCommitted else {
      let hint = answer.role == .user ? " A message of yours can be edited instead." : ""
      return refuse(.invalidAction, "Only a finished answer of the agent can be regenerated.\(hint)", &state)
    }
    guard state.streamingReply == nil, !state.requests.values.contains(where: \.isRegeneration) else {
      return refuse(.invalidAction, "Wait for the current reply to finish.", &state)
    }
    guard let conversationID = state.conversationID,
      let prompt = state.messages.lastCommitted(before: answerID, where: { $0.role == .user }),
      let promptID = prompt.serverID
    else {
      return refuse(.invalidAction, "This answer has no confirmed question to answer again.", &state)
    }
    let abandoned = answer.reply?.isAwaiting == true ? abandonAwaiting(&state) : []
    let requestID = state.beginRequest(.regenerate(answer: answerID))
    state.agentActivity = .thinking
    state.userError = nil
    return abandoned + [.regenerate(requestID, conversationID, replyTo: promptID, answer: answer.serverID)]
  }

  /// Ends a streaming reply that will not finish. A regeneration that fails leaves the conversation as it
  /// was; a first answer is kept with its partial text, ended by the error (`ReplyState(endedBy:)`).
  /// Commits `reply` as its stream left it, ended by `error`; it stops streaming, whether it was the newest
  /// reply or an older one beside it (which leaves the newest's activity alone).
  func interrupt(_ reply: StreamingReply, _ error: ChatError, _ state: inout ConversationState) {
    if state.streamingReply?.requestID == reply.requestID {
      state.agentActivity = .idle
      endNewestReply(&state)
    } else if let index = state.overlappingReplies.firstIndex(where: { $0.requestID == reply.requestID }) {
      state.overlappingReplies.remove(at: index)
    } else if state.streamingReply == nil {
      state.agentActivity = .idle
    }
    guard reply.replacing == nil else {
      state.userError = error
      return
    }
    // With the server's ID, the finished copy (a sync, a history page) later replaces the partial one.
    let message = Message(
      clientID: reply.clientID, serverID: reply.serverID, role: .assistant, author: reply.agent?.id,
      text: reply.text.string, createdAt: reply.startedAt, delivery: .sent, reply: ReplyState(endedBy: error),
      agent: reply.agent, toolCalls: reply.toolCalls, parts: reply.committedParts)
    commitIncoming(message, &state)
  }
}

extension ConversationReducer {
  static let newerReply = ChatError(.incompleteStream, "A newer reply started.")

  /// The older reply, streaming beside the newest, that `action` is an event of, if any.
  func overlappingIndex(for action: ConversationAction, _ state: ConversationState) -> Int? {
    let replies = state.overlappingReplies
    switch action {
    case .replyStarted(let id, _, _, _), .replyDelta(let id, _), .replyPartStarted(let id, _, _),
      .replyPartDelta(let id, _, _), .replyPartEnded(let id, _, _), .replyPartAdded(let id, _),
      .toolCallStarted(let id, _), .toolInputStarted(let id, _, _, _), .toolInputDelta(let id, _, _),
      .replyStepReset(let id, _, _),
      .toolCallFinished(let id, _, _), .inputRequested(let id, _), .replyFinished(let id, _, _), .replyEnded(let id),
      .requestFailed(let id, _, _, _), .requestSucceeded(let id), .positioned(let id, _, _):
      return replies.firstIndex { $0.requestID == id }
    case .realtime(let conversationID, .replyStarted(let serverID, _, _), _, _),
      .realtime(let conversationID, .replyDelta(let serverID, _), _, _),
      .realtime(let conversationID, .replyFinished(let serverID, _), _, _):
      // Matched by server ID, as the newest reply is off the hot path.
      guard conversationID == state.conversationID else { return nil }
      return replies.firstIndex { $0.serverID == serverID }
    default:
      return nil
    }
  }

  /// Applies an event of an older reply streaming beside the newest: that reply takes the newest's place
  /// for the event (every rule for a streaming reply holds for it), the newest waiting as the most recent
  /// of the older ones, so that whatever the event does to every reply (a dropped connection, a sign-in)
  /// reaches it too, and so that it is back in front if the event ends the focused one. Then the two swap
  /// back, when both still stream, and the newest's activity is what shows.
  func focusing(_ index: Int, _ action: ConversationAction, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    let newest = state.streamingReply
    let activity = state.agentActivity
    var lineup = state.overlappingReplies
    let focused = lineup.remove(at: index)
    if let newest { lineup.append(newest) }
    state.overlappingReplies = lineup
    state.streamingReply = focused
    let effects = reduce(into: &state, action: action)
    guard let newest else { return effects }
    if let still = state.streamingReply, still.requestID == focused.requestID,
      let at = state.overlappingReplies.firstIndex(where: { $0.requestID == newest.requestID })
    {
      state.streamingReply = state.overlappingReplies.remove(at: at)
      state.overlappingReplies.insert(still, at: min(index, state.overlappingReplies.count))
    }
    if state.streamingReply?.requestID == newest.requestID { state.agentActivity = activity }
    return effects
  }

  /// The newest reply stopped streaming: the most recent older one still streaming takes its place.
  func endNewestReply(_ state: inout ConversationState) {
    state.streamingReply = state.overlappingReplies.popLast()
    settleActivity(&state)
  }

  /// After a reply ended: the agent is idle, unless another reply still streams.
  func settleActivity(_ state: inout ConversationState) {
    state.agentActivity = state.streamingReply == nil ? .idle : .generating
  }
}

extension PendingRequest {
  var isRealtimeReply: Bool {
    if case .realtimeReply = self { return true }
    return false
  }

  var isRegeneration: Bool {
    if case .regenerate = self { return true }
    return false
  }
}
