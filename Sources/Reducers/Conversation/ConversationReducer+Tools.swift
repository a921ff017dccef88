import ConversationState

/// Tools the app runs: an agent's client-executed tool call becomes a `runTool` effect; its outcome comes
/// back as `toolRan`, is shown on the call, and is submitted to the backend for the reply waiting on it.
extension ConversationReducer {
  /// Starts the handler of a new app-side tool call of the reply streamed by `reply`.
  func runTool(_ call: ToolCall, reply: RequestID, _ state: inout ConversationState) -> [ConversationEffect] {
    guard call.execution == .client, call.outcome == .running else { return [] }
    let requestID = state.beginRequest(.tool(call.id, reply: reply))
    return [.runTool(requestID, call, deadline: policy.toolDeadline)]
  }

  func toolRan(_ requestID: RequestID, _ outcome: ToolCall.Outcome, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    // A late result (the reply stopped, the user signed out) lands nowhere.
    guard case .tool(let callID, let reply) = state.requests[requestID] else { return [] }
    state.requests[requestID] = nil
    var outcome = outcome
    if case .succeeded(let result) = outcome, result.encodedByteCount > policy.maximumToolResultBytes {
      outcome = .failed(
        ChatError(
          .toolResultTooLarge, "The result of tool call \(callID) exceeds \(policy.maximumToolResultBytes) bytes."))
    }
    if state.streamingReply?.requestID == reply,
      let index = state.streamingReply?.toolCalls.firstIndex(where: { $0.id == callID })
    {
      state.streamingReply?.toolCalls[index].outcome = outcome
      state.agentActivity = .thinking
    } else if recordAwaitedResult(callID, run: reply, outcome, &state) {
      return continueIfReady(&state)
    }
    // Under `nextRun` the result waits for the run's end and goes with the continuation.
    guard policy.toolResultDelivery == .duringReply, let conversationID = state.conversationID else { return [] }
    let submission = state.beginRequest(.toolResult(callID))
    return [.submitToolResult(submission, conversationID, reply: reply, callID, outcome)]
  }

  /// The reply streamed by `reply` is over: its running tools and unsent results are moot.
  func cancelTools(of reply: RequestID, _ state: inout ConversationState) -> [ConversationEffect] {
    cancelRequests(&state) { if case .tool(_, reply) = $0 { true } else { false } }
  }

  /// Forgets the requests in flight that `matches` picks and returns their cancel effects, oldest first.
  func cancelRequests(
    except kept: RequestID? = nil, _ state: inout ConversationState, where matches: (PendingRequest) -> Bool
  ) -> [ConversationEffect] {
    let picked = state.requests.filter { matches($0.value) }.map(\.key).sorted { $0.sequence < $1.sequence }
    for requestID in picked { state.requests[requestID] = nil }
    return picked.filter { $0 != kept }.map(ConversationEffect.cancel)
  }
}
