public import ChatHTTP
public import ConversationState
public import ConversationStore
public import Foundation
public import ServerSentEvents

/// Turns the Server-Sent Events of one AG-UI response into the store's `ReplyEvent`s, checking AG-UI 1.0's
/// rules on the way (`AGUIStreamVerifier`). Pure and incremental: feed each event to `map(_:)`, then call
/// `finish()` at the end of the body; `thread` then holds the conversation as the agent will see it next
/// run, and `sideEvents` what the stream carried besides the reply.
///
/// - The requested run (its `runId`) is the reply; runs before it on the same response (a producer
///   replaying the thread) only update `thread`.
/// - Text and reasoning messages become parts keyed by their IDs (a reopened message continues in a part of
///   its own); an empty message (a producer's empty start/end pair) shows nothing.
/// - Tool calls stream their arguments (`toolInputStarted`/`toolInputDelta`) and are complete at their end;
///   a call to one of the app's tools (`appTools`) is app-run (`.client`), any other server-run.
/// - The run's end: a success finishes the reply (app calls left to the app wait: `awaitingToolResults`);
///   an interrupt asks the user (`inputRequested`, then the finish: `awaitingInput`); `cancelled` ends it
///   `CANCELLED`; `RUN_ERROR` ends it with the run's error; a broken rule `INVALID_EVENT` (`rejected`); a
///   body that ends inside the run `INCOMPLETE_STREAM` (`truncated`), never a success.
public struct AGUIReplyMapper: ReplyMapping {
  private struct Draft: Sendable {
    var role: String
    var name: String?
    var content = ""
    var toolCalls: [JSONValue] = []
    var encryptedValue: String?
    /// A tool message's call and content (a string or content parts, as sent).
    var result: (callID: String, content: JSONValue)?
  }

  private struct Streamed: Sendable {
    var part: PartID
    var isShown = false
  }

  private struct Call: Sendable {
    var name: String
    var execution: ToolCall.Execution
    var arguments = ""
    var parent: String
    var encryptedValue: String?
  }

  public let runID: String
  private let conversationID: ConversationID
  private let userMessage: Message?
  private let appTools: Set<String>
  private let receivedAt: Date
  private var verifier: AGUIStreamVerifier
  /// The conversation as the agent will see it on the next run.
  public private(set) var thread: AGUIThread
  /// What the stream carried besides the reply, oldest first; the backend takes them as they come.
  public private(set) var sideEvents: [AGUISideEvent] = []

  private var inRequestedRun = false
  private var anyRunStarted = false
  private var requestedRunStarted = false
  private var ending: AGUIRunOutcome?
  private var drafts: [String: Draft] = [:]
  private var draftOrder: [String] = []
  private var streamed: [String: Streamed] = [:]
  private var reopenings: [String: Int] = [:]
  private var calls: [String: Call] = [:]
  /// Messages this response streamed and already wrote into the thread (at a snapshot): one reopened later
  /// continues what it had.
  private var committedHere: Set<String> = []
  private var earlyResults: [String: JSONValue] = [:]
  private var unendedReasoning: String?
  /// The text message whose content is streaming now, with the text not yet written into its draft: its
  /// deltas skip every lookup but one comparison of IDs.
  /// (Plain stored properties, not an optional tuple: read in place, the hot path copies none of them.)
  private var isHot = false
  private var hotID = ""
  private var hotPart = PartID(rawValue: "")
  /// The hot message's text not yet in its draft, as UTF-8: a delta's bytes are appended as they came when
  /// they are ASCII (no `String` grows per delta), and it becomes a `String` once, at the flush.
  private var hotBytes: [UInt8] = []
  /// The bytes of the hot message's deltas up to their text, as producers lay them out
  /// (`AGUIFastScan.hotTemplate`): its next deltas are matched against them in one comparison. Empty when
  /// none applies.
  private var hotTemplate: [UInt8] = []
  /// The requested run's failure, thrown by the next `map` or `finish`.
  private var pendingFailure: ChatError?
  private var encryptedForOpen: [String: String] = [:]

  /// A mapper for the run `runID` on `thread` of `conversationID`; `userMessage` is the user's message a send carries (reported
  /// accepted when the run starts; nil for a regeneration or a continuation). `receivedAt` (the device's
  /// clock) stands in for the time of the answer, which AG-UI does not send.
  public init(
    runID: String, conversationID: ConversationID, thread: AGUIThread, userMessage: Message? = nil,
    appTools: Set<String> = [], receivedAt: Date
  ) {
    self.runID = runID
    self.conversationID = conversationID
    self.thread = thread
    self.userMessage = userMessage
    self.appTools = appTools
    self.receivedAt = receivedAt
    verifier = AGUIStreamVerifier(knownToolCallIDs: thread.toolCallIDs)
  }

  /// Takes the side events gathered so far.
  /// Whether side events wait to be taken.
  public var hasSideEvents: Bool { !sideEvents.isEmpty }

  public mutating func takeSideEvents() -> [AGUISideEvent] {
    defer { sideEvents.removeAll() }
    return sideEvents
  }

  /// The store events one Server-Sent Event stands for (its `event:` and `id:` are ignored, as AG-UI asks).
  public mutating func map(_ event: ServerSentEvent) throws(ChatError) -> [ReplyEvent] {
    var events: [ReplyEvent] = []
    try map(event, into: &events)
    return events
  }

  /// Appends the store events one Server-Sent Event stands for to `events`.
  public mutating func map(_ event: ServerSentEvent, into events: inout [ReplyEvent]) throws(ChatError) {
    if let pendingFailure { throw pendingFailure }
    // The common events are read from the event's bytes, without a String of its data (the scanner's strings
    // repair bytes that are not UTF-8 as `data` would); the hottest, more text for the message streaming now,
    // without making a frame at all.
    if isHot, unendedReasoning == nil, verifier.continuesOpenMessage(hotID) {
      // As producers lay it out, it is matched against its template and taken from its bytes in place.
      var taken = false
      event.withSentDataBytes { bytes in taken = appendHotDelta(from: bytes, into: &events) }
      if taken { return }
      var delta: String?
      let id = hotID
      event.withSentDataBytes { delta = AGUIFastScan.textDelta($0, ofMessage: id) }
      if let delta { return appendHot(delta, into: &events) }
    }
    var scanned: AGUIFrame?
    let known = isHot ? hotID : nil
    event.withSentDataBytes { scanned = AGUIFastScan.frame($0, knownID: known) }
    if let scanned { return try map(scanned, into: &events) }
    let frame: AGUIFrame
    do throws(AGUIViolation) {
      frame = try AGUIFrame(json: event.data)
    } catch {
      throw error.chatError
    }
    try map(frame, into: &events)
  }

  /// The store events one decoded event stands for. Throws the error the reply ends with: the run's own
  /// (`RUN_ERROR`), or a broken rule's `INVALID_EVENT` (`AGUIViolation.chatError`).
  public mutating func map(_ frame: AGUIFrame) throws(ChatError) -> [ReplyEvent] {
    var events: [ReplyEvent] = []
    try map(frame, into: &events)
    return events
  }

  /// Appends the store events one decoded event stands for to `events`.
  public mutating func map(_ frame: AGUIFrame, into events: inout [ReplyEvent]) throws(ChatError) {
    if let pendingFailure { throw pendingFailure }
    if isHot, case .textMessageContent(let id, let delta) = frame.event, frame.subagentRunID == nil, hotID == id,
      unendedReasoning == nil, verifier.continuesOpenMessage(id)
    {
      return appendHot(delta, into: &events)
    }
    flushHot()
    do throws(AGUIViolation) {
      for expanded in try verifier.accept(frame) {
        if case .runError(let message, let code) = expanded.event, let failure = runFailure(message, code) {
          // What streamed before the failure reaches the store first; the stream then ends with it.
          pendingFailure = failure
          return
        }
        try apply(expanded.event, into: &events)
      }
    } catch {
      throw error.chatError
    }
  }

  /// More text for the message streaming now (the verifier has nothing to check). Text that follows text of
  /// the same part in `events` joins it in place: one delta per batch, not per event.
  private mutating func appendHot(_ delta: String, into events: inout [ReplyEvent]) {
    hotBytes.append(contentsOf: delta.utf8)
    events.appendDelta(delta, to: hotPart)
  }

  /// Takes `bytes` when they are more text for the hot message in producers' layout (`hotTemplate`), as
  /// `appendHot` would; false for any other event.
  private mutating func appendHotDelta(from bytes: UnsafeBufferPointer<UInt8>, into events: inout [ReplyEvent]) -> Bool
  {
    guard let delta = JSONByteScanner.templateDelta(of: bytes, template: hotTemplate, appendingTo: &hotBytes) else {
      return false
    }
    events.appendDelta(delta, to: hotPart)
    return true
  }

  /// Writes the hot message's text into its draft.
  private mutating func flushHot() {
    guard isHot else { return }
    drafts[hotID]?.content += String(decoding: hotBytes, as: UTF8.self)
    isHot = false
    hotBytes.removeAll()
  }

  /// The error a `RUN_ERROR` ends the reply with: when it fails the requested run (also after its
  /// `RUN_FINISHED`: a late failure), not a run replayed before it.
  private mutating func runFailure(_ message: String, _ code: String?) -> ChatError? {
    commitDrafts()
    // The requested run's, also after its RUN_FINISHED (a late failure), or before any run started (it
    // failed before starting); not one of a run replayed ahead of it.
    guard inRequestedRun || ending != nil || !anyRunStarted else { return nil }
    return ChatError(ChatError.Code(rawValue: code ?? "RUN_ERROR"), message)
  }

  /// The store events the body's end stands for, or the error it ends the reply with.
  public mutating func finish() throws(ChatError) -> [ReplyEvent] {
    if let pendingFailure { throw pendingFailure }
    flushHot()
    var events: [ReplyEvent] = []
    endUnendedReasoning(before: nil, into: &events)
    commitDrafts()
    guard requestedRunStarted else {
      if verifier.finish() == .complete {
        throw AGUIViolation(.requestedRunMissing, "The response never started run \(runID).").chatError
      }
      throw ChatError(.incompleteStream, "The stream ended before run \(runID) started.")
    }
    guard let ending else {
      throw ChatError(.incompleteStream, "The stream ended before run \(runID) finished.")
    }
    var interruptIDs: [String] = []
    switch ending {
    case .cancelled:
      throw ChatError(.cancelled, "The agent stopped run \(runID) on purpose.")
    case .interrupt(let interrupts):
      for interrupt in interrupts { events.append(.inputRequested(request(for: interrupt))) }
      interruptIDs = interrupts.map(\.id)
    case .success(let pending):
      for id in pending where calls[id].map({ $0.execution == .server }) ?? true {
        sideEvents.append(.warning("The run left tool call \(id) pending, but it is not one of the app's tools."))
      }
    }
    events.append(
      .finished(
        Message(
          clientID: ClientMessageID(rawValue: "agui-\(runID)"), role: .assistant, text: "", createdAt: receivedAt,
          providerMetadata: AGUIThread.metadata(runID: runID, interrupts: interruptIDs))))
    return events
  }

  /// What a transport failure of the body means: a connection that drops (`NETWORK`) inside the requested
  /// run cuts it off (`INCOMPLETE_STREAM`, the reply `truncated`: it has no outcome, and tools may have
  /// run); any other failure, or one before the run started, is itself.
  public func failure(ofTransport error: ChatError) -> ChatError {
    guard error.code == .network, inRequestedRun else { return error }
    return ChatError(.incompleteStream, "The connection dropped before run \(runID) ended: \(error.message)")
  }

  // MARK: - Events

  private mutating func apply(_ event: AGUIEvent, into events: inout [ReplyEvent]) throws(AGUIViolation) {
    endUnendedReasoning(before: event, into: &events)
    let shown = inRequestedRun
    switch event {
    case .runStarted(_, let id, _, _):
      commitDrafts()
      anyRunStarted = true
      inRequestedRun = id == runID
      guard inRequestedRun else { return }
      requestedRunStarted = true
      if let userMessage {
        var accepted = userMessage
        accepted.serverID = ServerMessageID(rawValue: userMessage.clientID.rawValue)
        events.append(.accepted(accepted, conversationID: conversationID))
      }
      events.append(.started(agent: nil, replyID: nil))
    case .runFinished(_, _, let outcome):
      commitDrafts()
      inRequestedRun = false
      guard shown else { return }
      ending = outcome
    case .runError:
      inRequestedRun = false  // a replayed run's failure: the requested one's is thrown before this
    case .textMessageStart(let id, let role, let name):
      openDraft(id, role: role, name: name)
      if role == "assistant", shown { openPart(for: id) }
    case .textMessageContent(let id, let delta):
      guard let part = stream(delta, of: id, as: .text, into: &events) else { return }
      if !isHot || hotID != id { hotTemplate = AGUIFastScan.hotTemplate(id: id) ?? [] }
      isHot = true
      hotID = id
      hotPart = part
    case .textMessageEnd(let id):
      guard let part = streamed.removeValue(forKey: id), part.isShown else { return }
      events.append(.partEnded(part.part))
    case .toolCallStart(let id, let name, let parent):
      let owner = parent.flatMap { drafts[$0] != nil || thread.message($0) != nil ? $0 : nil } ?? id
      if drafts[owner] == nil { openDraft(owner, role: "assistant", name: nil) }
      let execution: ToolCall.Execution = appTools.contains(name) ? .client : .server
      calls[id] = Call(name: name, execution: execution, parent: owner)
      if shown { events.append(.toolInputStarted(ToolCallID(rawValue: id), name: name, execution: execution)) }
    case .toolCallArgs(let id, let delta):
      calls[id]?.arguments += delta
      if shown, !delta.isEmpty { events.append(.toolInputDelta(ToolCallID(rawValue: id), delta)) }
    case .toolCallEnd(let id):
      guard let call = calls[id] else { return }
      drafts[call.parent]?.toolCalls.append(Self.wireCall(id, call))
      guard shown else { return }
      events.append(
        .toolCall(
          ToolCall(
            id: ToolCallID(rawValue: id), name: call.name, input: Self.input(call.arguments), execution: call.execution)
        ))
      if let result = earlyResults.removeValue(forKey: id) {
        events.append(.toolResult(ToolCallID(rawValue: id), .succeeded(Self.result(result))))
      }
    case .toolCallResult(let messageID, let callID, let content):
      // A draft like the others, so the thread keeps the order they streamed in: the call's message, then
      // its result (a producer refuses a history whose result comes before its call).
      openDraft(messageID, role: "tool", name: nil)
      drafts[messageID]?.result = (callID, content)
      guard shown else { return }
      if verifier.isOpen(toolCall: callID) {
        earlyResults[callID] = content  // before the call's end (allowed, with a warning): shown after it
        sideEvents.append(.warning("TOOL_CALL_RESULT for \(callID) arrived before TOOL_CALL_END."))
      } else {
        events.append(.toolResult(ToolCallID(rawValue: callID), .succeeded(Self.result(content))))
      }
    case .reasoningMessageStart(let id):
      openDraft(id, role: "reasoning", name: nil)
      if shown { openPart(for: id) }
    case .reasoningMessageContent(let id, let delta):
      stream(delta, of: id, as: .reasoning, into: &events)
    case .reasoningMessageEnd(let id):
      // Its encrypted value may be the next event: the part ends with it then.
      if streamed[id]?.isShown == true { unendedReasoning = id } else { streamed[id] = nil }
    case .reasoningEncryptedValue(let subtype, let entityID, let value):
      keepEncrypted(value, subtype: subtype, for: entityID)
    case .stateSnapshot(let snapshot):
      thread.state = snapshot
      if shown { events.append(.agentState(snapshot)) }
    case .stateDelta(let operations):
      let patch = try patchOperations(operations)
      if let changed = try? thread.state.applying(patch) {
        thread.state = changed
      } else {
        sideEvents.append(.warning("A STATE_DELTA did not apply; the state stays as it was."))
      }
      if shown { events.append(.agentStateDelta(patch)) }
    case .messagesSnapshot(let messages):
      commitDrafts()
      let restated = newMessages(in: messages)
      if !restated.isEmpty { events.append(.restated(restated)) }
      thread.reconcile(snapshot: messages, keeping: Set([userMessage?.clientID.rawValue].compactMap { $0 }))
      sideEvents.append(.messagesSnapshot(messages))
    case .activitySnapshot(let id, let type, let content, let replace):
      sideEvents.append(.activitySnapshot(messageID: id, activityType: type, content: content, replace: replace))
    case .activityDelta(let id, let type, let patch):
      sideEvents.append(.activityDelta(messageID: id, activityType: type, patch: patch))
    case .custom(let name, let value): sideEvents.append(.custom(name: name, value: value))
    case .raw(let raw, let source): sideEvents.append(.raw(event: raw, source: source))
    case .stepStarted(let name): sideEvents.append(.step(name: name, isFinished: false))
    case .stepFinished(let name): sideEvents.append(.step(name: name, isFinished: true))
    case .subagentStarted(let id, let name, _):
      sideEvents.append(.subagent(id: id, name: name, error: nil, isFinished: false))
    case .subagentFinished(let id): sideEvents.append(.subagent(id: id, name: nil, error: nil, isFinished: true))
    case .subagentError(let id, let message, _):
      sideEvents.append(.subagent(id: id, name: nil, error: message, isFinished: true))
    case .unknown(let type): sideEvents.append(.warning("Dropped an event of unknown type \(type)."))
    case .reasoningStart, .reasoningEnd, .textMessageChunk, .toolCallChunk, .reasoningMessageChunk: return
    }
  }

  /// A part for the message `id` (a reopened one gets a part of its own, `id~n`), shown at its first text.
  private mutating func openPart(for id: String) {
    let count = reopenings[id, default: 0]
    reopenings[id] = count + 1
    streamed[id] = Streamed(part: PartID(rawValue: count == 0 ? id : "\(id)~\(count)"))
  }

  /// Text for the message `id`: into its draft, and, in the requested run, into its part (started at the
  /// first text, so an empty message shows nothing). The part, when the text was shown.
  @discardableResult
  private mutating func stream(
    _ delta: String, of id: String, as kind: StreamedPartKind, into events: inout [ReplyEvent]
  )
    -> PartID?
  {
    drafts[id]?.content += delta
    guard inRequestedRun, !delta.isEmpty, var part = streamed[id] else { return nil }
    if !part.isShown {
      part.isShown = true
      streamed[id] = part
      events.append(.partStarted(part.part, kind))
    }
    events.append(.partDelta(part.part, delta))
    return part.part
  }

  private mutating func endUnendedReasoning(before event: AGUIEvent?, into events: inout [ReplyEvent]) {
    guard let id = unendedReasoning else { return }
    unendedReasoning = nil
    guard let part = streamed.removeValue(forKey: id) else { return }
    if case .reasoningEncryptedValue("message", id, let value)? = event {
      drafts[id]?.encryptedValue = value
      events.append(.partEnded(part.part, encryptedValue: value))
      return
    }
    events.append(.partEnded(part.part, encryptedValue: encryptedForOpen.removeValue(forKey: id)))
  }

  private mutating func keepEncrypted(_ value: String, subtype: String, for id: String) {
    switch subtype {
    case "message" where drafts[id] != nil:
      drafts[id]?.encryptedValue = value
      if streamed[id] != nil { encryptedForOpen[id] = value }
    case "tool-call" where calls[id] != nil:
      calls[id]?.encryptedValue = value
    default:
      if case .object(var message)? = thread.message(id) {
        message["encryptedValue"] = .string(value)
        thread.upsert(.object(message))
      } else {
        sideEvents.append(.warning("An encrypted value names \(id), which this thread does not hold."))
      }
    }
  }

  // MARK: - The thread

  /// The user's and the agent's messages a snapshot holds that this thread does not (from another device, or
  /// a thread replayed to a fresh client), as the conversation's messages; the thread's own are already
  /// shown, under the client IDs the user knows.
  private func newMessages(in snapshot: [JSONValue]) -> [Message] {
    snapshot.compactMap { wire -> Message? in
      guard let id = wire.field("id")?.stringValue, thread.message(id) == nil, drafts[id] == nil else { return nil }
      let role: Role
      switch wire.field("role")?.stringValue {
      case "user": role = .user
      case "assistant": role = .assistant
      default: return nil  // tool, reasoning, system and developer messages are the thread's only
      }
      let text: String
      switch wire.field("content") {
      case .string(let content)?: text = content
      case .array(let parts)?: text = parts.compactMap { $0.field("text")?.stringValue }.joined(separator: "\n")
      default: text = ""
      }
      guard !text.isEmpty else { return nil }
      return Message(
        clientID: ClientMessageID(rawValue: "agui-\(id)"), serverID: ServerMessageID(rawValue: id), role: role,
        text: text, createdAt: receivedAt)
    }
  }

  private mutating func openDraft(_ id: String, role: String, name: String?) {
    if drafts[id] == nil {
      if committedHere.contains(id), case .object(let kept)? = thread.message(id), kept["role"]?.stringValue == role {
        // A message reopened after a snapshot wrote it into the thread keeps what it had; one an earlier
        // run sent is not continued by a new run's start of the same ID.
        var draft = Draft(role: role, name: name)
        draft.content = kept["content"]?.stringValue ?? ""
        if case .array(let calls)? = kept["toolCalls"] { draft.toolCalls = calls }
        drafts[id] = draft
      } else {
        drafts[id] = Draft(role: role, name: name)
      }
      draftOrder.append(id)
    }
  }

  /// Writes the messages this run streamed into the thread (in the order they started), so far.
  private mutating func commitDrafts() {
    for id in draftOrder {
      guard let draft = drafts[id] else { continue }
      var message: [String: JSONValue] = ["id": .string(id), "role": .string(draft.role)]
      if !draft.content.isEmpty || draft.role != "assistant" { message["content"] = .string(draft.content) }
      if let name = draft.name { message["name"] = .string(name) }
      if !draft.toolCalls.isEmpty { message["toolCalls"] = .array(draft.toolCalls) }
      if let value = draft.encryptedValue { message["encryptedValue"] = .string(value) }
      if let result = draft.result {
        message["toolCallId"] = .string(result.callID)
        message["content"] = result.content
      }
      thread.upsert(.object(message))
      committedHere.insert(id)
    }
    drafts = [:]
    draftOrder = []
  }

  private static func wireCall(_ id: String, _ call: Call) -> JSONValue {
    var wire: [String: JSONValue] = [
      "id": .string(id), "type": "function",
      "function": .object(["name": .string(call.name), "arguments": .string(call.arguments)]),
    ]
    if let value = call.encryptedValue { wire["encryptedValue"] = .string(value) }
    return .object(wire)
  }

  // MARK: - Values

  /// A call's arguments: JSON text, which the protocol does not promise is valid (closing a call "establishes
  /// completeness, not validity"); text that is not JSON is kept as a string for the tool to refuse.
  static func input(_ arguments: String) -> JSONValue {
    if arguments.isEmpty { return .object([:]) }
    return (try? JSONDecoder().decode(JSONValue.self, from: Data(arguments.utf8))) ?? .string(arguments)
  }

  /// A server-run tool's result: a string holding JSON is read as that JSON, other text stays text; content
  /// parts stay as sent.
  static func result(_ content: JSONValue) -> JSONValue {
    guard case .string(let text) = content, let first = text.first, first == "{" || first == "[" else { return content }
    return (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? content
  }

  private func request(for interrupt: AGUIInterrupt) -> InputRequest {
    if let callID = interrupt.toolCallID, calls[callID] != nil || thread.toolCallIDs.contains(callID) {
      return InputRequest(
        id: InputRequestID(rawValue: interrupt.id), kind: .toolApproval(ToolCallID(rawValue: callID)),
        message: interrupt.message)
    }
    return InputRequest(
      id: InputRequestID(rawValue: interrupt.id), kind: .question(interrupt.payload), message: interrupt.message)
  }

  /// A `STATE_DELTA`'s operations: one this client does not know is dropped with a warning, as the protocol
  /// asks; one that is malformed (not an object, no path, a missing value) breaks the rules.
  private mutating func patchOperations(_ operations: [JSONValue]) throws(AGUIViolation) -> [JSONPatchOperation] {
    var patch: [JSONPatchOperation] = []
    for operation in operations {
      guard case .object(let fields) = operation else {
        throw AGUIViolation(.malformed, "A STATE_DELTA operation is not an object.")
      }
      let op = EventFields(object: fields, type: "STATE_DELTA operation")
      let name = try op.string("op")
      let pathText = try op.string("path")
      let path: JSONPointer
      do { path = try JSONPointer(parsing: pathText) } catch {
        throw AGUIViolation(.malformed, "A STATE_DELTA operation's path \(pathText) is not a JSON Pointer.")
      }
      func from() throws(AGUIViolation) -> JSONPointer {
        let text = try op.string("from")
        do { return try JSONPointer(parsing: text) } catch {
          throw AGUIViolation(.malformed, "A STATE_DELTA operation's from \(text) is not a JSON Pointer.")
        }
      }
      switch name {
      case "add": patch.append(.add(at: path, value: try op.required("value")))
      case "remove": patch.append(.remove(at: path))
      case "replace": patch.append(.replace(at: path, value: try op.required("value")))
      case "move": patch.append(.move(from: try from(), to: path))
      case "copy": patch.append(.copy(from: try from(), to: path))
      case "test": patch.append(.test(at: path, value: try op.required("value")))
      default: sideEvents.append(.warning("Dropped the STATE_DELTA operation \(name), which JSON Patch does not have."))
      }
    }
    return patch
  }
}
