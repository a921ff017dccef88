public import ChatHTTP
public import ConversationState
public import ConversationStore
public import Foundation

/// A `ChatBackend` for an agent that speaks AG-UI 1.0 over HTTP and Server-Sent Events (Pydantic AI,
/// LangGraph, Mastra, CrewAI, Google ADK, Microsoft Agent Framework, AWS Strands, CopilotKit runtimes…).
///
/// Each send, regeneration and continuation is one run: a POST of `RunAgentInput` (the complete history,
/// the app's tools, the shared state, `resume` answers) to `endpoint`, whose event stream is the reply
/// (`AGUIReplyMapper` says how each event maps). The transport is `ChatHTTP`'s: the same timeouts, limits,
/// origin-bound credential and redirect rules as `HTTPChatBackend`.
///
/// ```swift
/// let agent = try AGUIBackend(
///   endpoint: URL(string: "https://agents.example.com/support")!,
///   tools: [AGUITool(name: "pick_color", description: "Ask the user for a color")],
///   companion: try HTTPChatBackend(baseURL: historyServer) { await tokens.current() }
/// ) { await tokens.current() }
/// var policy = ChatPolicy()
/// policy.toolResultDelivery = .nextRun          // AG-UI runs end with the app's calls pending
/// let client = ChatClient(backend: agent, policy: policy)
/// ```
///
/// - The store's policy must set `toolResultDelivery = .nextRun`: the app's results go back in the next run.
/// - What AG-UI does not carry (history pages, the conversation list, ratings, feedback, typing, read
///   state, tickets, uploads, the outbox, realtime events) goes to `companion`, the host's own backend;
///   without one those calls fail `UNSUPPORTED` (typing and read state do nothing), history is empty, and
///   the realtime connection opens and stays quiet.
/// - The agent's view of each conversation (`thread(for:)`) lives in this object: a host that restarts
///   restores it with `restore(_:for:)` (from the messages it stored), or the agent sees a new thread.
/// - Approvals go back as `{"approved": true}` or `{"approved": false, "reason": …}` (Pydantic AI's shape);
///   a question's answer as its value; a declined question as a `cancelled` resume entry.
public final class AGUIBackend: CompanionBackend {
  /// The limits and timeouts applied to what the agent sends.
  public var policy: ChatPolicy { transport.policy }
  /// What the streams carry besides replies (custom and raw events, activity, steps, warnings), in order.
  /// Delivered asynchronously; the newest 1,024 are kept while nobody reads.
  public let sideEvents: AsyncStream<AGUISideEvent>

  private let transport: HTTPTransport
  private let tools: [AGUITool]
  private let context: [(description: String, value: String)]
  private let forwardedProps: JSONValue
  /// The host's backend for what AG-UI does not carry.
  public let companion: (any ChatBackend)?
  private let makeID: @Sendable () -> String
  private let threads = StateLock<[ConversationID: AGUIThread]>([:])
  private let sideEventSink: AsyncStream<AGUISideEvent>.Continuation

  /// A backend for the agent at `endpoint` (`https`, or `http` to this machine only).
  ///
  /// - Parameters:
  ///   - endpoint: the agent's run URL, posted a `RunAgentInput` for each run.
  ///   - tools: the app's tools, advertised on every run; a call to one is app-run.
  ///   - context: grounding strings sent with every run.
  ///   - forwardedProps: the host's own payload, sent with every run untouched.
  ///   - companion: the backend for what AG-UI does not carry.
  ///   - policy: the transport's timeouts and limits.
  ///   - now: the device's clock, for the time of answers (AG-UI sends none).
  ///   - makeID: new thread and run IDs (random UUIDs unless a test gives its own).
  ///   - token: the bearer token for each request, sent to `endpoint`'s origin only.
  /// - Throws: `INVALID_CONFIGURATION` for a policy that cannot work.
  public init(
    endpoint: URL, tools: [AGUITool] = [], context: [(description: String, value: String)] = [],
    forwardedProps: JSONValue = .object([:]), companion: (any ChatBackend)? = nil, policy: ChatPolicy = ChatPolicy(),
    now: @escaping @Sendable () -> Date = { Date() },
    makeID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() },
    token: @escaping @Sendable () async throws -> String? = { nil }
  ) throws(ChatError) {
    transport = try HTTPTransport(baseURL: endpoint, policy: policy, now: now, token: token)
    self.tools = tools
    self.context = context
    self.forwardedProps = forwardedProps
    self.companion = companion
    self.makeID = makeID
    (sideEvents, sideEventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1024))
  }

  deinit { sideEventSink.finish() }

  /// The agent's view of `conversation`: its history as sent on the next run, and its state.
  public func thread(for conversation: ConversationID) -> AGUIThread? { threads.withLock { $0[conversation] } }

  /// Sets the agent's view of `conversation` (after a restart, from what the host stored).
  public func restore(_ thread: AGUIThread, for conversation: ConversationID) {
    threads.withLock { $0[conversation] = thread }
  }

  // MARK: - Runs

  public func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let conversation = payload.conversationID ?? ConversationID(rawValue: makeID())
    let user = Message(
      clientID: payload.clientID, role: .user, text: payload.text, createdAt: transport.now(), delivery: .sent,
      attachments: payload.attachments)
    let (thread, abandoned) = threads.withLock { threads in
      var thread = threads[conversation] ?? AGUIThread()
      // A new message gives up what the last run left waiting (the store has cancelled those waits).
      let abandoned = thread.abandonWaits()
      thread.upsert(AGUIThread.userMessage(user))  // a retry replaces it in place
      threads[conversation] = thread
      return (thread, abandoned)
    }
    return run(
      in: conversation, on: thread, userMessage: user, parentRunID: abandoned.parentRunID, resume: abandoned.resume)
  }

  public func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    guard var thread = threads.withLock({ $0[conversation]?.prefix(through: prompt.rawValue) }) else {
      return Self.failing(ChatError(.unknownMessage, "The agent's thread does not hold message \(prompt.rawValue)."))
    }
    // The answer being replaced goes, with whatever it left waiting.
    thread.pendingInterrupts = []
    thread.pendingToolCallIDs = []
    return run(in: conversation, on: thread, userMessage: nil)
  }

  public func continueRun(_ continuation: RunContinuation, in conversation: ConversationID)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    guard var thread = threads.withLock({ $0[conversation] }) else {
      return Self.failing(ChatError(.unknownMessage, "The agent's thread for \(conversation.rawValue) is gone."))
    }
    for call in continuation.toolResults {
      if let message = AGUIThread.toolMessage(answering: call) { thread.upsert(message) }
    }
    let answers = Dictionary(continuation.inputAnswers.map { ($0.id.rawValue, $0) }) { first, _ in first }
    var resume: [JSONValue] = []
    for interrupt in thread.pendingInterrupts {
      // Omission is not abandonment: every interrupt is answered, or nothing is sent.
      guard let request = answers[interrupt.id], let entry = AGUIThread.resumeEntry(request) else {
        return Self.failing(ChatError(.invalidAction, "Interrupt \(interrupt.id) has no answer; nothing was sent."))
      }
      resume.append(entry)
    }
    let parent = resume.isEmpty ? nil : thread.lastRunID
    thread.pendingInterrupts = []
    return run(in: conversation, on: thread, userMessage: nil, parentRunID: parent, resume: resume)
  }

  private func run(
    in conversation: ConversationID, on thread: AGUIThread, userMessage: Message?, parentRunID: String? = nil,
    resume: [JSONValue] = []
  ) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let runID = makeID()
    var thread = thread
    thread.lastRunID = runID
    let input = RunAgentInput(
      threadID: conversation.rawValue, runID: runID, parentRunID: parentRunID, thread: thread, tools: tools,
      context: context, forwardedProps: forwardedProps, resume: resume)
    let mapper = AGUIReplyMapper(
      runID: runID, conversationID: conversation, thread: thread, userMessage: userMessage,
      appTools: Set(tools.map(\.name)), receivedAt: transport.now())
    return transport.eventStream(.post("", body: input.json(), key: runID), mapper, opened: nil) {
      mapper, event, events throws(ChatError) in
      do throws(ChatError) {
        try mapper.map(event, into: &events)
        if !mapper.sideEvents.isEmpty { self.publish(mapper.takeSideEvents()) }
      } catch {
        self.keep(mapper.thread, for: conversation)
        self.publish(mapper.takeSideEvents())
        throw error
      }
    } end: { mapper throws(ChatError) in
      defer {
        self.keep(mapper.thread, for: conversation)
        self.publish(mapper.takeSideEvents())
      }
      return try mapper.finish()
    } failed: { mapper, error in
      self.keep(mapper.thread, for: conversation)
      self.publish(mapper.takeSideEvents())
      return mapper.failure(ofTransport: error)
    }
  }

  /// Stores a run's thread. A message written meanwhile by a newer send (a run that overlapped this one) is
  /// kept, after this run's messages.
  private func keep(_ thread: AGUIThread, for conversation: ConversationID) {
    threads.withLock { threads in
      var merged = thread
      for message in threads[conversation]?.messages ?? [] {
        if let id = message.field("id")?.stringValue, merged.message(id) == nil { merged.upsert(message) }
      }
      threads[conversation] = merged
    }
  }

  private func publish(_ events: [AGUISideEvent]) {
    for event in events { sideEventSink.yield(event) }
  }
}
