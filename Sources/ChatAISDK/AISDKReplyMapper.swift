public import ChatHTTP
public import ConversationState
public import ConversationStore
public import Foundation
public import ServerSentEvents

/// Turns the Server-Sent Events of one UI message stream into the store's `ReplyEvent`s, and builds the
/// assistant's UI message as `useChat` would, for the next request. Pure and incremental: feed each event
/// to `map(_:into:)`, then call `finish()` at the end of the body; `chat` then holds the conversation as the
/// server will be sent it next.
///
/// - Text and reasoning parts stream by their IDs; a delta or end for a part that is not open is
///   `INVALID_EVENT`, as in the AI SDK. `finish-step` closes the step's open parts.
/// - Tool calls stream their input (`toolInputStarted`/`toolInputDelta`) and are complete at
///   `tool-input-available`; a call to one of the app's tools (`appTools`) that the provider does not run is
///   app-run (`.client`), any other server-run. Outputs, output errors, input errors and denials settle them;
///   a preliminary output only updates the UI message.
/// - `tool-approval-request` asks the user (`inputRequested`): the answer waits (`awaitingInput`) and goes
///   back with `continueRun`.
/// - Sources, files and non-transient data parts become parts (data replaces by name and ID); transient data,
///   metadata and unknown chunk types are `sideEvents`.
/// - The end: `finish` or `[DONE]` completes the reply (its finish reason kept); `abort` ends it `CANCELLED`;
///   `error` ends it with the server's text (`PROVIDER_ERROR`); a body that ends with neither, or a dropped
///   connection after the first chunk, is `INCOMPLETE_STREAM` (`truncated`), never a success.
public struct AISDKReplyMapper: ReplyMapping {
  private enum Ending: Sendable {
    case finished(String?)
    case aborted(String?)
  }

  private let key: String
  private let conversationID: ConversationID
  private let userMessage: Message?
  private let appTools: Set<String>
  private let receivedAt: Date
  /// The conversation as the server will be sent it next.
  public private(set) var chat: AISDKChat
  /// What the stream carried besides the reply, oldest first; the backend takes them as they come.
  public private(set) var sideEvents: [AISDKSideEvent] = []

  private var begun = false
  private var done = false
  private var ending: Ending?
  private var messageID: String?
  private var metadata: JSONValue?
  private var parts: [JSONValue] = []
  /// Open text and reasoning parts by their chunk IDs: the part's index in `parts` and its store part ID.
  private var open: [String: (index: Int, part: PartID)] = [:]
  /// The text of open parts by their index in `parts`, written into them at their end (appending to a
  /// JSON value in place would copy the text at every delta).
  private var partTexts: [Int: String] = [:]
  /// The part streaming now, with the text not yet in `partTexts`: its deltas skip every lookup but one
  /// comparison of IDs (plain stored properties, so the hot path copies none of them).
  private var isHot = false
  private var hotID = ""
  private var hotIndex = 0
  private var hotPart = PartID(rawValue: "")
  /// The hot part's text not yet in `partTexts`, as UTF-8: a delta's bytes are appended as they came when
  /// they are ASCII (no `String` grows per delta), and it becomes a `String` once, at the part's flush.
  private var hotBytes: [UInt8] = []
  /// The bytes of the hot part's deltas up to their text, as producers lay them out (`hotTemplate`): its
  /// next deltas are matched against them in one comparison. Empty when none applies.
  private var hotTemplate: [UInt8] = []
  private var hotIsText = true
  private var partIDs = UniquePartIDs()
  private var toolParts: [String: Int] = [:]
  /// How each call of the message runs.
  private var toolInputs: [String: ToolCall.Execution] = [:]
  /// The call each approval request of the reply is about, by approval ID.
  private var approvals: [String: String] = [:]
  private var dataParts: [String: Int] = [:]
  /// What the step streaming now has sent the store, for a `reset-step` to take back.
  private var step = Step()
  /// Where this request's own parts start in `parts` (after a continued message's).
  private var ownPartsStart = 0
  private var fileCount = 0

  /// A mapper for one request of `conversationID`; `userMessage` is the user's message a send carries
  /// (reported accepted with the first chunk; nil for a regeneration or a continuation); `continuing` the
  /// assistant message a continuation goes on with (its parts stay first). `key` names the answer's row when
  /// the server names no message. `receivedAt` (the device's clock) stands in for the time of the answer,
  /// which the protocol does not send.
  public init(
    key: String, conversationID: ConversationID, chat: AISDKChat, userMessage: Message? = nil,
    continuing: String? = nil, appTools: Set<String> = [], receivedAt: Date
  ) {
    self.key = key
    self.conversationID = conversationID
    self.chat = chat
    self.userMessage = userMessage
    self.appTools = appTools
    self.receivedAt = receivedAt
    guard let continuing, let index = chat.index(of: continuing),
      case .array(let earlier)? = chat.messages[index].field("parts")
    else { return }
    messageID = continuing
    metadata = chat.messages[index].field("metadata")
    parts = earlier
    ownPartsStart = earlier.count
    for (position, part) in earlier.enumerated() {
      if let id = part.field("toolCallId")?.stringValue {
        toolParts[id] = position
        let name = part.field("toolName")?.stringValue ?? String((part.field("type")?.stringValue ?? "").dropFirst(5))
        toolInputs[id] = appTools.contains(name) ? .client : .server
        partIDs.reserve(id)
      }
      if let id = part.field("id")?.stringValue { partIDs.reserve(id) }
    }
  }

  /// Takes the side events gathered so far.
  /// Whether side events wait to be taken.
  public var hasSideEvents: Bool { !sideEvents.isEmpty }

  public mutating func takeSideEvents() -> [AISDKSideEvent] {
    defer { sideEvents.removeAll() }
    return sideEvents
  }

  /// Appends the store events one Server-Sent Event stands for to `events` (its `event:` and `id:` are not
  /// part of the protocol).
  public mutating func map(_ event: ServerSentEvent, into events: inout [ReplyEvent]) throws(ChatError) {
    if isHot, !done {
      // The hottest chunk of all, more text for the part streaming now as producers lay it out, is matched
      // against its template and taken from its bytes in place.
      var taken = false
      event.withSentDataBytes { bytes in taken = appendHotDelta(from: bytes, into: &events) }
      if taken { return }
    }
    // The hottest chunk, a text delta, is read from the event's bytes without a String of its data or a
    // JSON tree (the scanner repairs bytes that are not UTF-8 as `data` would).
    var fast: (isText: Bool, id: String?, delta: String)?
    let known = isHot ? hotID : nil
    event.withSentDataBytes { bytes in
      var scanner = JSONByteScanner(bytes: bytes)
      fast = scanner.uiMessageDelta(knownID: known)
    }
    if let fast {
      // More text for the part streaming now (the scanner found its ID): no lookup at all.
      if fast.id == nil, !done {
        hotBytes.append(contentsOf: fast.delta.utf8)
        events.appendDelta(fast.delta, to: hotPart)
        return
      }
      let id = fast.id ?? hotID
      let chunk: UIMessageChunk =
        fast.isText ? .textDelta(id: id, delta: fast.delta) : .reasoningDelta(id: id, delta: fast.delta)
      return try map(chunk, into: &events)
    }
    try map(try UIMessageChunk(json: event.data), into: &events)
  }

  /// Appends the store events one chunk stands for to `events`. Throws the error the reply ends with.
  public mutating func map(_ chunk: UIMessageChunk, into events: inout [ReplyEvent]) throws(ChatError) {
    guard !done else { throw ChatError(.invalidEvent, "A chunk came after [DONE].") }
    if !begun { begin(chunk, into: &events) }
    let sent = events.count
    // What this chunk gave the store, for the step's `reset-step` to take back.
    defer { step.record(events[min(sent, events.count)...]) }
    if isHot {
      switch chunk {
      case .textDelta, .reasoningDelta: break
      default: flushHot()
      }
    }
    switch chunk {
    case .start(let id, let metadata):
      if let id { messageID = id }
      if let metadata { merge(metadata) }
    case .startStep:
      parts.append(["type": "step-start"])
      step = Step()
    case .resetStep:
      resetStep(into: &events)
    case .custom(let kind, let metadata):
      var part: [String: JSONValue] = ["type": "custom", "kind": .string(kind)]
      if let metadata { part["providerMetadata"] = metadata }
      parts.append(.object(part))
      let id = partIDs.next("custom-\(parts.count)")
      events.append(.part(MessagePart(id: id, .data(DataPart(kind: kind, value: metadata ?? .null)))))
    case .reasoningFile(let url, let mediaType):
      parts.append(["type": "reasoning-file", "url": .string(url), "mediaType": .string(mediaType)])
      let id = partIDs.next("reasoning-file-\(parts.count)")
      let value: JSONValue = ["url": .string(url), "mediaType": .string(mediaType)]
      events.append(.part(MessagePart(id: id, .data(DataPart(kind: "reasoning-file", value: value)))))
    case .finishStep:
      closeOpenParts(into: &events)
    case .textStart(let id, let metadata):
      openPart(id, type: "text", kind: .text, metadata: metadata, into: &events)
    case .reasoningStart(let id, let metadata):
      openPart(id, type: "reasoning", kind: .reasoning, metadata: metadata, into: &events)
    case .textDelta(let id, let delta), .reasoningDelta(let id, let delta):
      guard let (index, part) = open[id] else {
        throw ChatError(.invalidEvent, "A delta for part \(id), which is not open.")
      }
      // This part streams now: its next deltas take the hot path, and its text gathers apart until its end.
      if isHot, hotID != id { flushHot() }
      let isText = if case .textDelta = chunk { true } else { false }
      if !isHot || hotIsText != isText {
        hotTemplate = Self.hotTemplate(id: id, isText: isText) ?? []
        hotIsText = isText
      }
      (isHot, hotID, hotIndex, hotPart) = (true, id, index, part)
      hotBytes.append(contentsOf: delta.utf8)
      events.appendDelta(delta, to: part)
    case .textEnd(let id, let metadata), .reasoningEnd(let id, let metadata):
      guard let (index, part) = open.removeValue(forKey: id) else {
        throw ChatError(.invalidEvent, "The end of part \(id), which is not open.")
      }
      writeText(of: index)
      parts[index] = Self.setting(parts[index], "state", "done")
      if let metadata { parts[index] = Self.setting(parts[index], "providerMetadata", metadata) }
      let encrypted =
        parts[index].field("type") == "reasoning" ? parts[index].field("providerMetadata").map(Self.text) : nil
      events.append(.partEnded(part, encryptedValue: encrypted))
    case .toolInputStart(let input):
      let execution = execution(of: input)
      toolInputs[input.toolCallID] = execution
      setToolPart(input, state: "input-streaming", [:])
      events.append(
        .toolInputStarted(ToolCallID(rawValue: input.toolCallID), name: input.toolName, execution: execution))
    case .toolInputDelta(let id, let delta):
      guard toolParts[id] != nil, toolInputs[id] != nil else {
        throw ChatError(.invalidEvent, "Input for tool call \(id), which has not started.")
      }
      if !delta.isEmpty { events.append(.toolInputDelta(ToolCallID(rawValue: id), delta)) }
    case .toolInputAvailable(let input, let value):
      let execution = toolInputs[input.toolCallID] ?? execution(of: input)
      toolInputs[input.toolCallID] = execution
      setToolPart(input, state: "input-available", ["input": value])
      events.append(
        .toolCall(
          ToolCall(id: ToolCallID(rawValue: input.toolCallID), name: input.toolName, input: value, execution: execution)
        ))
    case .toolInputError(let input, let value, let errorText):
      let execution = toolInputs[input.toolCallID] ?? execution(of: input)
      toolInputs[input.toolCallID] = execution
      setToolPart(input, state: "output-error", ["input": value, "errorText": .string(errorText)])
      let id = ToolCallID(rawValue: input.toolCallID)
      events.append(.toolCall(ToolCall(id: id, name: input.toolName, input: value, execution: execution)))
      events.append(.toolResult(id, .failed(ChatError(.toolFailed, errorText))))
    case .toolApprovalRequest(let approvalID, let callID, let isAutomatic, let signature):
      var approval: [String: JSONValue] = ["id": .string(approvalID)]
      if isAutomatic { approval["isAutomatic"] = true }
      if let signature { approval["signature"] = .string(signature) }
      try updateTool(callID, state: "approval-requested", ["approval": .object(approval)])
      approvals[approvalID] = callID
      // An automatic one is the server's to answer, in the chunk that follows: the user is never asked.
      guard !isAutomatic else { return }
      events.append(
        .inputRequested(
          InputRequest(
            id: InputRequestID(rawValue: approvalID), kind: .toolApproval(ToolCallID(rawValue: callID)),
            signature: signature)))
    case .toolApprovalResponse(let approvalID, let approved, let reason):
      guard let callID = approvals[approvalID], let index = toolParts[callID], case .object(var part) = parts[index],
        case .object(var approval)? = part["approval"]
      else {
        throw ChatError(.invalidEvent, "An answer to approval \(approvalID), which the reply did not ask for.")
      }
      approval["approved"] = .bool(approved)
      if let reason { approval["reason"] = .string(reason) }
      part["approval"] = .object(approval)
      part["state"] = "approval-responded"
      parts[index] = .object(part)
      let answer: InputAnswer = approved ? .approved : .denied(reason: reason)
      events.append(
        .inputRequested(
          InputRequest(
            id: InputRequestID(rawValue: approvalID), kind: .toolApproval(ToolCallID(rawValue: callID)),
            answer: answer, answeredByAgent: true)))
    case .toolOutputAvailable(let callID, let output, let preliminary, let metadata):
      var fields: [String: JSONValue] = preliminary ? ["output": output, "preliminary": true] : ["output": output]
      if let metadata { fields["resultProviderMetadata"] = metadata }
      try updateTool(callID, state: "output-available", fields)
      if preliminary {
        sideEvents.append(.warning("A preliminary output of tool call \(callID) is shown only when final."))
      } else {
        events.append(.toolResult(ToolCallID(rawValue: callID), .succeeded(output)))
      }
    case .toolOutputError(let callID, let errorText, let metadata):
      var fields: [String: JSONValue] = ["errorText": .string(errorText)]
      if let metadata { fields["resultProviderMetadata"] = metadata }
      try updateTool(callID, state: "output-error", fields)
      events.append(.toolResult(ToolCallID(rawValue: callID), .failed(ChatError(.toolFailed, errorText))))
    case .toolOutputDenied(let callID):
      try updateTool(callID, state: "output-denied", [:])
      events.append(.toolResult(ToolCallID(rawValue: callID), .denied(reason: nil)))
    case .sourceURL(let sourceID, let url, let title):
      parts.append([
        "type": "source-url", "sourceId": .string(sourceID), "url": .string(url),
        "title": title.map { .string($0) } ?? .null,
      ])
      let source = KnowledgeSource(id: sourceID, title: title ?? url, url: URL(string: url), origin: .external)
      events.append(.part(MessagePart(id: partIDs.next(sourceID), .source(source))))
    case .sourceDocument(let sourceID, let mediaType, let title, let filename):
      var part: [String: JSONValue] = [
        "type": "source-document", "sourceId": .string(sourceID), "mediaType": .string(mediaType),
        "title": .string(title),
      ]
      if let filename { part["filename"] = .string(filename) }
      parts.append(.object(part))
      events.append(
        .part(MessagePart(id: partIDs.next(sourceID), .source(KnowledgeSource(id: sourceID, title: title)))))
    case .file(let url, let mediaType):
      guard let address = URL(string: url) else { throw ChatError(.invalidEvent, "A file part's URL is not a URL.") }
      parts.append(["type": "file", "url": .string(url), "mediaType": .string(mediaType)])
      fileCount += 1
      events.append(
        .part(MessagePart(id: partIDs.next("file-\(fileCount)"), .file(FilePart(url: address, mediaType: mediaType)))))
    case .data(let name, let id, let data, let transient):
      guard !transient else {
        sideEvents.append(.data(name: name, id: id, data: data))
        return
      }
      var part: [String: JSONValue] = ["type": .string("data-\(name)"), "data": data]
      if let id { part["id"] = .string(id) }
      let slot = "data-\(name)-\(id ?? "#\(parts.count)")"
      if let index = dataParts[slot] {
        parts[index] = .object(part)
      } else {
        dataParts[slot] = parts.count
        parts.append(.object(part))
      }
      events.append(.part(MessagePart(id: PartID(rawValue: slot), .data(DataPart(kind: name, value: data)))))
    case .messageMetadata(let value):
      merge(value)
    case .finish(let reason, let value):
      if let value { merge(value) }
      ending = .finished(reason)
    case .abort(let reason):
      ending = .aborted(reason)
    case .error(let text):
      commit()
      throw ChatError(.providerError, text.isEmpty ? "The agent's reply failed." : text)
    case .done:
      done = true
    case .unknown(let type):
      sideEvents.append(.warning("Skipped a chunk of unknown type \(type)."))
    }
  }

  /// The store events the body's end stands for, or the error it ends the reply with.
  public mutating func finish() throws(ChatError) -> [ReplyEvent] {
    guard begun else { throw ChatError(.incompleteStream, "The stream ended before the reply started.") }
    var events: [ReplyEvent] = []
    let reason: String?
    switch ending {
    case .aborted(let why)?:
      commit()
      throw ChatError(.cancelled, why.map { "The server stopped the reply: \($0)" } ?? "The server stopped the reply.")
    case .finished(let given)?: reason = given
    case nil:
      guard done else {
        commit()
        throw ChatError(.incompleteStream, "The stream ended before the reply finished.")
      }
      reason = nil
    }
    closeOpenParts(into: &events)
    commit()
    events.append(
      .finished(
        Message(
          clientID: ClientMessageID(rawValue: "aisdk-\(messageID ?? key)"),
          serverID: messageID.map { ServerMessageID(rawValue: $0) }, role: .assistant, text: "", createdAt: receivedAt,
          finishReason: reason.map(Self.finishReason), providerMetadata: AISDKChat.metadata(ofToolParts: parts))))
    return events
  }

  /// What a transport failure of the body means: a connection that drops (`NETWORK`) once the reply began
  /// cuts it off (`INCOMPLETE_STREAM`, the reply `truncated`); any other failure is itself.
  public mutating func failure(ofTransport error: ChatError) -> ChatError {
    commit()
    guard error.code == .network, begun, ending == nil, !done else { return error }
    return ChatError(.incompleteStream, "The connection dropped before the reply finished: \(error.message)")
  }

  // MARK: - Building the UI message

  private mutating func begin(_ chunk: UIMessageChunk, into events: inout [ReplyEvent]) {
    begun = true
    if let userMessage {
      var accepted = userMessage
      accepted.serverID = ServerMessageID(rawValue: userMessage.clientID.rawValue)
      events.append(.accepted(accepted, conversationID: conversationID))
    }
    // A server that names no message (Pydantic AI's `start` has no ID) leaves it to the client, as
    // `useChat` does: the answer is then known by this ID, to the store and in the chat.
    if case .start(let id?, _) = chunk { messageID = id }
    let id = messageID ?? "aisdk-\(key)"
    messageID = id
    events.append(.started(agent: nil, replyID: ServerMessageID(rawValue: id)))
  }

  /// Takes back what the step streaming now sent: its parts leave the message (those after its
  /// `step-start`, as `useChat` drops them; never a continued message's), what referred to them is
  /// forgotten, and the store is told which parts and calls to drop.
  private mutating func resetStep(into events: inout [ReplyEvent]) {
    let stepStart = parts.lastIndex { $0.field("type")?.stringValue == "step-start" }.map { $0 + 1 } ?? 0
    let start = max(stepStart, ownPartsStart)
    if start < parts.count { parts.removeSubrange(start...) }
    open = open.filter { $0.value.index < start }
    partTexts = partTexts.filter { $0.key < start }
    dataParts = dataParts.filter { $0.value < start }
    let dropped = Set(toolParts.filter { $0.value >= start }.keys)
    toolParts = toolParts.filter { $0.value < start }
    toolInputs = toolInputs.filter { !dropped.contains($0.key) }
    approvals = approvals.filter { !dropped.contains($0.value) }
    isHot = false
    events.append(.stepReset(parts: step.parts, toolCalls: step.toolCalls))
    step = Step()
  }

  private func execution(of input: UIMessageChunk.ToolInput) -> ToolCall.Execution {
    !input.providerExecuted && appTools.contains(input.toolName) ? .client : .server
  }

  private mutating func openPart(
    _ id: String, type: String, kind: StreamedPartKind, metadata: JSONValue?, into events: inout [ReplyEvent]
  ) {
    var part: [String: JSONValue] = ["type": .string(type), "text": "", "state": "streaming"]
    if let metadata { part["providerMetadata"] = metadata }
    let partID = partIDs.next(id)
    open[id] = (parts.count, partID)
    parts.append(.object(part))
    events.append(.partStarted(partID, kind))
  }

  private mutating func closeOpenParts(into events: inout [ReplyEvent]) {
    flushHot()
    for (_, entry) in open.sorted(by: { $0.value.index < $1.value.index }) {
      writeText(of: entry.index)
      parts[entry.index] = Self.setting(parts[entry.index], "state", "done")
      events.append(.partEnded(entry.part))
    }
    open.removeAll()
  }

  private mutating func setToolPart(_ input: UIMessageChunk.ToolInput, state: String, _ fields: [String: JSONValue]) {
    var part: [String: JSONValue] = [
      "type": .string(input.dynamic ? "dynamic-tool" : "tool-\(input.toolName)"),
      "toolCallId": .string(input.toolCallID), "state": .string(state),
    ]
    if input.dynamic { part["toolName"] = .string(input.toolName) }
    if input.providerExecuted { part["providerExecuted"] = true }
    if let title = input.title { part["title"] = .string(title) }
    if let toolMetadata = input.toolMetadata { part["toolMetadata"] = toolMetadata }
    if let metadata = input.providerMetadata {
      // As `useChat` keeps it: about the call until the call has a result, then about the result.
      part[state.hasPrefix("output-") ? "resultProviderMetadata" : "callProviderMetadata"] = metadata
    }
    if let index = toolParts[input.toolCallID], case .object(let earlier) = parts[index] {
      part.merge(earlier) { new, _ in new }
      part.merge(fields) { _, given in given }
      part["state"] = .string(state)
      parts[index] = .object(part)
    } else {
      part.merge(fields) { _, given in given }
      toolParts[input.toolCallID] = parts.count
      partIDs.reserve(input.toolCallID)
      parts.append(.object(part))
    }
  }

  private mutating func updateTool(_ callID: String, state: String, _ fields: [String: JSONValue]) throws(ChatError) {
    guard let index = toolParts[callID], case .object(var part) = parts[index] else {
      throw ChatError(.invalidEvent, "A chunk for tool call \(callID), which the reply does not have.")
    }
    part.merge(fields) { _, given in given }
    part["state"] = .string(state)
    parts[index] = .object(part)
  }

  private mutating func merge(_ value: JSONValue) {
    if case .object(let old)? = metadata, case .object(let new) = value {
      metadata = .object(old.merging(new) { _, given in given })
    } else {
      metadata = value
    }
    sideEvents.append(.metadata(metadata ?? .null))
  }

  /// Writes the assistant message as it stands into `chat` (a failed reply's too: the server gets what
  /// the user saw).
  private mutating func commit() {
    flushHot()
    guard begun, !parts.isEmpty || messageID != nil else { return }
    for index in partTexts.keys.sorted() { writeText(of: index) }
    var message: [String: JSONValue] = [
      "id": .string(messageID ?? "aisdk-\(key)"), "role": "assistant", "parts": .array(parts),
    ]
    if let metadata { message["metadata"] = metadata }
    chat.upsert(.object(message))
  }

  private mutating func flushHot() {
    guard isHot else { return }
    isHot = false
    partTexts[hotIndex, default: ""] += String(decoding: hotBytes, as: UTF8.self)
    hotBytes.removeAll()
  }

  /// Takes `bytes` when they are more text for the hot part in producers' layout (`hotTemplate`): the delta
  /// goes to `events` and its bytes to `hotBytes`, as `map(_:into:)`'s general fast path would put them.
  /// False for any other event, which `map` then reads.
  private mutating func appendHotDelta(from bytes: UnsafeBufferPointer<UInt8>, into events: inout [ReplyEvent]) -> Bool
  {
    guard let delta = JSONByteScanner.templateDelta(of: bytes, template: hotTemplate, appendingTo: &hotBytes) else {
      return false
    }
    events.appendDelta(delta, to: hotPart)
    return true
  }

  private mutating func writeText(of index: Int) {
    guard let text = partTexts.removeValue(forKey: index) else { return }
    let sofar = parts[index].field("text")?.stringValue ?? ""
    parts[index] = Self.setting(parts[index], "text", .string(sofar + text))
  }

  private static func setting(_ part: JSONValue, _ key: String, _ value: JSONValue) -> JSONValue {
    guard case .object(var fields) = part else { return part }
    fields[key] = value
    return .object(fields)
  }

  private static func text(_ value: JSONValue) -> String {
    (try? String(decoding: JSONEncoder().encode(value), as: UTF8.self)) ?? ""
  }

  private static func finishReason(_ given: String) -> FinishReason {
    switch given {
    case "tool-calls": .toolCalls
    case "content-filter": .contentFilter
    default: FinishReason(rawValue: given)
    }
  }
}

/// What one step of a reply sent the store: the parts and tool calls a `reset-step` takes back.
private struct Step {
  var parts: [PartID] = []
  var toolCalls: [ToolCallID] = []

  mutating func record(_ events: ArraySlice<ReplyEvent>) {
    for event in events {
      switch event {
      case .partStarted(let id, _): parts.append(id)
      case .part(let part): parts.append(part.id)
      case .toolInputStarted(let id, _, _): toolCalls.append(id)
      case .toolCall(let call) where !toolCalls.contains(call.id): toolCalls.append(call.id)
      default: break
      }
    }
  }
}
