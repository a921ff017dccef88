public import ChatHTTP
public import ConversationState
public import ConversationStore
public import Foundation

/// A `ChatBackend` for an agent that speaks AG-UI 1.0 over HTTP and Server-Sent Events (Pydantic AI,
/// LangGraph, Mastra, CrewAI, Google ADK, Microsoft Agent Framework, AWS Strands, CopilotKit runtimes…).
///
/// Each send, regeneration and continuation is one run: a POST of `RunAgentInput` (the conversation as
/// `contextPolicy` cuts it, the newest 100 messages by default; the app's tools, the shared state,
/// `resume` answers) to `endpoint`, whose event stream is the reply
/// (`AGUIReplyMapper` says how each event maps). The transport is `ChatHTTP`'s: the same timeouts, limits,
/// origin-bound credential and redirect rules as `HTTPChatBackend`.
///
/// ```swift
/// let agent = try AGUIBackend(
///   endpoint: URL(string: "https://agents.example.com/support")!,
///   tools: [AGUITool(name: "pick_color", description: "Ask the user for a color")],
///   companion: try HTTPChatBackend(baseURL: historyServer) { await tokens.current() },
///   token: { await tokens.current() })
/// let client = ChatClient(backend: agent)
/// ```
///
/// - The app's results go back in the next run (`toolResultDelivery` is `.nextRun`, whatever the store's
///   policy says).
/// - What AG-UI does not carry (history pages, the conversation list, ratings, feedback, typing, read
///   state, tickets, uploads, the outbox, realtime events) goes to `companion`, the host's own backend;
///   without one those calls fail `UNSUPPORTED` (typing and read state do nothing), history is empty, and
///   the realtime connection opens and stays quiet.
/// - Each run's `messages` and `state` are built from the conversation the store shows and stores
///   (`AgentContext`, cut by `contextPolicy`): this object keeps nothing between runs, so a relaunched app,
///   or a second client on the same storage, sends the agent what the user sees. What a run waits on (its
///   interrupts, the run to resume) is kept on the answer (`Message.providerMetadata`), so an approval asked
///   before a relaunch is answered after it.
/// - Approvals go back as `{"approved": true}` or `{"approved": false, "reason": …}` (Pydantic AI's shape);
///   a question's answer as its value; a declined question as a `cancelled` resume entry.
public final class AGUIBackend: CompanionBackend, AgentBackend {
  /// The limits and timeouts applied to what the agent sends.
  public var policy: ChatPolicy { streams.transport.policy }
  /// What the streams carry besides replies (custom and raw events, activity, steps, warnings), in order.
  /// Delivered asynchronously; the newest 1,024 are kept while nobody reads.
  public var sideEvents: AsyncStream<AGUISideEvent> { streams.sideEvents }

  private let streams: AgentReplyStreams<AGUISideEvent>
  private let tools: [AGUITool]
  private let context: [(description: String, value: String)]
  private let forwardedProps: JSONValue
  /// The host's backend for what AG-UI does not carry.
  public let companion: (any ChatBackend)?
  /// How much of the conversation each run carries (the newest 100 messages unless the host says).
  public let contextPolicy: AgentContextPolicy
  /// AG-UI runs end with the app's calls pending; their results go in the next run.
  public var toolResultDelivery: ToolResultDelivery { .nextRun }
  private let makeID: @Sendable () -> String

  /// A backend for the agent at `endpoint` (`https`, or `http` to this machine only).
  ///
  /// - Parameters:
  ///   - endpoint: the agent's run URL, posted a `RunAgentInput` for each run.
  ///   - tools: the app's tools, advertised on every run; a call to one is app-run.
  ///   - context: AG-UI's `context` field, grounding strings sent with every run (not the conversation:
  ///     that is `contextPolicy`).
  ///   - forwardedProps: the host's own payload, sent with every run untouched.
  ///   - companion: the backend for what AG-UI does not carry.
  ///   - contextPolicy: how much of the conversation each run carries.
  ///   - policy: the transport's timeouts and limits.
  ///   - now: the device's clock, for the time of answers (AG-UI sends none).
  ///   - makeID: new thread and run IDs (random UUIDs unless a test gives its own).
  ///   - token: the bearer token for each request, sent to `endpoint`'s origin only.
  /// - Throws: `INVALID_CONFIGURATION` for a policy or context policy that cannot work (`ChatPolicy.validate()`,
  ///   `AgentContextPolicy.validate()`).
  public init(
    endpoint: URL, tools: [AGUITool] = [], context: [(description: String, value: String)] = [],
    forwardedProps: JSONValue = .object([:]), companion: (any ChatBackend)? = nil,
    contextPolicy: AgentContextPolicy = .standard, policy: ChatPolicy = ChatPolicy(),
    now: @escaping @Sendable () -> Date = { Date() },
    makeID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() },
    token: @escaping @Sendable () async throws -> String? = { nil }
  ) throws(ChatError) {
    streams = AgentReplyStreams(
      transport: try HTTPTransport(baseURL: endpoint, policy: policy, now: now, token: token))
    try contextPolicy.validate()
    self.contextPolicy = contextPolicy
    self.tools = tools
    self.context = context
    self.forwardedProps = forwardedProps
    self.companion = companion
    self.makeID = makeID
  }

  deinit { streams.finish() }

  // MARK: - Runs

  /// One run for the user's message after `context` (see the type's notes).
  public func send(_ payload: SendPayload, context: AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let conversation = payload.conversationID ?? ConversationID(rawValue: makeID())
    let user = AgentContext.userMessage(payload, at: streams.transport.now())
    var thread = AGUIThread(context: context)
    thread.upsert(AGUIThread.userMessage(user))
    // A new message gives up the interrupts the last run left open (the store cancelled that wait): each
    // gets a `cancelled` entry, with the run it answers (omission is not abandonment).
    let last = context.messages.last { $0.role == .assistant || $0.role == .humanAgent }
    let (parent, open) = last.map(AGUIThread.run(of:)) ?? (nil, [])
    let resume = open.map { JSONValue.object(["interruptId": .string($0), "status": "cancelled"]) }
    return run(
      in: conversation, on: thread, userMessage: user, parentRunID: resume.isEmpty ? nil : parent, resume: resume)
  }

  /// One run for a new answer to `prompt`, the last message of `context`; `UNKNOWN_MESSAGE` when it is not.
  public func regenerate(
    in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?, context: AgentContext
  ) -> AsyncThrowingStream<ReplyEvent, any Error> {
    do throws(ChatError) { try context.checkEnds(with: prompt) } catch { return Self.failing(error) }
    return run(in: conversation, on: AGUIThread(context: context), userMessage: nil)
  }

  /// One run that continues `continuation.message` after `context`, carrying its outcomes and answers.
  public func continueRun(_ continuation: RunContinuation, in conversation: ConversationID, context: AgentContext)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    var thread = AGUIThread(context: context)
    for message in AGUIThread.wireMessages(continuation.message, resuming: true) { thread.upsert(message) }
    for call in continuation.toolResults {
      if let message = AGUIThread.toolMessage(answering: call) { thread.upsert(message) }
    }
    let (parentRunID, interrupts) = AGUIThread.run(of: continuation.message)
    let answers = Dictionary(continuation.inputAnswers.map { ($0.id.rawValue, $0) }) { first, _ in first }
    var resume: [JSONValue] = []
    for interrupt in interrupts {
      // Omission is not abandonment: every interrupt is answered, or nothing is sent.
      guard let request = answers[interrupt], let entry = AGUIThread.resumeEntry(request) else {
        return Self.failing(ChatError(.invalidAction, "Interrupt \(interrupt) has no answer; nothing was sent."))
      }
      resume.append(entry)
    }
    return run(
      in: conversation, on: thread, userMessage: nil, parentRunID: resume.isEmpty ? nil : parentRunID, resume: resume)
  }

  /// AG-UI has no way to resume a run's stream: `NOT_RESUMABLE`, and the reply ends `truncated` with what
  /// it had.
  public func resumeReply(from cursor: ReplyCursor, context: AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    Self.failing(ChatError(.notResumable, "AG-UI runs cannot be resumed."))
  }

  private func run(
    in conversation: ConversationID, on thread: AGUIThread, userMessage: Message?, parentRunID: String? = nil,
    resume: [JSONValue] = []
  ) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let runID = makeID()
    let input = RunAgentInput(
      threadID: conversation.rawValue, runID: runID, parentRunID: parentRunID, thread: thread, tools: tools,
      context: context, forwardedProps: forwardedProps, resume: resume)
    let mapper = AGUIReplyMapper(
      runID: runID, conversationID: conversation, thread: thread, userMessage: userMessage,
      appTools: Set(tools.map(\.name)), receivedAt: streams.transport.now())
    return streams.stream(.post("", body: input.json(), key: runID), mapper)
  }
}
