import ConversationState

/// A reply in parts (AG-UI, the AI SDK UI message stream, OpenAI's Responses): text and reasoning parts
/// stream by ID, several at once; sources, files and data arrive whole. A part's deltas cost O(delta) in the
/// text and the history; finding the part is a scan of the reply's parts from the newest, which are the
/// ones still open.
extension ConversationReducer {
  func replyPartStarted(
    _ requestID: RequestID, _ id: PartID, _ kind: StreamedPartKind, _ state: inout ConversationState
  ) -> [ConversationEffect] {
    let effects = startReplyIfNeeded(requestID, &state)
    guard let reply = state.streamingReply, reply.requestID == requestID else { return effects }
    guard reply.parts.count < policy.maximumPartsPerReply else {
      return effects + endOversizedReply("The reply has more than \(policy.maximumPartsPerReply) parts.", &state)
    }
    guard !reply.uses(id) else { return effects + rejectPart("Part \(id) of the reply started twice.", &state) }
    enterPartsMode(&state)
    state.streamingReply?.parts.append(
      StreamingPart(id: id, kind: kind == .text ? .text : .reasoning, isOpen: true))
    return effects
  }

  func replyPartDelta(_ requestID: RequestID, _ id: PartID, _ delta: String, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    // Read in place, not through a copy of the reply: this is the hot path of a reply in parts.
    guard state.streamingReply?.requestID == requestID else { return [] }
    guard let index = state.streamingReply?.parts.lastIndex(where: { $0.id == id }) else {
      return rejectPart("A delta arrived for part \(id), which the reply never started.", &state)
    }
    guard state.streamingReply?.parts[index].isOpen == true else {
      return rejectPart("A delta arrived for part \(id), which had ended.", &state)
    }
    switch state.streamingReply?.parts[index].kind {
    case .text: return appendText(delta, toPart: index, &state)
    case .reasoning:
      if passesReplyBytes(adding: delta.utf8.count, state) { return endReplyPastBytes(&state) }
      state.streamingReply?.parts[index].text.append(delta)
      state.streamingReply?.countPartBytes(delta.utf8.count)
      return []
    case .toolCall, .source, .file, .data, nil:
      return rejectPart("A delta arrived for part \(id), which does not stream.", &state)
    }
  }

  func replyPartEnded(
    _ requestID: RequestID, _ id: PartID, encryptedValue: String?, _ state: inout ConversationState
  ) -> [ConversationEffect] {
    guard let reply = state.streamingReply, reply.requestID == requestID else { return [] }
    guard let index = reply.parts.lastIndex(where: { $0.id == id }), reply.parts[index].isOpen else {
      return rejectPart("Part \(id) ended, but it was not open.", &state)
    }
    state.streamingReply?.parts[index].isOpen = false
    if let encryptedValue, reply.parts[index].kind == .reasoning {
      state.streamingReply?.parts[index].encryptedValue = encryptedValue
    }
    return []
  }

  /// Drops a step the agent streams again (`replyStepReset`): its parts, its calls and their requests go,
  /// the calls' app tools are cancelled, and the text is rebuilt from the text parts left (O(reply)).
  func replyStepReset(
    _ requestID: RequestID, parts: [PartID], toolCalls: [ToolCallID], _ state: inout ConversationState
  ) -> [ConversationEffect] {
    guard var reply = state.streamingReply, reply.requestID == requestID else { return [] }
    let droppedParts = Set(parts)
    let droppedCalls = Set(toolCalls)
    reply.parts.removeAll { part in
      if droppedParts.contains(part.id) { return true }
      if case .toolCall(let id) = part.kind { return droppedCalls.contains(id) }
      return false
    }
    reply.toolCalls.removeAll { droppedCalls.contains($0.id) }
    reply.inputRequests.removeAll { request in
      if case .toolApproval(let id) = request.kind { droppedCalls.contains(id) } else { false }
    }
    if !droppedParts.isEmpty {
      var kept = ""
      for part in reply.parts { if case .text = part.kind { kept += part.text.string } }
      if kept != reply.text.string { reply.text = StreamedText(kept) }
    }
    state.streamingReply = reply
    return cancelRequests(&state) { request in
      if case .tool(let callID, requestID) = request { droppedCalls.contains(callID) } else { false }
    }
  }

  func replyPartAdded(_ requestID: RequestID, _ part: MessagePart, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    let effects = startReplyIfNeeded(requestID, &state)
    guard let reply = state.streamingReply, reply.requestID == requestID else { return effects }
    if case .toolCall = part.content {
      return effects + rejectPart("Tool calls start with toolCallStarted, not as a whole part.", &state)
    }
    let streamed = StreamingPart(part)
    if let index = reply.parts.firstIndex(where: { $0.id == part.id }) {
      guard case .data = part.content, case .data = reply.parts[index].kind else {
        return effects + rejectPart("Part \(part.id) of the reply arrived twice.", &state)
      }
      state.streamingReply?.parts[index] = streamed
      return effects
    }
    guard !reply.uses(part.id) else {
      return effects + rejectPart("Part \(part.id) has the ID of one of the reply's tool calls.", &state)
    }
    guard reply.parts.count < policy.maximumPartsPerReply else {
      return effects + endOversizedReply("The reply has more than \(policy.maximumPartsPerReply) parts.", &state)
    }
    let bytes = streamed.text.utf8Count
    if passesReplyBytes(adding: bytes, state) { return effects + endReplyPastBytes(&state) }
    enterPartsMode(&state)
    state.streamingReply?.parts.append(streamed)
    switch streamed.kind {
    case .text: return effects + appendBoundedReplyText(streamed.text.string, &state)
    case .reasoning: state.streamingReply?.countPartBytes(bytes)
    case .toolCall, .source, .file, .data: break
    }
    return effects
  }

  /// A plain `replyDelta` for a reply in parts: it continues the last part when that is an open text part,
  /// else starts a text part after everything so far (text after a tool call follows the call).
  @inline(never)
  func appendDeltaToParts(_ delta: String, _ state: inout ConversationState) -> [ConversationEffect] {
    guard let reply = state.streamingReply else { return [] }
    if let last = reply.parts.last, last.kind == .text, last.isOpen {
      return appendText(delta, toPart: reply.parts.count - 1, &state)
    }
    guard reply.parts.count < policy.maximumPartsPerReply else {
      return endOversizedReply("The reply has more than \(policy.maximumPartsPerReply) parts.", &state)
    }
    state.streamingReply?.parts.append(StreamingPart(id: unusedPartID(in: reply), kind: .text, isOpen: true))
    return appendText(delta, toPart: reply.parts.count, &state)
  }

  /// Text for the text part at `index`: into the part and into the reply's `text`, with the size bound
  /// (checked once for both) and the pacing of `appendReplyText`.
  private func appendText(_ delta: String, toPart index: Int, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    if passesReplyBytes(adding: delta.utf8.count, state) { return endReplyPastBytes(&state) }
    state.streamingReply?.parts[index].text.append(delta)
    return appendBoundedReplyText(delta, &state)
  }

  /// The tool call's place among the reply's parts, once the reply streams in parts (its part has the
  /// call's ID; a call whose ID another part already has, or that comes past `maximumPartsPerReply`, keeps
  /// its place in `toolCalls` only).
  func addToolCallPart(_ call: ToolCall, _ state: inout ConversationState) {
    guard let reply = state.streamingReply, !reply.parts.isEmpty, reply.parts.count < policy.maximumPartsPerReply
    else { return }
    let id = PartID(rawValue: call.id.rawValue)
    guard !reply.parts.contains(where: { $0.id == id }) else { return }
    state.streamingReply?.parts.append(StreamingPart(id: id, kind: .toolCall(call.id), isOpen: false))
  }

  /// What streamed before the reply's first part gets parts of its own, so the parts hold everything: its
  /// text as a first text part (closed), then a part for each tool call so far (a plain stream keeps no
  /// order between them, so text comes first). O(text), once per reply.
  func enterPartsMode(_ state: inout ConversationState) {
    guard let reply = state.streamingReply, reply.parts.isEmpty else { return }
    if !reply.text.isEmpty {
      state.streamingReply?.parts.append(
        StreamingPart(id: unusedPartID(in: reply), kind: .text, text: StreamedText(reply.text.string), isOpen: false))
    }
    for call in reply.toolCalls {
      let id = PartID(rawValue: call.id.rawValue)
      guard state.streamingReply?.parts.contains(where: { $0.id == id }) == false else { continue }
      state.streamingReply?.parts.append(StreamingPart(id: id, kind: .toolCall(call.id), isOpen: false))
    }
  }

  /// A part event that breaks the stream's rules: refused with a typed error, the reply left as it was.
  func rejectPart(_ message: String, _ state: inout ConversationState) -> [ConversationEffect] {
    state.backgroundError = ChatError(.invalidEvent, message)
    return []
  }

  /// A part ID the reply does not use yet, for text that came without one.
  private func unusedPartID(in reply: StreamingReply) -> PartID {
    var suffix = reply.parts.count
    while true {
      let id = PartID(rawValue: "text-\(suffix)")
      if !reply.uses(id) { return id }
      suffix += 1
    }
  }
}

extension StreamingReply {
  /// Whether a part or a tool call of the reply has this ID: the two share one space, as a call's part has
  /// the call's ID.
  func uses(_ id: PartID) -> Bool {
    parts.contains { $0.id == id } || toolCalls.contains { $0.id.rawValue == id.rawValue }
  }
}
