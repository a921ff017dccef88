import ConversationState
import ConversationStore
import Foundation

/// The generator behind `ConversationFuzzer`: it keeps its own copy of the state, so each action it makes
/// is plausible for the moment (answers to requests really in flight, echoes of messages really sent), and
/// then mixes in what real networks do: duplicates, stale results, other conversations, bad input.
struct FuzzSession {
  private var random: SplitMix64
  private var state: ConversationState
  private let reducer: ConversationReducer
  private var now = Date(timeIntervalSince1970: 1_750_000_000)
  private var counter = 0
  /// Backend results already delivered, to deliver again (duplicates) or late (after a sign-out).
  private var delivered: [ConversationAction] = []
  /// Server IDs already given to the user's messages by an echo that carried only the server's ID, so the
  /// send's response (arriving after it) names the same one.
  private var echoedServerIDs: [ClientMessageID: ServerMessageID] = [:]
  /// Ratings, feedback answers and read-cursor moves handed to the outbox, which the server may refuse.
  private var queued: [OutboxOperation] = []

  init(seed: UInt64, state: ConversationState, policy: ChatPolicy = ChatPolicy()) {
    random = SplitMix64(seed: seed)
    self.state = state
    reducer = ConversationReducer(policy: policy)
  }

  mutating func next() -> ConversationAction {
    now = now.addingTimeInterval(Double(int(0..<5)) + 0.25)
    let action = choose()
    if action.isBackendResult { delivered.append(action) }
    for case .enqueueOutbox(let operation) in reducer.reduce(into: &state, action: action) {
      if case .send = operation.kind { continue }
      queued.append(operation)
    }
    return action
  }

  private mutating func choose() -> ConversationAction {
    // The outbox answers a hand-over: stored, or refused (a full disk); sometimes late, after the message moved on.
    if let handedOver = pick(state.outboxRecording.sorted()), chance(40) {
      guard chance(15), let message = state.messages[clientID: handedOver] else { return .outboxRecorded(handedOver) }
      let outgoing = OutgoingMessage(clientID: handedOver, text: message.text, createdAt: message.createdAt)
      return .outboxRejected(.send(outgoing), ChatError(.storageFailed, "disk full"))
    }
    // The server refuses a queued rating, feedback answer or read-cursor move, sometimes long after.
    if !queued.isEmpty, chance(10) {
      let operation = queued.remove(at: int(0..<queued.count))
      let reason = OutboxRejection.Reason.allCases[int(0..<OutboxRejection.Reason.allCases.count)]
      return .outboxRejected(operation.kind, OutboxRejection(operationID: operation.id, reason: reason).error)
    }
    // An answer that waits is mostly answered, by the user or the app's tools, before anything else.
    if state.latestAnswer?.reply?.isAwaiting == true, chance(50), let answer = answerWait() { return answer }
    switch int(0..<100) {
    case 0..<18: return userSends()
    case 18..<50: return answerRequest() ?? userSends()
    case 50..<58: return delivered.isEmpty ? userSends() : delivered[int(0..<delivered.count)]
    case 58..<72: return realtime()
    case 72..<80: return connection()
    case 80..<97: return otherIntent()
    default:
      let identities: [ConversationAction] = [
        .signOut, .identify(UserIdentity(userID: "u\(int(0..<3))")), .clear, .relaunched,
        .identify(UserIdentity(userID: "u\(int(0..<3))"), keepingGuestConversation: true), .credentialsRefreshed,
        .open(ConversationID("conv-\(int(1..<3))")),
      ]
      return identities[int(0..<identities.count)]
    }
  }

  // MARK: - Helpers

  private mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }
  private mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }
  private mutating func fresh(_ prefix: String) -> String {
    counter += 1
    return "\(prefix)\(counter)"
  }

  private mutating func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[int(0..<items.count)] }

  private var conversationID: ConversationID { state.conversationID ?? "conv-1" }

  private mutating func serverMessage(role: Role, at date: Date? = nil, author: ParticipantID? = nil) -> Message {
    let id = fresh("s")
    // Every other reply reports tokens, so the summed usage follows commits, replacements and removals
    // (drawn from the counter, not the generator, so the sessions' other draws stay as they were).
    let usage =
      role == .assistant && counter.isMultiple(of: 2)
      ? Usage(inputTokens: counter % 50, outputTokens: counter % 7, reasoningTokens: counter % 3 == 0 ? 4 : nil)
      : nil
    return Message(
      clientID: ClientMessageID("srv-\(id)"), serverID: ServerMessageID(id), role: role, author: author,
      text: "text \(id)", createdAt: date ?? now, reply: role == .assistant ? .completed : nil, usage: usage)
  }

  private mutating func anyError() -> ChatError {
    pick([
      ChatError(.network, "offline"), ChatError(.rateLimited, "slow down", status: 429, retryAfter: 2),
      ChatError(.providerError, "model", status: 503), ChatError(.invalidIdentity, "expired", status: 401),
      ChatError(.conversationNotOngoing, "ended", status: 409),
      ChatError(.conversationChanged, "moved on", status: 409), ChatError(.network, "denied", status: 403),
      ChatError(.chatUnavailable, "closed for the night"),
    ])!
  }

  // MARK: - User

  private mutating func userSends() -> ConversationAction {
    var clientID = ClientMessageID(fresh("c"))
    if chance(5), let existing = pick(Array(state.messages)) { clientID = existing.clientID }
    var attachments: [MessageAttachment] = []
    if chance(15) {
      let count = int(1..<6)
      attachments = (0..<count).map { index in
        MessageAttachment(
          id: AttachmentID("a\(index)"), filename: "f\(index).png", contentType: "image/png",
          byteSize: chance(20) ? 9 * 1024 * 1024 : 1_000,
          source: chance(60) ? .file(URL(fileURLWithPath: "/tmp/f\(index).png")) : nil)
      }
    }
    let text = chance(8) ? " " : "hello \(counter)"
    let outgoing = OutgoingMessage(clientID: clientID, text: text, attachments: attachments, createdAt: now)
    // One send in seven steers: decided without a draw, so the seeds replay the sessions they always did.
    return counter.isMultiple(of: 7) ? .steer(outgoing) : .send(outgoing)
  }

  private mutating func otherIntent() -> ConversationAction {
    // A user answers what the agent asks while its reply streams more often than anything else here.
    if state.streamingReply?.inputRequests.contains(where: { $0.answer == nil }) == true, chance(30) {
      return answerInput()
    }
    let messages = Array(state.messages)
    let answers = messages.filter { $0.role == .assistant }
    switch int(0..<16) {
    case 14: return answerInput()
    case 15: return agentState()
    case 0:
      return .retry(pick(messages.filter { if case .failed = $0.delivery { true } else { false } })?.clientID ?? "nope")
    case 1 where chance(50):
      // Switching between the siblings a regeneration left, or to a hidden message by ID.
      let shown = pick(state.branches.forks.map(\.shown)) ?? pick(answers)?.clientID ?? "nope"
      let hidden = pick(state.branches.forks.flatMap { $0.paths.flatMap(\.messages) })?.clientID ?? "nope"
      let choice = pick([SiblingChoice.previous, .next, .index(int(0..<3))])!
      return chance(70) ? .showSibling(of: shown, choice) : .showBranch(containing: hidden)
    case 1 where chance(40):
      // Editing a sent question into a sibling (now and then a message that is not the user's).
      let edited = pick(chance(80) ? messages.filter { $0.role == .user } : messages)?.clientID ?? "nope"
      guard case .send(let replacement) = userSends() else { return .clearError }
      return .edit(edited, replacement)
    case 1: return .regenerate(pick(answers)?.clientID ?? "nope")
    case 2: return .loadHistory(pageSize: pick([20, 5, 0, 101])!)
    case 3: return .loadMoreHistory(pageSize: pick([20, 10, 100])!)
    case 4: return .rateAnswer(pick(answers)?.clientID ?? "nope", pick(Rating.allCases)!)
    case 5: return .rateConversation(pick(Rating.allCases)!, comment: chance(50) ? "ok" : nil)
    case 6: return .dismissFeedback
    case 7: return .markRead(upTo: pick(messages.compactMap(\.serverID)) ?? "nope")
    case 8: return .setTyping(chance(50))
    case 9: return .stopReply
    case 10: return .clearError
    case 11: return .setDraft("draft \(counter)")
    case 12: return .escalate(TicketDraft(subject: chance(80) ? "Help" : "", body: "It broke"))
    case 13 where chance(50):
      let failed = pick(messages.filter { if case .failed = $0.delivery { true } else { false } })?.clientID ?? "nope"
      return chance(50) ? .discard(failed) : .takeBackIntoDraft(failed)
    case 13 where !state.followUps.isEmpty || state.followUps.pause != nil:
      return followUpIntent()
    default:
      let clientID = pick(messages)?.clientID ?? "nope"
      return chance(50)
        ? .attachmentProgress(clientID, "a0", pick([0.5, 1, -1, .nan])!)
        : .attachmentUploaded(clientID, "a0", URL(string: "https://files.example/a0")!)
    }
  }

  /// A change to the follow-up queue: mostly to a turn that waits, now and then to one that does not.
  private mutating func followUpIntent() -> ConversationAction {
    let turn = pick(state.followUps.turns)?.clientID ?? (chance(80) ? "nope" : pick(Array(state.messages))?.clientID)
    let id = turn ?? "nope"
    switch int(0..<7) {
    case 0: return .editQueued(id, text: chance(10) ? "  " : "edited \(counter)")
    case 1: return .removeQueued(id)
    case 2: return .moveQueued(id, to: int(-1..<4))
    case 3: return .takeQueuedIntoDraft(id)
    case 4: return .sendQueuedNow(id)
    default: return .resumeQueue
    }
  }

  // MARK: - Backend

  private mutating func answerRequest() -> ConversationAction? {
    // A live connection stays in `requests` for as long as it is open; "answering" it is a loss, which
    // a real connection suffers far less often than a request gets its response.
    let inFlight = state.requests.sorted { $0.key.sequence < $1.key.sequence }.filter {
      $0.value != .connect || state.connection == .connecting || chance(10)
    }
    // A stream that has started mostly goes on: its events outnumber every other answer.
    let streaming = state.streamingReply.flatMap { reply in
      state.requests[reply.requestID].map { (reply.requestID, $0) }
    }
    guard let (requestID, purpose) = (chance(40) ? streaming : nil) ?? pick(inFlight) else { return nil }
    if chance(12) { return .requestFailed(requestID, anyError(), at: now, jitter: jitter()) }
    switch purpose {
    case .send(let clientID):
      if let message = state.messages[clientID: clientID], !message.isCommitted, message.delivery != .queued {
        var confirmed = message
        let serverID = echoedServerIDs[clientID] ?? ServerMessageID(fresh("s"))
        confirmed.serverID = serverID
        confirmed.delivery = .sent
        confirmed.createdAt = now
        switch int(0..<100) {
        case 0..<20: return .realtime(conversationID, .messageCreated(confirmed))
        case 20..<35:
          // An echo that carries only the server's ID, before the send's response.
          echoedServerIDs[clientID] = serverID
          var echo = confirmed
          echo.clientID = ClientMessageID("srv-\(serverID)")
          return .realtime(conversationID, .messageCreated(echo))
        case 35..<43: return .sendQueued(requestID)
        case 43..<48:
          confirmed.serverID = nil  // a server that never returns the message's ID
          return .sendAccepted(requestID, confirmed: confirmed, conversationID: conversationID)
        default: return .sendAccepted(requestID, confirmed: confirmed, conversationID: conversationID)
        }
      }
      return numbered(streamEvent(requestID), requestID)
    case .regenerate, .continuation:
      return numbered(streamEvent(requestID), requestID)
    case .history:
      return .historyLoaded(requestID, historyPage())
    case .sync:
      return .syncLoaded(
        requestID, (0..<int(0..<4)).map { _ in serverMessage(role: .assistant) }, hasMore: chance(30))
    case .rating, .feedback:
      return .requestSucceeded(requestID)
    case .connect:
      return chance(75) && state.connection == .connecting
        ? .connectionOpened(requestID) : .connectionLost(requestID, anyError(), at: now, jitter: jitter())
    case .ticket:
      return .ticketCreated(requestID, TicketReceipt(ticketID: fresh("T")))
    case .readCursor:
      return .readCursorSaved(requestID)
    case .credentials:
      return .credentialsRefreshed
    case .upload:
      switch int(0..<3) {
      case 0: return .uploadProgressed(requestID, pick([0.5, 0.25, 1, 2, .nan])!)
      case 1: return .uploadFinished(requestID, URL(string: "https://files.example/\(fresh("f"))")!)
      default: return .requestFailed(requestID, anyError(), at: now, jitter: jitter())
      }
    case .tool:
      return .toolRan(
        requestID, chance(70) ? .succeeded(["order": "1042", "status": "shipped"]) : .failed(anyError()))
    case .toolResult:
      return .requestSucceeded(requestID)
    case .realtimeReply(let serverID):
      let event: RealtimeEvent =
        chance(70)
        ? .replyDelta(serverID, "more ")
        : .replyFinished(serverID, Message(clientID: "x", role: .assistant, text: "Done.", createdAt: now))
      return .realtime(conversationID, event, connection: liveOrStaleConnection(), receivedAt: now)
    }
  }

  /// Some streams number their events, and some of those replay a few after a resume.
  private mutating func numbered(_ event: ConversationAction, _ requestID: RequestID) -> ConversationAction {
    guard chance(20) else { return event }
    var last: UInt64 = 0
    if state.streamingReply?.requestID == requestID, case .sequence(let position) = state.streamingReply?.resumePosition
    {
      last = position
    }
    let position = chance(25) && last > 0 ? last - UInt64(int(0..<Int(min(last, 3)))) : last + 1
    return .positioned(requestID, .sequence(position), event)
  }

  private mutating func streamEvent(_ requestID: RequestID) -> ConversationAction {
    if chance(3) {
      return .conversationDescribed(requestID, title: "Title \(counter)", status: pick(ConversationStatus.allCases))
    }
    guard state.streamingReply?.requestID == requestID else {
      return chance(85)
        ? .replyStarted(
          requestID, agent: AgentInfo(id: "bot", name: "Bot"), at: now,
          replyID: chance(30) ? ServerMessageID(fresh("s")) : nil) : .replyEnded(requestID)
    }
    // An agent that starts a tool often asks first.
    if state.streamingReply?.toolCalls.contains(where: { $0.outcome == .running }) == true && chance(30) {
      return inputRequest(requestID)
    }
    // A call whose input streams mostly goes on streaming it, then completes.
    let streamingInput = state.streamingReply?.toolCalls.filter { $0.outcome == .inputStreaming }.map(\.id) ?? []
    if let callID = pick(streamingInput), chance(40) {
      return chance(75)
        ? .toolInputDelta(requestID, callID, "{\"k\": 1")
        : .toolCallStarted(requestID, ToolCall(id: callID, name: "lookup", input: ["k": 1], execution: .server))
    }
    // A reply in parts mostly goes on in parts, as a protocol's stream does.
    if state.streamingReply?.parts.isEmpty == false && chance(70) { return partEvent(requestID) }
    switch int(0..<15) {
    case 0..<6: return .replyDelta(requestID, pick(["Hel", "lo", " wor", "ld", "é", "👋"])!)
    case 6, 13:
      return .toolCallStarted(
        requestID, ToolCall(id: ToolCallID(fresh("t")), name: "lookup", execution: chance(70) ? .client : .server))
    case 7:
      let callIDs: [ToolCallID] = state.streamingReply?.toolCalls.map(\.id) ?? []
      let callID: ToolCallID = pick(callIDs) ?? "unknown"
      let big = chance(20)
      return .toolCallFinished(requestID, callID, .succeeded(.string(String(repeating: "x", count: big ? 20_001 : 10))))
    case 8, 9: return .replyFinished(requestID, message: serverMessage(role: .assistant))
    case 10: return .replyEnded(requestID)
    case 14: return inputRequest(requestID)
    case 12:
      // A call whose input streams: its next arguments, or a new one.
      let streaming = state.streamingReply?.toolCalls.filter { $0.outcome == .inputStreaming }.map(\.id) ?? []
      if let callID = pick(streaming) { return .toolInputDelta(requestID, callID, "{\"k\": 1") }
      return .toolInputStarted(
        requestID, ToolCallID(fresh("t")), name: "lookup", execution: chance(50) ? .client : .server)
    default: return partEvent(requestID)
    }
  }

  /// The agent asks: mostly to approve one of the reply's calls, sometimes a question, an unknown call or
  /// a request ID the reply already has.
  private mutating func inputRequest(_ requestID: RequestID) -> ConversationAction {
    let reply = state.streamingReply
    let id =
      chance(5)
      ? (pick(reply?.inputRequests.map(\.id) ?? []) ?? InputRequestID(fresh("int"))) : InputRequestID(fresh("int"))
    let running = reply?.toolCalls.filter { $0.outcome == .running }.map(\.id) ?? []
    // A request that breaks the rules ends the reply, so they are rare: the reply should go on streaming.
    let kind: InputRequest.Kind =
      if let call = pick(running), chance(70) {
        .toolApproval(chance(95) ? call : "unknown")
      } else {
        chance(95) ? .question(["type": "string"]) : .toolApproval("unknown")
      }
    return .inputRequested(requestID, InputRequest(id: id, kind: kind, message: chance(70) ? "May I?" : nil))
  }

  /// The user answers what the agent asks: mostly an open request with an answer that fits, sometimes a
  /// wrong kind, a second answer or an unknown request.
  private mutating func answerInput() -> ConversationAction {
    var requests = state.streamingReply?.inputRequests ?? []
    if case .awaitingInput(let waiting) = state.messages.last(where: { $0.role == .assistant })?.reply {
      requests += waiting
    }
    let open = requests.filter { $0.answer == nil }
    guard let request = chance(85) ? pick(open) ?? pick(requests) : pick(requests) else {
      return .answerInput(InputRequestID(fresh("int")), .approved)
    }
    let fitting: [InputAnswer] =
      if case .question = request.kind { [.answered(["street": "Harbour"]), .declined] } else {
        [.approved, .denied(reason: chance(50) ? "no" : nil)]
      }
    let any: [InputAnswer] = [.approved, .denied(reason: nil), .answered(1), .declined]
    if chance(40) {
      // Approving and remembering it (now and then a question, which is refused), or forgetting a grant.
      if chance(20), let grant = pick(state.approvalGrants + state.standingApprovals) {
        return .revokeApproval(toolName: grant.toolName)
      }
      // Remembered here, always, or not; now and then the client hands in the person's list instead (or a
      // list of someone else's, which is ignored). One draw, as before standing approvals, so the seeds
      // replay the sessions they always did.
      switch int(0..<100) {
      case ..<55: return .approve(request.id, remembering: .conversation, at: now)
      case ..<70: return .approve(request.id, remembering: .always, at: now)
      case ..<95: return .approve(request.id, remembering: .once, at: now)
      default:
        let grants = counter.isMultiple(of: 2) ? [] : [ApprovalGrant(toolName: "refund", grantedAt: now)]
        return .standingApprovalsChanged(
          grants, userID: counter.isMultiple(of: 3) ? "someone-else" : state.identity?.userID)
      }
    }
    return .answerInput(request.id, chance(85) ? pick(fitting)! : pick(any)!)
  }

  /// What the waiting answer waits for: the user's answer to an open request, else an app tool's result.
  private mutating func answerWait() -> ConversationAction? {
    if case .awaitingInput(let requests) = state.latestAnswer?.reply, requests.contains(where: { $0.answer == nil }) {
      return answerInput()
    }
    let tools = state.requests.filter { if case .tool = $0.value { true } else { false } }.keys.sorted {
      $0.sequence < $1.sequence
    }
    return pick(tools).map { .toolRan($0, chance(80) ? .succeeded(["status": "shipped"]) : .failed(anyError())) }
  }

  /// The agent's shared state: a snapshot, or a patch that mostly applies and sometimes does not.
  private mutating func agentState() -> ConversationAction {
    if chance(30) { return .agentStateSnapshot(["items": [], "n": .number(Double(counter))]) }
    let pointer = { (tokens: [String]) in JSONPointer(tokens: tokens) }
    let ops: [JSONPatchOperation] = [
      JSONPatchOperation(.add(value: .number(Double(counter))), path: pointer(["items", "-"])),
      JSONPatchOperation(.replace(value: "x"), path: pointer(["n"])),
      JSONPatchOperation(.remove, path: pointer(["items", "0"])),
      JSONPatchOperation(.test(value: 1), path: pointer(["n"])),
      JSONPatchOperation(.add(value: true), path: pointer(["missing", "deep"])),
    ]
    return .agentStateDelta((0..<int(1..<4)).map { _ in pick(ops)! })
  }

  /// A part event: mostly for the reply's own parts, sometimes for an unknown, ended or repeated one.
  private mutating func partEvent(_ requestID: RequestID) -> ConversationAction {
    // Tool call IDs too: parts and calls share one ID space, and a part may not take a call's ID.
    let known =
      (state.streamingReply?.parts.map(\.id) ?? [])
      + (state.streamingReply?.toolCalls.map { PartID(rawValue: $0.id.rawValue) } ?? [])
    let open = state.streamingReply?.parts.filter(\.isOpen).map(\.id) ?? []
    let id = chance(15) ? (pick(known) ?? PartID(fresh("p"))) : PartID(fresh("p"))
    if let part = pick(open), chance(60) {
      return .replyPartDelta(requestID, chance(90) ? part : id, pick(["Hm", " so", "é", "👋"])!)
    }
    let streamingCalls = state.streamingReply?.toolCalls.filter { $0.outcome == .inputStreaming }.map(\.id) ?? []
    if let callID = pick(streamingCalls), chance(50) {
      return chance(75)
        ? .toolInputDelta(requestID, callID, "{\"k\": 1")
        : .toolCallStarted(requestID, ToolCall(id: callID, name: "lookup", input: ["k": 1], execution: .server))
    }
    switch int(0..<7) {
    case 6:
      let callID = ToolCallID(rawValue: chance(10) ? (pick(known)?.rawValue ?? id.rawValue) : fresh("t"))
      return chance(85)
        ? .toolInputStarted(requestID, callID, name: "lookup", execution: chance(50) ? .client : .server)
        : .toolInputDelta(requestID, callID, "{}")
    case 0, 1: return .replyPartStarted(requestID, id, chance(50) ? .text : .reasoning)
    case 2: return .replyPartDelta(requestID, id, "stray")
    case 3: return .replyPartEnded(requestID, pick(open) ?? id, encryptedValue: chance(30) ? "enc" : nil)
    case 4:
      let data = DataPart(kind: "card", value: ["n": .number(Double(counter))])
      return .replyPartAdded(requestID, MessagePart(id: chance(50) ? (pick(known) ?? id) : id, .data(data)))
    default:
      let source = KnowledgeSource(id: fresh("kb"), title: "Article", origin: .knowledgeBase)
      return .replyPartAdded(requestID, MessagePart(id: id, chance(50) ? .source(source) : .text("whole ")))
    }
  }

  private mutating func historyPage() -> HistoryPage {
    let oldest = state.messages.firstCommitted?.createdAt ?? now
    var messages: [Message] = (0..<int(0..<6)).map { index in
      serverMessage(
        role: index.isMultiple(of: 2) ? .user : .assistant, at: oldest.addingTimeInterval(-Double(index + 1)))
    }
    // Overlap: some messages the client already has.
    if chance(40) {
      messages += state.messages.filter(\.isCommitted).prefix(int(0..<3)).filter { $0.serverID != nil }
    }
    if chance(5), var anonymous = messages.first {
      anonymous.serverID = nil
      messages.append(anonymous)
    }
    return HistoryPage(messages: messages, nextCursor: PageCursor(fresh("p")), hasMore: chance(70))
  }

  private mutating func realtime() -> ConversationAction {
    let conversation: ConversationID = chance(5) ? "conv-other" : conversationID
    let known = state.messages.compactMap(\.serverID)
    let event: RealtimeEvent
    switch int(0..<10) {
    case 0, 1, 2:
      var message = serverMessage(
        role: pick([Role.assistant, .humanAgent, .user, .system])!, author: pick(["ana", "bo"]))
      if chance(15), let existing = pick(known) { message.serverID = existing }
      if chance(10), let late = state.messages.firstCommitted?.createdAt {
        message.createdAt = late.addingTimeInterval(0.5)
      }
      // The server's own copy of a message of the user's that has no server ID yet (queued, or confirmed
      // by a server that never returns IDs): same text and author, the server's ID and client ID.
      let withoutID = state.messages.filter { $0.role == .user && $0.serverID == nil && $0.delivery != .pending }
      if chance(30), let local = pick(withoutID) {
        message.role = .user
        message.author = local.author
        message.text = local.text
        message.reply = nil
      }
      event = .messageCreated(message)
    case 3:
      var edited = serverMessage(role: .assistant)
      edited.serverID = pick(known) ?? "unknown"
      event = .messageEdited(edited)
    case 4: event = .messageDeleted(pick(known) ?? "unknown")
    case 5: event = .typingStarted(pick(["ana", "bo"])!, at: now)
    case 6: event = .typingStopped(pick(["ana", "bo"])!)
    case 7: event = .statusChanged(pick(ConversationStatus.allCases)!)
    case 8:
      event =
        chance(50)
        ? .feedbackOffered(FeedbackPrompt(question: "How did we do?"))
        : chance(50)
          ? .replyStarted(ServerMessageID(fresh("s")), agent: AgentInfo(id: "ana", name: "Ana"), at: now)
          : .replyDelta(state.streamingReply?.serverID ?? ServerMessageID(fresh("s")), "streamed ")
    default:
      event = chance(50) ? .titleChanged("Title \(counter)") : .transcript(pick(known) ?? "unknown", text: "said")
    }
    // Events come from the live connection, from an old one (stale: ignored), or routed by the host.
    switch int(0..<3) {
    case 0: return .realtime(conversation, event, connection: liveOrStaleConnection(), receivedAt: now)
    case 1: return .realtime(conversation, event, receivedAt: now)
    default: return .realtime(conversation, event)
    }
  }

  /// The live connection's request ID most of the time, otherwise one of an older connection.
  private mutating func liveOrStaleConnection() -> RequestID {
    if chance(75), let live = state.requests.first(where: { $0.value == .connect })?.key { return live }
    return RequestID(epoch: state.epoch, sequence: UInt64(int(0..<Int(state.requestSequence + 1))))
  }

  private mutating func jitter() -> Double { Double(int(0..<100)) / 100 }

  private mutating func connection() -> ConversationAction {
    switch int(0..<6) {
    case 0: return .connect
    case 1: return .disconnect
    case 2: return .connectionLost(liveOrStaleConnection(), anyError(), at: now, jitter: jitter())
    case 3: return .timerFired(.reconnect, at: now)
    case 4: return .timerFired(pick([TimerID.resync, .rateLimitOver, .poll, .pace, .replyResume])!, at: now)
    default: return .timerFired(.typingExpiry(pick(["ana", "bo"])!), at: now)
    }
  }
}

extension ConversationAction {
  /// Whatever the backend, the runtime or time reports (everything but the user's intents): the actions a
  /// network can deliver twice, or late.
  var isBackendResult: Bool { !isUserIntent }
}

/// A seeded generator (SplitMix64), so a session — or any randomized test — replays exactly from its seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64
  /// A generator whose whole sequence is fixed by `seed`.
  public init(seed: UInt64) { state = seed }
  /// The next pseudo-random 64-bit value.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}
