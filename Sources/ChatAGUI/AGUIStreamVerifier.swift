/// AG-UI 1.0's rules for a stream, checked event by event, with the chunk forms expanded: what it returns
/// for each event is the same events in the start/content/end form, with the ends the protocol says a
/// consumer synthesizes (a chunk that opens another item, an event of another kind in the lane, a run-level
/// event). A broken rule throws an `AGUIViolation` naming it; after that the stream is over.
///
/// Pure and incremental, like every mapper here: feed each event, then `finish()` at the end of the body.
///
/// ```swift
/// var verifier = AGUIStreamVerifier()
/// for frame in frames { for expanded in try verifier.accept(frame) { apply(expanded) } }
/// if verifier.finish() == .truncated { showCutOff() }  // the body ended inside a run
/// ```
public struct AGUIStreamVerifier: Sendable {
  /// How a body ended.
  public enum Ending: Hashable, Sendable {
    /// After a run's terminal event (`RUN_FINISHED` or `RUN_ERROR`).
    case complete
    /// Inside a run, or before any: the run has no outcome and must never read as a success.
    case truncated
  }

  private enum Phase: Hashable, Sendable {
    case beforeFirst
    case running(threadID: String, runID: String)
    case finished
    case failed
  }

  /// Who opened a message or tool call, for reopening and chunk checks.
  private struct Opener: Hashable, Sendable {
    var role: String?
    var name: String?
    var parent: String?
    var owner: String?
    var chunked: Bool
  }

  /// The items the chunk form has open in one subagent lane.
  private struct Lane: Hashable, Sendable {
    var text: String?
    var tool: String?
    var reasoning: String?
    var isEmpty: Bool { text == nil && tool == nil && reasoning == nil }
  }

  private var phase = Phase.beforeFirst
  private var messages: [String: Opener] = [:]
  private var openMessages: Set<String> = []
  private var calls: [String: Opener] = [:]
  private var openCalls: Set<String> = []
  private var reasoning: [String: Opener] = [:]
  private var openReasoning: Set<String> = []
  private var openSpans: Set<String> = []
  private var openSteps: Set<String> = []
  private var openSubagents: Set<String> = []
  private var startedSubagents: Set<String> = []
  /// Chunk lanes with an item open (a lane is removed once it has none).
  private var lanes: [String: Lane] = [:]
  /// The parent agent's message started last, while it stays open: its content is the hot path.
  private var lastStartedMessage: String?
  /// Tool calls of this thread, in any run: a later run may carry a result for an earlier run's call (an
  /// approved call runs in the run that resumes).
  private var knownCalls: Set<String>

  /// A verifier for one response; `knownToolCallIDs` are the calls earlier runs of the thread made.
  public init(knownToolCallIDs: Set<String> = []) {
    knownCalls = knownToolCallIDs
  }

  /// Whether a run is open (started, not yet ended).
  public var isInRun: Bool {
    if case .running = phase { return true }
    return false
  }

  /// The ID of the open run.
  public var runID: String? {
    if case .running(_, let runID) = phase { return runID }
    return nil
  }

  /// Whether `TEXT_MESSAGE_CONTENT` for `id` from the parent agent needs no more than appending: no chunk is
  /// open, and `id` is the parent agent's message started last, still open. Such an event passes `accept`
  /// unchanged; the mapper skips the call.
  public func continuesOpenMessage(_ id: String) -> Bool { lanes.isEmpty && lastStartedMessage == id }

  /// Whether the tool call `id` is open (its arguments still streaming).
  public func isOpen(toolCall id: String) -> Bool { openCalls.contains(id) }

  /// Checks `frame` and returns it expanded (chunks as start/content/end, with synthesized ends first).
  public mutating func accept(_ frame: AGUIFrame) throws(AGUIViolation) -> [AGUIFrame] {
    var out: [AGUIFrame] = []
    try checkPhase(frame.event)
    if case .unknown = frame.event { return [frame] }
    closeLanes(before: frame, into: &out)
    if let expanded = try expandChunk(frame) { return out + expanded }
    try check(frame)
    return out + [frame]
  }

  /// How the body ended; call once, at its end.
  public func finish() -> Ending {
    switch phase {
    case .finished, .failed: .complete
    case .beforeFirst, .running: .truncated
    }
  }

  // MARK: - Runs

  private mutating func checkPhase(_ event: AGUIEvent) throws(AGUIViolation) {
    switch (phase, event) {
    case (_, .unknown): return
    case (.beforeFirst, .runStarted), (.beforeFirst, .runError): return
    case (.beforeFirst, _):
      throw AGUIViolation(.firstEvent, "The stream began with \(event.typeName), not RUN_STARTED or RUN_ERROR.")
    case (.running, .runStarted):
      throw AGUIViolation(.runAlreadyActive, "RUN_STARTED arrived while run \(runID ?? "") was active.")
    case (.running, _): return
    case (.finished, .runStarted), (.finished, .runError), (.failed, .runStarted): return
    case (.finished, _):
      throw AGUIViolation(.eventAfterRunEnded, "\(event.typeName) arrived after RUN_FINISHED.")
    case (.failed, _):
      throw AGUIViolation(.eventAfterRunEnded, "\(event.typeName) arrived after RUN_ERROR.")
    }
  }

  private mutating func resetRun() {
    messages = [:]
    openMessages = []
    calls = [:]
    openCalls = []
    reasoning = [:]
    openReasoning = []
    openSpans = []
    openSteps = []
    openSubagents = []
    startedSubagents = []
    lanes = [:]
    lastStartedMessage = nil
  }

  // MARK: - Chunks

  /// The ends the protocol synthesizes before `frame`: every lane's chunk items for a run-level event, the
  /// frame's lane's for an event of another kind, a subagent's own when it ends.
  private mutating func closeLanes(before frame: AGUIFrame, into out: inout [AGUIFrame]) {
    switch frame.event {
    case .runStarted, .runFinished, .runError, .messagesSnapshot:
      for owner in lanes.keys.sorted() { closeLane(owner, except: nil, into: &out) }
    case .raw, .activitySnapshot, .activityDelta, .reasoningEncryptedValue, .subagentStarted, .unknown:
      return
    case .subagentFinished(let id), .subagentError(let id, _, _):
      closeLane(id, except: nil, into: &out)
    case .textMessageChunk(let id, _, _, _):
      let owner = chunkLane(frame, kind: \.text)
      closeLane(owner, except: id == nil || id == lanes[owner]?.text ? .text : nil, into: &out)
    case .toolCallChunk(let id, _, _, _):
      let owner = chunkLane(frame, kind: \.tool)
      closeLane(owner, except: id == nil || id == lanes[owner]?.tool ? .tool : nil, into: &out)
    case .reasoningMessageChunk(let id, _):
      let owner = chunkLane(frame, kind: \.reasoning)
      closeLane(owner, except: id == nil || id == lanes[owner]?.reasoning ? .reasoning : nil, into: &out)
    default:
      closeLane(frame.subagentRunID ?? "", except: nil, into: &out)
    }
  }

  private enum LaneKind { case text, tool, reasoning }

  private mutating func closeLane(_ owner: String, except kept: LaneKind?, into out: inout [AGUIFrame]) {
    guard var lane = lanes[owner], !lane.isEmpty else { return }
    let subagent = owner.isEmpty ? nil : owner
    if kept != .text, let id = lane.text {
      out.append(AGUIFrame(.textMessageEnd(messageID: id), subagentRunID: subagent))
      openMessages.remove(id)
      lane.text = nil
    }
    if kept != .tool, let id = lane.tool {
      out.append(AGUIFrame(.toolCallEnd(toolCallID: id), subagentRunID: subagent))
      openCalls.remove(id)
      lane.tool = nil
    }
    if kept != .reasoning, let id = lane.reasoning {
      out.append(AGUIFrame(.reasoningMessageEnd(messageID: id), subagentRunID: subagent))
      openReasoning.remove(id)
      lane.reasoning = nil
    }
    lanes[owner] = lane.isEmpty ? nil : lane
  }

  /// The lane a chunk belongs to: its own subagent's; for one with neither ID nor subagent, the parent
  /// agent's when that has an item of the kind open, else the one lane that has.
  private func chunkLane(_ frame: AGUIFrame, kind: KeyPath<Lane, String?>) -> String {
    if let owner = frame.subagentRunID { return owner }
    if lanes[""]?[keyPath: kind] != nil { return "" }
    let open = lanes.filter { $0.value[keyPath: kind] != nil }.map(\.key)
    return open.count == 1 ? open[0] : ""
  }

  /// A chunk as the events it stands for, each checked; nil for an event that is not a chunk.
  private mutating func expandChunk(_ frame: AGUIFrame) throws(AGUIViolation) -> [AGUIFrame]? {
    let owner = frame.subagentRunID
    var expanded: [AGUIFrame] = []
    func add(_ event: AGUIEvent, start: Bool) throws(AGUIViolation) {
      let made = AGUIFrame(event, subagentRunID: owner)
      try check(made, chunked: start)
      expanded.append(made)
    }
    switch frame.event {
    case .textMessageChunk(let id, let role, let name, let delta):
      let lane = try continuationLane(frame, id: id, kind: \.text, what: "TEXT_MESSAGE_CHUNK")
      let messageID: String
      if let current = lanes[lane]?.text, id == nil || id == current {
        let opener = messages[current]
        if let role, role != (opener?.role ?? "assistant") {
          throw AGUIViolation(.chunkOpener, "TEXT_MESSAGE_CHUNK changed message \(current)'s role to \(role).")
        }
        if let name, name != opener?.name {
          throw AGUIViolation(.chunkOpener, "TEXT_MESSAGE_CHUNK changed message \(current)'s name.")
        }
        messageID = current
      } else {
        guard let id else {
          throw AGUIViolation(.chunkOpener, "The first TEXT_MESSAGE_CHUNK of a message carries no messageId.")
        }
        messageID = id
        try add(.textMessageStart(messageID: id, role: role ?? "assistant", name: name), start: true)
        lanes[lane, default: Lane()].text = id
      }
      if let delta { try add(.textMessageContent(messageID: messageID, delta: delta), start: false) }
    case .toolCallChunk(let id, let name, let parent, let delta):
      let lane = try continuationLane(frame, id: id, kind: \.tool, what: "TOOL_CALL_CHUNK")
      let callID: String
      if let current = lanes[lane]?.tool, id == nil || id == current {
        let opener = calls[current]
        if let name, name != opener?.name {
          throw AGUIViolation(.chunkOpener, "TOOL_CALL_CHUNK changed call \(current)'s name to \(name).")
        }
        if let parent, parent != opener?.parent {
          throw AGUIViolation(.chunkOpener, "TOOL_CALL_CHUNK changed call \(current)'s parentMessageId.")
        }
        callID = current
      } else {
        guard let id, let name else {
          throw AGUIViolation(
            .chunkOpener, "The first TOOL_CALL_CHUNK of a call must carry toolCallId and toolCallName.")
        }
        callID = id
        try add(.toolCallStart(toolCallID: id, name: name, parentMessageID: parent), start: true)
        lanes[lane, default: Lane()].tool = id
      }
      if let delta { try add(.toolCallArgs(toolCallID: callID, delta: delta), start: false) }
    case .reasoningMessageChunk(let id, let delta):
      let lane = try continuationLane(frame, id: id, kind: \.reasoning, what: "REASONING_MESSAGE_CHUNK")
      let messageID: String
      if let current = lanes[lane]?.reasoning, id == nil || id == current {
        messageID = current
      } else {
        guard let id else {
          throw AGUIViolation(.chunkOpener, "The first REASONING_MESSAGE_CHUNK carries no messageId.")
        }
        messageID = id
        try add(.reasoningMessageStart(messageID: id), start: true)
        lanes[lane, default: Lane()].reasoning = id
      }
      if let delta { try add(.reasoningMessageContent(messageID: messageID, delta: delta), start: false) }
    default:
      return nil
    }
    return expanded
  }

  /// The lane a chunk continues, checked: one without an ID must have exactly one item of its kind to
  /// continue.
  private func continuationLane(_ frame: AGUIFrame, id: String?, kind: KeyPath<Lane, String?>, what: String)
    throws(AGUIViolation) -> String
  {
    let lane = chunkLane(frame, kind: kind)
    guard id == nil else { return lane }
    if lanes[lane]?[keyPath: kind] != nil { return lane }
    let open = lanes.filter { $0.value[keyPath: kind] != nil }.count
    throw AGUIViolation(
      open > 1 ? .chunkContinuation : .chunkOpener,
      open > 1
        ? "\(what) without an ID could continue items in \(open) subagent lanes."
        : "\(what) without an ID, and no item of its kind is open to continue.")
  }

  // MARK: - Items

  /// Checks one event in the start/content/end form against what is open, and records what it opens or
  /// closes. `chunked` says the start came from a chunk (the two forms never mix in one item).
  private mutating func check(_ frame: AGUIFrame, chunked: Bool = false) throws(AGUIViolation) {
    let owner = frame.subagentRunID
    if let owner, !openSubagents.contains(owner), !isSubagentBoundary(frame.event) {
      throw AGUIViolation(.subagentLane, "\(frame.event.typeName) names subagent \(owner), which is not running.")
    }
    switch frame.event {
    case .runStarted(let threadID, let runID, _, _):
      resetRun()
      phase = .running(threadID: threadID, runID: runID)
    case .runFinished(let threadID, let runID, _):
      guard case .running(let startedThread, let startedRun) = phase else { return }
      guard threadID == startedThread, runID == startedRun else {
        throw AGUIViolation(
          .runIDsDisagree,
          "RUN_FINISHED names run \(runID) of thread \(threadID); the run started as \(startedRun) of \(startedThread)."
        )
      }
      if let open = firstOpenItem() {
        throw AGUIViolation(.leftOpen, "RUN_FINISHED arrived with \(open) still open.")
      }
      resetRun()
      phase = .finished
    case .runError:
      resetRun()
      phase = .failed
    case .stepStarted(let name):
      guard openSteps.insert(name).inserted else {
        throw AGUIViolation(.alreadyOpen, "Step \(name) started while it was open.")
      }
    case .stepFinished(let name):
      guard openSteps.remove(name) != nil else {
        throw AGUIViolation(.notOpen, "Step \(name) finished, but it was not open.")
      }
    case .textMessageStart(let id, let role, let name):
      let opener = Opener(role: role, name: name, owner: owner, chunked: chunked)
      try Self.open(id, opener, in: &messages, &openMessages, what: "Message")
      lastStartedMessage = owner == nil && !chunked ? id : nil
    case .textMessageContent(let id, _), .textMessageEnd(let id):
      try touch(id, frame, in: messages, openMessages, what: "message")
      if case .textMessageEnd = frame.event {
        openMessages.remove(id)
        if lastStartedMessage == id { lastStartedMessage = nil }
      }
    case .toolCallStart(let id, let name, let parent):
      if calls[id] != nil, !openCalls.contains(id) {
        throw AGUIViolation(.reopenedToolCall, "Tool call \(id) started again after its end.")
      }
      let opener = Opener(name: name, parent: parent, owner: owner, chunked: chunked)
      try Self.open(id, opener, in: &calls, &openCalls, what: "Tool call")
      knownCalls.insert(id)
    case .toolCallArgs(let id, _), .toolCallEnd(let id):
      try touch(id, frame, in: calls, openCalls, what: "tool call")
      if case .toolCallEnd = frame.event { openCalls.remove(id) }
    case .toolCallResult(_, let callID, _):
      guard knownCalls.contains(callID) else {
        throw AGUIViolation(.resultForUnknownCall, "TOOL_CALL_RESULT names tool call \(callID), which never started.")
      }
    case .reasoningStart(let id):
      guard openSpans.insert(id).inserted else {
        throw AGUIViolation(.alreadyOpen, "Reasoning span \(id) started while it was open.")
      }
    case .reasoningEnd(let id):
      guard openSpans.remove(id) != nil else {
        throw AGUIViolation(.notOpen, "Reasoning span \(id) ended, but it was not open.")
      }
    case .reasoningMessageStart(let id):
      try Self.open(
        id, Opener(owner: owner, chunked: chunked), in: &reasoning, &openReasoning, what: "Reasoning message")
    case .reasoningMessageContent(let id, _), .reasoningMessageEnd(let id):
      try touch(id, frame, in: reasoning, openReasoning, what: "reasoning message")
      if case .reasoningMessageEnd = frame.event { openReasoning.remove(id) }
    case .subagentStarted(let id, _, _):
      guard startedSubagents.insert(id).inserted else {
        throw AGUIViolation(.alreadyOpen, "Subagent \(id) started twice in one run.")
      }
      openSubagents.insert(id)
    case .subagentFinished(let id), .subagentError(let id, _, _):
      guard openSubagents.remove(id) != nil else {
        throw AGUIViolation(.subagentLane, "\(frame.event.typeName) names subagent \(id), which is not running.")
      }
      lanes[id] = nil
    case .textMessageChunk, .toolCallChunk, .reasoningMessageChunk, .reasoningEncryptedValue, .stateSnapshot,
      .stateDelta, .messagesSnapshot, .activitySnapshot, .activityDelta, .custom, .raw, .unknown:
      return
    }
  }

  private func isSubagentBoundary(_ event: AGUIEvent) -> Bool {
    switch event {
    case .subagentStarted, .subagentFinished, .subagentError: true
    default: false
    }
  }

  private static func open(
    _ id: String, _ opener: Opener, in openers: inout [String: Opener], _ open: inout Set<String>, what: String
  ) throws(AGUIViolation) {
    guard !open.contains(id) else { throw AGUIViolation(.alreadyOpen, "\(what) \(id) started while it was open.") }
    if let earlier = openers[id] {
      // A closed item may be reopened (text keeps appending), by the same opener in the same form.
      guard earlier.chunked == opener.chunked else {
        throw AGUIViolation(.formsMixed, "\(what) \(id) was reopened in the other form (chunks and start/end mixed).")
      }
      guard earlier.role == opener.role, earlier.name == opener.name, earlier.owner == opener.owner else {
        throw AGUIViolation(.chunkOpener, "\(what) \(id) was reopened with a different role, name or owner.")
      }
    }
    openers[id] = opener
    open.insert(id)
  }

  private func touch(_ id: String, _ frame: AGUIFrame, in openers: [String: Opener], _ open: Set<String>, what: String)
    throws(AGUIViolation)
  {
    guard open.contains(id) else {
      throw AGUIViolation(.notOpen, "\(frame.event.typeName) for \(what) \(id), which is not open.")
    }
    if let owner = frame.subagentRunID, owner != openers[id]?.owner {
      throw AGUIViolation(.subagentLane, "\(frame.event.typeName) for \(what) \(id) names another subagent, \(owner).")
    }
  }

  private func firstOpenItem() -> String? {
    if let id = openMessages.sorted().first { return "message \(id)" }
    if let id = openCalls.sorted().first { return "tool call \(id)" }
    if let id = openReasoning.sorted().first { return "reasoning message \(id)" }
    if let id = openSpans.sorted().first { return "reasoning span \(id)" }
    if let name = openSteps.sorted().first { return "step \(name)" }
    if let id = openSubagents.sorted().first { return "subagent \(id)" }
    return nil
  }
}
