public import ChatHTTP
public import ConversationState
public import ConversationStore
public import Foundation
import ServerSentEvents

/// A `ChatBackend` for an OpenAI-compatible server: OpenAI itself, or any server that speaks its streaming
/// Chat Completions (vLLM, Ollama, llama.cpp, LiteLLM, OpenRouter…) or Responses API.
///
/// Each send, regeneration and continuation is one streaming request to `baseURL` + `/chat/completions` or
/// `/responses` with the conversation the store shows and stores (`AgentContext`, cut by `contextPolicy`;
/// `OpenAITranscript(context:api:)` says how): the API keeps none, and neither does this object. The
/// app's tools are offered on every request, and a call to one is app-run: its result goes back on the next
/// request and the answer continues in the same row. The transport is `ChatHTTP`'s: the same timeouts (a stalled
/// stream hits `ChatPolicy.idleTimeout`), limits, origin-bound credential and redirect rules as
/// `HTTPChatBackend`; a 429's `Retry-After` is honoured by the store's backoff.
///
/// ```swift
/// let model = try OpenAIBackend(
///   baseURL: URL(string: "https://api.openai.com/v1")!, api: .responses, model: "gpt-5-mini",
///   instructions: "You are a support agent for Example Inc.",
///   tools: [OpenAITool(name: "order_status", description: "The status of an order")],
///   token: { try await keychain.apiKey() })
/// let client = ChatClient(backend: model)
/// ```
///
/// - A call's result goes back on the next request (`toolResultDelivery` is `.nextRun`).
/// - Errors: HTTP failures take their code from the status (429 `RATE_LIMITED`, 401 `UNAUTHORIZED`), with
///   OpenAI's message; an error inside the stream is `PROVIDER_ERROR`; a stream that ends early is
///   `INCOMPLETE_STREAM` and the answer `truncated`, with its text kept.
/// - What the API does not carry (history pages, the conversation list, ratings…) goes to `companion`.
/// - A Responses answer keeps its output items (reasoning with its encrypted content, function calls) in
///   `Message.providerMetadata`, and they go back as the server sent them; after a relaunch too. A message
///   whose stored items cannot be read is sent as its text and calls, and the request reports it first
///   (`ReplyEvent.skipped`: the store's `backgroundError`, `INVALID_RESPONSE` naming the message).
/// - Resuming: a Responses request the host makes a background response (`body: ["background": true]`, which
///   OpenAI also needs `store` for) numbers its events by `sequence_number`, and a reply whose connection
///   drops is resumed (`resumeReply(from:)`). Chat Completions, and Responses without `background`, cannot
///   be resumed: a dropped reply ends `truncated` with its text.
public final class OpenAIBackend: CompanionBackend, AgentBackend {
  /// The limits and timeouts applied to what the server sends.
  public var policy: ChatPolicy { streams.transport.policy }
  /// The host's backend for what the API does not carry.
  public let companion: (any ChatBackend)?
  /// The API this backend speaks.
  public let api: OpenAIAPI
  /// How much of the conversation each request carries (the newest 100 messages unless the host says).
  public let contextPolicy: AgentContextPolicy
  /// A call to one of the app's tools ends the response; its result goes back on the next request.
  public var toolResultDelivery: ToolResultDelivery { .nextRun }

  private let streams: AgentReplyStreams<Never>
  private let model: String
  private let instructions: String?
  private let tools: [OpenAITool]
  private let body: [String: JSONValue]
  private let makeID: @Sendable () -> String

  /// Whether replies are background responses, which can be resumed.
  public var isResumable: Bool { api == .responses && body["background"] == true }

  /// A backend for the server at `baseURL` (its API root, such as `https://api.openai.com/v1`; `https`, or
  /// `http` to this machine only).
  ///
  /// - Parameters:
  ///   - baseURL: the API root; requests go to `chat/completions` or `responses` under it.
  ///   - api: Chat Completions or Responses.
  ///   - model: the model to ask.
  ///   - instructions: the system prompt (`system` message; Responses `instructions`).
  ///   - tools: the app's functions, offered on every request.
  ///   - body: the host's own fields for every request (`temperature`, `reasoning`, `store`…); the
  ///     protocol's own fields win.
  ///   - companion: the backend for what the API does not carry.
  ///   - contextPolicy: how much of the conversation each request carries.
  ///   - policy: the transport's timeouts and limits.
  ///   - now: the device's clock, for the time of answers.
  ///   - makeID: new conversation and request IDs (random UUIDs unless a test gives its own).
  ///   - token: the API key (a bearer token) for each request, sent to `baseURL`'s origin only.
  /// - Throws: `INVALID_CONFIGURATION` for a policy or context policy that cannot work (`ChatPolicy.validate()`,
  ///   `AgentContextPolicy.validate()`).
  public init(
    baseURL: URL, api: OpenAIAPI = .chatCompletions, model: String, instructions: String? = nil,
    tools: [OpenAITool] = [], body: [String: JSONValue] = [:], companion: (any ChatBackend)? = nil,
    contextPolicy: AgentContextPolicy = .standard, policy: ChatPolicy = ChatPolicy(),
    now: @escaping @Sendable () -> Date = { Date() },
    makeID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() },
    token: @escaping @Sendable () async throws -> String? = { nil }
  ) throws(ChatError) {
    streams = AgentReplyStreams(
      transport: try HTTPTransport(
        baseURL: baseURL, policy: policy, errorCodes: .fromStatus, now: now, token: token))
    try contextPolicy.validate()
    self.contextPolicy = contextPolicy
    self.api = api
    self.model = model
    self.instructions = instructions
    self.tools = tools
    self.body = body
    self.companion = companion
    self.makeID = makeID
  }

  // MARK: - Requests

  /// One run for the user's message after `context` (see the type's notes).
  public func send(_ payload: SendPayload, context: AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let conversation = payload.conversationID ?? ConversationID(rawValue: makeID())
    let user = AgentContext.userMessage(payload, at: streams.transport.now())
    var transcript = OpenAITranscript(context: context, api: api)
    transcript.set([api.userItem(user)], for: user.clientID.rawValue)
    return request(in: conversation, transcript: transcript, userMessage: user)
  }

  /// One run for a new answer to `prompt`, the last message of `context`; `UNKNOWN_MESSAGE` when it is not.
  public func regenerate(
    in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?, context: AgentContext
  ) -> AsyncThrowingStream<ReplyEvent, any Error> {
    do throws(ChatError) { try context.checkEnds(with: prompt) } catch { return Self.failing(error) }
    return request(in: conversation, transcript: OpenAITranscript(context: context, api: api))
  }

  /// One run that continues `continuation.message` after `context`, carrying its outcomes and answers.
  public func continueRun(_ continuation: RunContinuation, in conversation: ConversationID, context: AgentContext)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    guard continuation.inputAnswers.isEmpty else {
      return Self.failing(ChatError(.invalidAction, "OpenAI's APIs ask no questions; nothing was sent."))
    }
    for call in continuation.toolResults where api.toolOutputItem(call) == nil {
      return Self.failing(
        ChatError(.invalidAction, "Tool call \(call.id.rawValue) has no outcome; nothing was sent."))
    }
    var transcript = OpenAITranscript(context: context, api: api)
    var waited = continuation.message
    for call in continuation.toolResults {
      if let index = waited.toolCalls.firstIndex(where: { $0.id == call.id }) { waited.toolCalls[index] = call }
    }
    let items = api.items(of: waited, goesOn: false)
    transcript.set(items.items, for: waited.clientID.rawValue)
    // The answer's stored items so far go on before the continuation's own, so none is lost.
    let earlier = api == .responses ? items.items : []
    return request(in: conversation, transcript: transcript, earlierOutput: earlier)
  }

  /// Resumes a background response (see the type's notes) through `GET responses/{id}?stream=true`, the
  /// reply's server ID being the response's ID. It asks for the whole stream again rather than
  /// `starting_after` the cursor: the events after it refer to output items (a message, a function call)
  /// that opened before it, which the mapper must have read. The events through the cursor are mapped again
  /// and dropped (`EventNumbering.sequenceNumbers`), so nothing shows twice; after a relaunch too.
  ///
  /// `NOT_RESUMABLE` at once when replies are not background responses, or the reply has no response ID or
  /// no sequence number yet. A response the server no longer has is its 404.
  public func resumeReply(from cursor: ReplyCursor, context: AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    guard isResumable else {
      return Self.failing(
        ChatError(
          .notResumable, "Only a background response (Responses API, background: true) can be resumed."))
    }
    guard let response = cursor.replyID, case .sequence = cursor.position else {
      return Self.failing(ChatError(.notResumable, "The reply has no response ID or sequence number to resume from."))
    }
    let conversation = cursor.conversationID
    let path = response.rawValue.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? response.rawValue
    let mapper = ResponsesMapper(
      key: makeID(), conversationID: conversation, transcript: OpenAITranscript(context: context, api: api),
      receivedAt: streams.transport.now())
    return streams.stream(
      .get("responses/\(path)", query: ["stream": "true"]), mapper,
      numbering: .sequenceNumbers(resumingAfter: cursor.position))
  }

  private func request(
    in conversation: ConversationID, transcript: OpenAITranscript, userMessage: Message? = nil,
    earlierOutput: [JSONValue] = []
  ) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let key = makeID()
    var fields = body
    fields["model"] = .string(model)
    fields["stream"] = true
    if !tools.isEmpty { fields["tools"] = api.toolList(tools) }
    let receivedAt = streams.transport.now()
    switch api {
    case .chatCompletions:
      let system: [JSONValue] = instructions.map { [["role": "system", "content": .string($0)]] } ?? []
      fields["messages"] = .array(system + transcript.items)
      fields["stream_options"] = ["include_usage": true]
      let mapper = ChatCompletionsMapper(
        key: key, conversationID: conversation, transcript: transcript, userMessage: userMessage,
        receivedAt: receivedAt)
      return streams.stream(
        .post("chat/completions", body: JSONValue.object(fields).encoded(), key: key), mapper,
        skipped: transcript.unreadable)
    case .responses:
      fields["input"] = .array(transcript.items)
      if let instructions { fields["instructions"] = .string(instructions) }
      let mapper = ResponsesMapper(
        key: key, conversationID: conversation, transcript: transcript, userMessage: userMessage,
        earlierOutput: earlierOutput, receivedAt: receivedAt)
      return streams.stream(
        .post("responses", body: JSONValue.object(fields).encoded(), key: key), mapper,
        numbering: isResumable ? .sequenceNumbers() : nil, skipped: transcript.unreadable)
    }
  }

}
