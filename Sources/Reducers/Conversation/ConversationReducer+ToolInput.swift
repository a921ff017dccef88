import ConversationState

/// Tool calls whose arguments stream (AG-UI's `TOOL_CALL_ARGS`, the AI SDK's `tool-input-delta`, OpenAI's
/// `function_call_arguments.delta`): the call shows `inputStreaming` with its raw JSON text growing in its
/// part until `toolCallStarted` completes it with the parsed input.
extension ConversationReducer {
  func toolInputStarted(
    _ requestID: RequestID, _ callID: ToolCallID, name: String, execution: ToolCall.Execution,
    _ state: inout ConversationState
  ) -> [ConversationEffect] {
    let effects = startReplyIfNeeded(requestID, &state)
    guard let reply = state.streamingReply, reply.requestID == requestID else { return effects }
    let partID = PartID(rawValue: callID.rawValue)
    guard !reply.uses(partID) else { return effects + rejectPart("Tool call \(callID) started twice.", &state) }
    if reply.toolCalls.count >= policy.maximumToolCallsPerReply {
      return effects
        + endOversizedReply("The reply made more than \(policy.maximumToolCallsPerReply) tool calls.", &state)
    }
    if reply.parts.count >= policy.maximumPartsPerReply {
      return effects + endOversizedReply("The reply has more than \(policy.maximumPartsPerReply) parts.", &state)
    }
    enterPartsMode(&state)
    state.streamingReply?.toolCalls.append(
      ToolCall(id: callID, name: name, execution: execution, outcome: .inputStreaming))
    state.streamingReply?.parts.append(StreamingPart(id: partID, kind: .toolCall(callID), isOpen: true))
    state.agentActivity = .runningTool(name)
    return effects
  }

  func toolInputDelta(_ requestID: RequestID, _ callID: ToolCallID, _ delta: String, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard state.streamingReply?.requestID == requestID else { return [] }
    let partID = PartID(rawValue: callID.rawValue)
    guard let index = state.streamingReply?.parts.lastIndex(where: { $0.id == partID }),
      state.streamingReply?.parts[index].isOpen == true, state.streamingReply?.parts[index].kind == .toolCall(callID)
    else { return rejectPart("Input arrived for tool call \(callID), which is not streaming its input.", &state) }
    if passesReplyBytes(adding: delta.utf8.count, state) { return endReplyPastBytes(&state) }
    state.streamingReply?.parts[index].text.append(delta)
    state.streamingReply?.countPartBytes(delta.utf8.count)
    return []
  }

  /// `toolCallStarted` for a call whose input streamed: it takes the complete call (its parsed input), its
  /// part closes with the raw input it streamed, and it runs like a call that arrived whole.
  func completeStreamedInput(_ call: ToolCall, at index: Int, _ requestID: RequestID, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard let reply = state.streamingReply else { return [] }
    let others = reply.toolCalls.enumerated().filter { $0.offset != index && $0.element.execution == .client }.count
    if call.execution == .client && others >= policy.clientToolCallLimit {
      return endAtToolLoopLimit(reply, &state)
    }
    var complete = call
    if complete.outcome == .inputStreaming { complete.outcome = .running }
    state.streamingReply?.toolCalls[index] = complete
    let partID = PartID(rawValue: call.id.rawValue)
    if let part = state.streamingReply?.parts.lastIndex(where: { $0.id == partID }) {
      state.streamingReply?.parts[part].isOpen = false
    }
    state.agentActivity = .runningTool(call.name)
    return runTool(complete, reply: requestID, &state)
  }
}
