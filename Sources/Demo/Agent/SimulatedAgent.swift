import ConversationStore
import Foundation

/// The demo's server, in process: an AI agent that thinks, calls the app's `lookupOrder` tool, asks the user
/// to approve cancelling an order or where an order should go (and continues the same answer once
/// answered), answers word by word, and hands over to a person when asked; a list of the user's conversations
/// that keeps their renames, pins, archive and unread marks and their deletions, as a real server's does; a
/// realtime connection the user can drop (`/drop`), and a switch that makes the next request fail (`/fail`).
/// Everything it does waits on the injected clock, so a script on a virtual clock replays byte for byte.
final class SimulatedAgent: ChatBackend {
  static let assistant = AgentInfo(id: "ai", name: "Ada (AI)")
  static let human = AgentInfo(id: "sam", name: "Sam (support)")
  /// Seconds the agent "thinks" before its first word, and between words.
  static let thinking = 0.6
  static let wordInterval = 0.08
  /// Seconds a change or a deletion in the list takes to reach the agent's list and be answered.
  static let listLatency = 0.2

  let clock: any ChatClock
  let world: StateLock<AgentWorld>

  init(clock: any ChatClock, seed: UInt64) {
    self.clock = clock
    world = StateLock(AgentWorld(seed: seed, now: clock.now()))
  }

  /// Whether nothing the agent started (a reply, a hand-over, a message while offline) is still running.
  var isIdle: Bool { pendingWork == 0 }

  /// How many replies, hand-overs and the like are still running.
  var pendingWork: Int { world.withLock { $0.work } }

  /// Drops every realtime connection; while it is down the person in the busiest conversation writes, so
  /// the reconnect shows a message arriving through catch-up.
  func dropConnection() {
    let now = clock.now()
    let sockets = world.withLock { world in
      defer { world.sockets = [:] }
      _ = world.postWhileOffline(at: now)
      return Array(world.sockets.values)
    }
    for socket in sockets { socket.finish(throwing: ChatError(.network, "The simulated connection dropped.")) }
  }

  /// The next request fails with a server error, so the user can see a failure and a retry.
  func failNextRequest() { world.withLock { $0.failNext = true } }

  /// The next reply goes wrong halfway through its text, as `fault` says.
  func spoilNextReply(_ fault: ReplyFault) { world.withLock { $0.nextReplyFault = fault } }

  // MARK: ChatBackend

  func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    work { [self] continuation in
      try world.withLock { world in
        try world.checkFailure()
        try world.checkNotDeleted(payload.conversationID)
      }
      let now = clock.now()
      let (conversationID, confirmed, title) = world.withLock { $0.accept(payload, at: now) }
      continuation.yield(.accepted(confirmed, conversationID: conversationID))
      if let title { continuation.yield(.described(title: title, status: .ongoing)) }
      try await reply(to: payload.text, in: conversationID, question: confirmed.serverID, on: continuation)
    }
  }

  func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    work { [self] continuation in
      try world.withLock { world in
        try world.checkFailure()
        try world.checkNotDeleted(conversation)
      }
      let (question, variant) = world.withLock { world in
        world.regenerations += 1
        return (world.text(of: prompt, in: conversation) ?? "", world.regenerations + 2)
      }
      try await reply(to: question, in: conversation, question: nil, on: continuation, variant: variant)
    }
  }

  func continueRun(_ run: RunContinuation, in conversation: ConversationID)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    work { [self] continuation in
      try world.withLock { world in
        try world.checkFailure()
        try world.checkNotDeleted(conversation)
      }
      try await continued(run, in: conversation, on: continuation)
    }
  }

  func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws -> HistoryPage {
    try await clock.sleep(seconds: 0.4)  // long enough to see "loading older messages…"
    return try world.withLock { world in
      try world.checkFailure()
      return try world.page(of: conversation, before: cursor, limit: limit)
    }
  }

  func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] {
    try await clock.sleep(seconds: 0.2)
    return try world.withLock { try $0.messages(in: conversation, after: after) }
  }

  func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    let (stream, continuation) = AsyncThrowingStream<RealtimeUpdate, any Error>.makeStream()
    let id = world.withLock { world in
      world.nextSocket += 1
      world.sockets[world.nextSocket] = continuation
      return world.nextSocket
    }
    let clock = clock
    let opening = Task {
      try? await clock.sleep(seconds: 0.3)
      continuation.yield(.opened)
    }
    continuation.onTermination = { [weak self] _ in
      opening.cancel()
      self?.world.withLock { _ = $0.sockets.removeValue(forKey: id) }
    }
    return stream
  }

  func conversations(after cursor: PageCursor?, limit: Int) async throws -> ConversationPage {
    try world.withLock { world in
      try world.checkFailure()
      return world.conversationPage(after: cursor, limit: limit)
    }
  }

  /// Keeps the user's change in its list, as a server with a list does, and tells every connection (the
  /// one that made it too, as our protocol's `conversation.updated` does).
  func updateConversation(_ conversation: ConversationID, _ change: ConversationChange) async throws {
    try await listWork {
      try await self.clock.sleep(seconds: Self.listLatency)
      try self.world.withLock { world in
        try world.checkFailure()
        try world.change(conversation, change)
      }
      self.broadcast(.list(.conversationChanged(conversation, change)))
    }
  }

  /// Deletes the conversation and its messages: it leaves the list's pages, and its history, catch-up and
  /// sends are `CONVERSATION_NOT_FOUND` from now on.
  func deleteConversation(_ conversation: ConversationID) async throws {
    try await listWork {
      try await self.clock.sleep(seconds: Self.listLatency)
      try self.world.withLock { world in
        try world.checkFailure()
        try world.delete(conversation)
      }
      self.broadcast(.list(.conversationDeleted(conversation)))
    }
  }

  func rate(_ message: ServerMessageID, in conversation: ConversationID, as rating: Rating) async throws {
    try world.withLock { try $0.checkFailure() }
  }

  func submitFeedback(_ rating: Rating, comment: String?, in conversation: ConversationID) async throws {
    try world.withLock { try $0.checkFailure() }
  }

  func createTicket(_ draft: TicketDraft, from conversation: ConversationID?) async throws -> TicketReceipt {
    try await clock.sleep(seconds: 0.3)
    return try world.withLock { world in
      try world.checkFailure()
      world.tickets += 1
      return TicketReceipt(ticketID: "T-\(1_040 + world.tickets)")
    }
  }

  func submitToolResult(
    _ outcome: ToolCall.Outcome, for call: ToolCallID, in conversation: ConversationID, reply: RequestID
  ) async throws {
    let waiter = world.withLock { $0.toolWaiters.removeValue(forKey: call) }
    waiter?.resume(returning: outcome)
  }

  func uploadOutbox(_ batch: OutboxBatch) async throws -> OutboxReceipt {
    try world.withLock { try $0.checkFailure() }
    let now = clock.now()
    let (receipt, accepted) = world.withLock { $0.apply(batch, at: now) }
    for (conversationID, message) in accepted {
      broadcast(conversationID, .messageCreated(message))
      startWork { [self] in try await realtimeReply(to: message.text, in: conversationID) }
    }
    return receipt
  }

  // MARK: Replies

  /// Thinks, calls the app's tool when an order is mentioned, then streams the answer word by word.
  private func reply(
    to text: String, in conversationID: ConversationID, question: ServerMessageID?,
    on continuation: AsyncThrowingStream<ReplyEvent, any Error>.Continuation, variant: Int? = nil
  ) async throws {
    continuation.yield(.started(agent: Self.assistant))
    try await clock.sleep(seconds: Self.thinking)
    if let order = AgentReplies.cancellation(in: text) {
      return try await ask(
        approvalToCancel: order, in: conversationID, question: question, on: continuation)
    }
    if AgentReplies.wantsAddressChange(text) {
      return try await askForAddress(in: conversationID, question: question, on: continuation)
    }
    var lookup: JSONValue?
    if let order = AgentReplies.orderNumber(in: text) {
      let call = ToolCall(
        id: world.withLock { ToolCallID("call-\($0.nextID())") }, name: "lookupOrder",
        input: .object(["id": .number(Double(order))]), execution: .client)
      // Its arguments stream as JSON text before the call is complete, as agent protocols send them.
      continuation.yield(.toolInputStarted(call.id, name: call.name, execution: .client))
      for piece in ["{\"id\": ", "\(order)", "}"] {
        try await clock.sleep(seconds: Self.wordInterval)
        continuation.yield(.toolInputDelta(call.id, piece))
      }
      let outcome = await withCheckedContinuation { waiter in
        world.withLock { $0.toolWaiters[call.id] = waiter }
        continuation.yield(.toolCall(call))
      }
      if case .succeeded(let result) = outcome { lookup = result }
    }
    if let reasoning = AgentReplies.reasoning(about: text) {
      // Shown apart, dimmed, as it streams; the opaque value at its end is what a provider hands back.
      continuation.yield(.partStarted("reasoning", .reasoning))
      for word in Self.words(reasoning) {
        try await clock.sleep(seconds: Self.wordInterval)
        continuation.yield(.partDelta("reasoning", word))
      }
      continuation.yield(.partEnded("reasoning", encryptedValue: "simulated-opaque-reasoning"))
    }
    let pick = variant ?? world.withLock { Int($0.random.next() % 3) }
    let answer = AgentReplies.answer(to: text, lookup: lookup, variant: pick)
    if let source = AgentReplies.source(for: text) {
      continuation.yield(.part(MessagePart(id: "source", .source(source))))
    }
    let words = Self.words(answer)
    try await stream(words.prefix(words.count / 2).joined(), on: continuation)
    switch world.withLock({ world in
      defer { world.nextReplyFault = nil }
      return world.nextReplyFault
    }) {
    case .cut?: return  // the stream ends here, with no finish
    case .fail?: throw ChatError(.providerError, "The simulated agent failed mid-reply (/fail reply).", status: 503)
    case .breakRules?:
      // What a protocol adapter does with a stream that breaks the protocol's ordering rules.
      throw ChatError(.invalidEvent, "The simulated agent broke the protocol: it closed a message it never opened.")
    case nil: break
    }
    try await stream(words.dropFirst(words.count / 2).joined(), on: continuation)
    if let suggestions = AgentReplies.suggestions(for: text) { continuation.yield(.suggested(suggestions)) }
    let now = clock.now()
    let message = world.withLock { $0.record(answer, from: Self.assistant, in: conversationID, at: now) }
    continuation.yield(.finished(message, userMessageID: question))
    if AgentReplies.wantsHuman(text) { startWork { [self] in try await handOver(conversationID) } }
    if AgentReplies.isClosing(text) {
      broadcast(conversationID, .feedbackOffered(FeedbackPrompt(question: "How did Ada do today?", agentName: "Ada")))
    }
  }

  /// Says what it would do, starts its server-run `cancelOrder` call and asks the user to approve it; the
  /// run ends there, and the answer comes back through `continueRun`.
  private func ask(
    approvalToCancel order: Int, in conversationID: ConversationID, question: ServerMessageID?,
    on continuation: AsyncThrowingStream<ReplyEvent, any Error>.Continuation
  ) async throws {
    let call = ToolCall(
      id: world.withLock { ToolCallID("call-\($0.nextID())") }, name: "cancelOrder",
      input: .object(["id": .number(Double(order))]), execution: .server)
    let text = "I can cancel order \(order) for you."
    try await stream(text, on: continuation)
    continuation.yield(.toolCall(call))
    continuation.yield(
      .inputRequested(
        InputRequest(
          id: InputRequestID("approve-\(call.id)"), kind: .toolApproval(call.id), message: "Cancel order \(order)?")))
    let now = clock.now()
    let message = world.withLock { $0.record(text, from: Self.assistant, in: conversationID, at: now) }
    continuation.yield(.finished(message, userMessageID: question))
  }

  /// Asks where the order should go instead: a question with the JSON Schema of its answer, answered with
  /// `/answer`, declined with `/deny`.
  private func askForAddress(
    in conversationID: ConversationID, question: ServerMessageID?,
    on continuation: AsyncThrowingStream<ReplyEvent, any Error>.Continuation
  ) async throws {
    let text = "I can change the delivery address."
    try await stream(text, on: continuation)
    let id = world.withLock { InputRequestID("address-\($0.nextID())") }
    continuation.yield(
      .inputRequested(
        InputRequest(
          id: id, kind: .question(["type": "string", "title": "New delivery address"]),
          message: "Where should it go instead?")))
    let now = clock.now()
    let message = world.withLock { $0.record(text, from: Self.assistant, in: conversationID, at: now) }
    continuation.yield(.finished(message, userMessageID: question))
  }

  /// The run after the user answered: runs or skips the approved call, or uses the answer, and goes on with
  /// the same answer. Its finish sends no copy of the text, as the agent protocols do.
  private func continued(
    _ run: RunContinuation, in conversationID: ConversationID,
    on continuation: AsyncThrowingStream<ReplyEvent, any Error>.Continuation
  ) async throws {
    continuation.yield(.started(agent: Self.assistant))
    try await clock.sleep(seconds: Self.thinking)
    var text = ""
    for request in run.inputAnswers {
      switch (request.kind, request.answer) {
      case (.toolApproval(let callID), .approved?):
        continuation.yield(.toolResult(callID, .succeeded(["cancelled": true])))
        text += " Done: it is cancelled, and the refund is on its way."
      case (.toolApproval, .denied(let reason)?):
        text += reason.map { " All right, I left it as it is (\($0))." } ?? " All right, I left it as it is."
      case (.question, .answered(let value)?):
        let address = if case .string(let address) = value { address } else { "\(value)" }
        text += " Done: it will go to \(address)."
      default:
        text += " No problem, I kept the address you had."
      }
    }
    try await stream(text, on: continuation)
    let now = clock.now()
    if let answer = run.answer { world.withLock { $0.append(text, to: answer, in: conversationID) } }
    continuation.yield(
      .finished(Message(clientID: "continued", serverID: run.answer, role: .assistant, text: "", createdAt: now)))
  }

  /// Streams `text` word by word, at the agent's pace.
  private func stream(_ text: String, on continuation: AsyncThrowingStream<ReplyEvent, any Error>.Continuation)
    async throws
  {
    for word in Self.words(text) {
      try await clock.sleep(seconds: Self.wordInterval)
      continuation.yield(.delta(word))
    }
  }

  /// A reply over the realtime connection, to a message that came in through the outbox.
  private func realtimeReply(to text: String, in conversationID: ConversationID) async throws {
    try await clock.sleep(seconds: Self.thinking)
    let replyID = ServerMessageID("s\(world.withLock { $0.nextID() })")
    broadcast(conversationID, .replyStarted(replyID, agent: Self.assistant, at: clock.now()))
    let answer = AgentReplies.answer(to: text, lookup: nil, variant: 0)
    for word in Self.words(answer) {
      try await clock.sleep(seconds: Self.wordInterval)
      broadcast(conversationID, .replyDelta(replyID, word))
    }
    let now = clock.now()
    let message = world.withLock { $0.record(answer, from: Self.assistant, in: conversationID, at: now, id: replyID) }
    broadcast(conversationID, .replyFinished(replyID, message))
  }

  /// A person takes the conversation over and says hello.
  private func handOver(_ conversationID: ConversationID) async throws {
    try await clock.sleep(seconds: 2)
    world.withLock { $0.setStatus(.takenOver, of: conversationID) }
    broadcast(conversationID, .statusChanged(.takenOver))
    broadcast(conversationID, .typingStarted(ParticipantID(Self.human.id.rawValue), at: clock.now()))
    try await clock.sleep(seconds: 1.5)
    let now = clock.now()
    let message = world.withLock {
      $0.record(
        "Hi, I'm Sam from support. I've read the conversation so far — how can I help?", from: Self.human,
        in: conversationID, at: now, role: .humanAgent)
    }
    broadcast(conversationID, .messageCreated(message))
  }

  // MARK: Plumbing

  private func broadcast(_ conversationID: ConversationID, _ event: RealtimeEvent) {
    broadcast(.event(conversationID, event))
  }

  private func broadcast(_ update: RealtimeUpdate) {
    for socket in world.withLock({ Array($0.sockets.values) }) { socket.yield(update) }
  }

  /// A list call, counted as the agent's work while it runs (a script waits for it before it draws).
  private func listWork(_ body: () async throws -> Void) async throws {
    world.withLock { $0.work += 1 }
    defer { world.withLock { $0.work -= 1 } }
    try await body()
  }

  /// Words with their following space, so the reply streams as a person would see it typed.
  static func words(_ text: String) -> [String] {
    let parts = text.split(separator: " ", omittingEmptySubsequences: false)
    return parts.enumerated().map { index, word in index == parts.count - 1 ? String(word) : word + " " }
  }

  /// A reply stream whose body is counted as the agent's work, ended on cancellation.
  private func work(
    _ body: @escaping @Sendable (AsyncThrowingStream<ReplyEvent, any Error>.Continuation) async throws -> Void
  ) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let (stream, continuation) = AsyncThrowingStream<ReplyEvent, any Error>.makeStream()
    world.withLock { $0.work += 1 }
    let task = Task { [world] in
      do {
        try await body(continuation)
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
      world.withLock { $0.work -= 1 }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  private func startWork(_ body: @escaping @Sendable () async throws -> Void) {
    world.withLock { $0.work += 1 }
    Task { [world] in
      try? await body()
      world.withLock { $0.work -= 1 }
    }
  }
}
