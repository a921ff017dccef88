import ConversationState

/// Answers that wait: a run that ends asking the user (`awaitingInput`) or leaving the app's tools to it
/// (`awaitingToolResults`, under `ToolResultDelivery.nextRun`), and the continuation run that goes on once
/// every request is answered and every app-run call has its result. Only the latest answer waits.
extension ConversationReducer {
  func inputRequested(_ requestID: RequestID, _ request: InputRequest, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    let started = startReplyIfNeeded(requestID, &state)
    guard var reply = state.streamingReply, reply.requestID == requestID else { return started }
    if request.isAnsweredByAgent {
      guard let answer = request.answer, request.accepts(answer) else {
        return started + rejectPart("The agent answered \(request.id) with no answer that fits it.", &state)
      }
      // The agent's side decided a request it asked the user about: it is settled as if answered.
      if let asked = reply.inputRequests.first(where: { $0.id == request.id }), asked.answer == nil {
        return started + answerInput(request.id, answer, answeredByAgent: true, &state)
      }
    }
    guard !reply.inputRequests.contains(where: { $0.id == request.id }) else {
      return started + rejectPart("The agent asked \(request.id) twice in one reply.", &state)
    }
    guard reply.inputRequests.count < policy.maximumToolCallsPerReply else {
      return started
        + endOversizedReply("The reply asked more than \(policy.maximumToolCallsPerReply) questions.", &state)
    }
    var request = request
    let agentAnswer = request.isAnsweredByAgent ? request.answer : nil
    request.answer = nil  // only the user answers, or the agent its own request (below)
    request.isAnsweredByAgent = false
    var effects = started
    if case .toolApproval(let callID) = request.kind {
      guard let index = reply.toolCalls.firstIndex(where: { $0.id == callID }),
        reply.toolCalls[index].outcome == .running
      else {
        return started + rejectPart("Approval \(request.id) names no running call \(callID) of the reply.", &state)
      }
      reply.toolCalls[index].outcome = .awaitingApproval
      // An app-run call started before the agent asked: it must not go on until the user says so.
      effects += cancelRequests(&state) { if case .tool(callID, requestID) = $0 { true } else { false } }
    }
    reply.inputRequests.append(request)
    state.streamingReply = reply
    if let agentAnswer { return effects + answerInput(request.id, agentAnswer, answeredByAgent: true, &state) }
    // A tool the user said to approve in this conversation runs without asking again.
    if case .toolApproval(let callID) = request.kind, let grant = grant(for: callID, in: reply.toolCalls, state) {
      return effects + answerInput(request.id, .approved, grantedBy: grant.toolName, &state)
    }
    return effects
  }

  /// Answers `id`; `grantedBy` names the remembered approval that answers it without the user,
  /// `answeredByAgent` says the agent's side decided it.
  func answerInput(
    _ id: InputRequestID, _ answer: InputAnswer, grantedBy: String? = nil, answeredByAgent: Bool = false,
    _ state: inout ConversationState
  ) -> [ConversationEffect] {
    if var reply = state.streamingReply, let index = reply.inputRequests.firstIndex(where: { $0.id == id }) {
      if let refusal = refusal(of: answer, to: reply.inputRequests[index]) {
        return refuse(.invalidAction, refusal, &state)
      }
      reply.inputRequests[index].answer = answer
      reply.inputRequests[index].grantedBy = grantedBy
      reply.inputRequests[index].isAnsweredByAgent = answeredByAgent
      let effects = settleApproval(reply.inputRequests[index], in: &reply.toolCalls, run: reply.requestID, &state)
      state.streamingReply = reply
      state.userError = nil
      return effects
    }
    guard var message = awaitingAnswer(state), case .awaitingInput(var requests) = message.reply,
      let index = requests.firstIndex(where: { $0.id == id })
    else {
      return refuse(.unknownMessage, "The agent is not waiting for an answer to \(id).", &state)
    }
    if let refusal = refusal(of: answer, to: requests[index]) { return refuse(.invalidAction, refusal, &state) }
    requests[index].answer = answer
    requests[index].grantedBy = grantedBy
    message.reply = .awaitingInput(requests)
    // After a relaunch the answer's run is gone; approved tools run under a run ID of their own.
    let run = state.awaitingRun ?? state.reserveRequestID()
    state.awaitingRun = run
    let effects = settleApproval(requests[index], in: &message.toolCalls, run: run, &state)
    commitIncoming(message, &state)
    state.userError = nil
    return effects + continueIfReady(&state)
  }

  private func refusal(of answer: InputAnswer, to request: InputRequest) -> String? {
    if request.answer != nil { return "\(request.id) is already answered." }
    guard request.accepts(answer) else {
      switch request.kind {
      case .toolApproval: return "\(request.id) asks for an approval: answer approved or denied."
      case .question: return "\(request.id) asks a question: answer with a value, or decline it."
      }
    }
    return nil
  }

  /// An answered approval moves its call on: approved, it runs (an app-run call gets its `runTool`);
  /// denied, it is `denied` and never runs.
  private func settleApproval(
    _ request: InputRequest, in calls: inout [ToolCall], run: RequestID, _ state: inout ConversationState
  ) -> [ConversationEffect] {
    guard case .toolApproval(let callID) = request.kind,
      let index = calls.firstIndex(where: { $0.id == callID }), calls[index].outcome == .awaitingApproval
    else { return [] }
    switch request.answer {
    case .approved:
      calls[index].outcome = .running
      return runTool(calls[index], reply: run, &state)
    case .denied(let reason): calls[index].outcome = .denied(reason: reason)
    default: break
    }
    return []
  }

  /// How a finished run leaves its answer, and whether its tools go on running for it.
  func outcome(of reply: StreamingReply) -> ReplyState {
    // Requests the agent answered itself were settled in the run: they hold nothing back.
    if reply.inputRequests.contains(where: { !$0.isAnsweredByAgent }) { return .awaitingInput(reply.inputRequests) }
    let runCalls = reply.toolCalls.dropFirst(reply.continuing?.toolCallCount ?? 0).filter { $0.execution == .client }
    if policy.toolResultDelivery == .nextRun, !runCalls.isEmpty { return .awaitingToolResults(runCalls.map(\.id)) }
    return .completed
  }

  /// The latest answer when it waits (`ConversationState.latestAnswer`). Called on every send: when nothing
  /// waits (nearly always) it does not look, as finding the latest answer walks back past every message
  /// after it (all of a conversation with people only).
  func awaitingAnswer(_ state: ConversationState) -> Message? {
    guard state.messages.awaitingCount > 0, let answer = state.latestAnswer, answer.reply?.isAwaiting == true
    else { return nil }
    return answer
  }

  /// Records the outcome of an app-run call of the waiting answer; true when the call is the answer's.
  func recordAwaitedResult(
    _ callID: ToolCallID, run: RequestID, _ outcome: ToolCall.Outcome, _ state: inout ConversationState
  ) -> Bool {
    guard state.awaitingRun == run, var answer = awaitingAnswer(state),
      let index = answer.toolCalls.firstIndex(where: { $0.id == callID })
    else { return false }
    answer.toolCalls[index].outcome = outcome
    commitIncoming(answer, &state)
    return true
  }

  /// Starts the continuation run once the waiting answer has every request answered and every app-run
  /// call settled; nothing otherwise, or when one is already on its way.
  ///
  /// With `storesBeforeContinuing`, it first waits for storage: the answer, with its results, is marked
  /// (`continuationAwaitingStorage`) and goes on at `toolResultsStored`.
  func continueIfReady(_ state: inout ConversationState, stored: Bool = false) -> [ConversationEffect] {
    guard let answer = awaitingAnswer(state), let conversationID = state.conversationID else { return [] }
    let requests: [InputRequest]
    if case .awaitingInput(let asked) = answer.reply { requests = asked } else { requests = [] }
    let appCalls = answer.toolCalls.filter { $0.execution == .client }
    guard requests.allSatisfy({ $0.answer != nil }), appCalls.allSatisfy(\.isSettledForContinuation),
      !state.requests.values.contains(.continuation(answer: answer.clientID))
    else { return [] }
    if storesBeforeContinuing, !stored {
      state.continuationAwaitingStorage = answer.clientID
      return []
    }
    state.continuationAwaitingStorage = nil
    state.awaitingRun = nil
    let requestID = state.beginRequest(.continuation(answer: answer.clientID))
    state.agentActivity = .thinking
    let continuation = RunContinuation(
      answer: answer.serverID, message: answer, toolResults: appCalls, inputAnswers: requests)
    return [.continueRun(requestID, conversationID, continuation)]
  }

  /// Storage has the state that held `answer`'s results: its continuation goes out, unless the wait ended
  /// meanwhile (then nothing waits any more).
  func toolResultsStored(_ answer: ClientMessageID, _ state: inout ConversationState) -> [ConversationEffect] {
    guard state.continuationAwaitingStorage == answer else { return [] }
    guard awaitingAnswer(state)?.clientID == answer else {
      state.continuationAwaitingStorage = nil
      return []
    }
    return continueIfReady(&state, stored: true)
  }

  /// The waiting answer will not go on (the user stopped it, wrote something new, or regenerates it): it
  /// becomes `cancelled`, its running tools are cancelled and a continuation on its way is dropped.
  func abandonAwaiting(_ state: inout ConversationState) -> [ConversationEffect] {
    guard let answer = awaitingAnswer(state) else { return [] }
    return endWait(of: answer, &state)
  }

  /// After any action: when a newer answer is in the list (the agent went on, say from another device) or
  /// the waiting one was deleted, the wait is over, as when the user sends.
  func endingSupersededWait(_ effects: [ConversationEffect], _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard state.awaitingRun != nil, awaitingAnswer(state) == nil else { return effects }
    return effects + endWait(of: state.messages.last { $0.reply?.isAwaiting == true }, &state)
  }

  /// Ends the wait: the waiting run's app tools and any continuation are cancelled, and the answer, when
  /// it is still there, ends `cancelled` with everything it had.
  private func endWait(of answer: Message?, _ state: inout ConversationState) -> [ConversationEffect] {
    var effects: [ConversationEffect] = []
    if let run = state.awaitingRun { effects += cancelTools(of: run, &state) }
    state.awaitingRun = nil
    state.continuationAwaitingStorage = nil
    guard var answer else { return effects }
    effects += cancelRequests(&state) { $0 == .continuation(answer: answer.clientID) }
    answer.reply = .cancelled
    commitIncoming(answer, &state)
    return effects
  }

  /// A continuation run that ended before its reply started: the answer it was to continue ends as that
  /// error makes it (`ReplyState(endedBy:)`), with everything it had.
  func endContinued(_ answerID: ClientMessageID, _ error: ChatError, _ state: inout ConversationState) {
    guard var answer = state.messages[clientID: answerID], answer.reply?.isAwaiting == true else { return }
    answer.reply = ReplyState(endedBy: error)
    commitIncoming(answer, &state)
    state.agentActivity = .idle
  }

  /// The streaming reply of a continuation run, started with the answer it continues: that answer leaves
  /// the list and streams on in its own row, with its text, parts and tool calls.
  func continuedReply(of answerID: ClientMessageID, _ reply: StreamingReply, _ state: inout ConversationState)
    -> StreamingReply
  {
    guard let answer = state.messages.remove(answerID) else { return reply }
    recountUnread(&state)
    var continued = reply
    continued.clientID = answer.clientID
    continued.text = StreamedText(answer.text)
    continued.toolCalls = answer.toolCalls
    continued.restoreParts(answer.parts.map { StreamingPart($0) })
    continued.agent = reply.agent ?? answer.agent
    continued.startedAt = answer.createdAt
    continued.serverID = reply.serverID ?? answer.serverID
    continued.continuing = ContinuationSeed(
      streamedUTF8Count: continued.streamedUTF8Count, toolCallCount: answer.toolCalls.count,
      partCount: answer.parts.count, usage: answer.usage)
    if continued.presentedUTF8Count != nil { continued.presentedUTF8Count = answer.text.utf8.count }
    return continued
  }

  /// A continuation's finish: what the earlier run wrote stays in front. When this run streamed, the
  /// stream is the answer (the server's copy covers only this run); when it streamed nothing, the server's
  /// copy follows the earlier text and parts. Usage adds up across the runs.
  func composeContinued(_ final: inout Message, _ reply: StreamingReply, _ seed: ContinuationSeed) {
    let streamed = reply.streamedUTF8Count > seed.streamedUTF8Count || reply.parts.count > seed.partCount
    // The server's copy follows the earlier run's text and parts only when this run streamed nothing.
    final.text = reply.text.string + (streamed ? "" : final.text)
    final.parts = reply.committedParts + (streamed ? [] : final.parts)
    let earlier = reply.toolCalls
    final.toolCalls = earlier + final.toolCalls.filter { call in !earlier.contains { $0.id == call.id } }
    if final.agent == nil { final.agent = reply.agent }
    if let earlier = seed.usage {
      final.usage = final.usage.map { earlier.adding($0) } ?? earlier
    }
  }
}

extension ToolCall {
  /// Whether the call has an outcome a continuation can carry: a result, a failure, a denial.
  var isSettledForContinuation: Bool {
    switch outcome {
    case .succeeded, .failed, .denied: true
    case .running, .inputStreaming, .awaitingApproval: false
    }
  }
}

extension Usage {
  /// The usage of two runs of one answer, added (wrapping, as `TokenUsage` sums).
  func adding(_ other: Usage) -> Usage {
    Usage(
      credits: credits + other.credits, inputTokens: inputTokens &+ other.inputTokens,
      outputTokens: outputTokens &+ other.outputTokens,
      reasoningTokens: reasoningTokens == nil && other.reasoningTokens == nil
        ? nil : (reasoningTokens ?? 0) &+ (other.reasoningTokens ?? 0))
  }
}
