public import ChatHTTP
public import ConversationState
public import ConversationStore
public import Foundation
import ServerSentEvents

/// A `ChatBackend` for an OpenAI-compatible server: OpenAI itself, or any server that speaks its streaming
/// Chat Completions (vLLM, Ollama, llama.cpp, LiteLLM, OpenRouter…) or Responses API.
///
/// Each send, regeneration and continuation is one streaming request to `baseURL` + `/chat/completions` or
/// `/responses` with the whole conversation (`transcript(for:)`): the API keeps none here. The app's tools
/// are offered on every request, and a call to one is app-run: its result goes back on the next request
/// and the answer continues in the same row. The transport is `ChatHTTP`'s: the same timeouts (a stalled
/// stream hits `ChatPolicy.idleTimeout`), limits, origin-bound credential and redirect rules as
/// `HTTPChatBackend`; a 429's `Retry-After` is honoured by the store's backoff.
///
/// ```swift
/// let model = try OpenAIBackend(
///   baseURL: URL(string: "https://api.openai.com/v1")!, api: .responses, model: "gpt-5-mini",
///   instructions: "You are a support agent for Example Inc.",
///   tools: [OpenAITool(name: "order_status", description: "The status of an order")]
/// ) { try await keychain.apiKey() }
/// var policy = ChatPolicy()
/// policy.toolResultDelivery = .nextRun          // results go back on the next request
/// let client = ChatClient(backend: model, policy: policy)
/// ```
///
/// - The store's policy must set `toolResultDelivery = .nextRun`.
/// - Errors: HTTP failures take their code from the status (429 `RATE_LIMITED`, 401 `UNAUTHORIZED`), with
///   OpenAI's message; an error inside the stream is `PROVIDER_ERROR`; a stream that ends early is
///   `INCOMPLETE_STREAM` and the answer `truncated`, with its text kept.
/// - What the API does not carry (history pages, the conversation list, ratings…) goes to `companion`.
/// - A host that restarts restores each conversation's transcript with `restore(_:for:)`.
public final class OpenAIBackend: CompanionBackend {
  /// The limits and timeouts applied to what the server sends.
  public var policy: ChatPolicy { transport.policy }
  /// The host's backend for what the API does not carry.
  public let companion: (any ChatBackend)?
  /// The API this backend speaks.
  public let api: OpenAIAPI

  private let transport: HTTPTransport
  private let model: String
  private let instructions: String?
  private let tools: [OpenAITool]
  private let body: [String: JSONValue]
  private let makeID: @Sendable () -> String
  private let transcripts = StateLock<[ConversationID: OpenAITranscript]>([:])

  /// A backend for the server at `baseURL` (its API root, such as `https://api.openai.com/v1`; `https`, or
  /// `http` to this machine only).
  ///
  /// - Parameters:
  ///   - api: Chat Completions or Responses.
  ///   - model: the model to ask.
  ///   - instructions: the system prompt (`system` message; Responses `instructions`).
  ///   - tools: the app's functions, offered on every request.
  ///   - body: the host's own fields for every request (`temperature`, `reasoning`, `store`…); the
  ///     protocol's own fields win.
  ///   - companion: the backend for what the API does not carry.
  ///   - policy: the transport's timeouts and limits.
  ///   - now: the device's clock, for the time of answers.
  ///   - makeID: new conversation and request IDs (random UUIDs unless a test gives its own).
  ///   - token: the API key (a bearer token) for each request, sent to `baseURL`'s origin only.
  /// - Throws: `INVALID_CONFIGURATION` for a policy that cannot work.
  public init(
    baseURL: URL, api: OpenAIAPI = .chatCompletions, model: String, instructions: String? = nil,
    tools: [OpenAITool] = [], body: [String: JSONValue] = [:], companion: (any ChatBackend)? = nil,
    policy: ChatPolicy = ChatPolicy(), now: @escaping @Sendable () -> Date = { Date() },
    makeID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() },
    token: @escaping @Sendable () async throws -> String? = { nil }
  ) throws(ChatError) {
    transport = try HTTPTransport(baseURL: baseURL, policy: policy, errorCodes: .fromStatus, now: now, token: token)
    self.api = api
    self.model = model
    self.instructions = instructions
    self.tools = tools
    self.body = body
    self.companion = companion
    self.makeID = makeID
  }

  /// What the model is sent of `conversation` on the next request.
  public func transcript(for conversation: ConversationID) -> OpenAITranscript? {
    transcripts.withLock { $0[conversation] }
  }

  /// Sets what the model is sent of `conversation` (after a restart, from what the host stored).
  public func restore(_ transcript: OpenAITranscript, for conversation: ConversationID) {
    transcripts.withLock { $0[conversation] = transcript }
  }

  // MARK: - Requests

  public func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let conversation = payload.conversationID ?? ConversationID(rawValue: makeID())
    let user = Message(
      clientID: payload.clientID, role: .user, text: payload.text, createdAt: transport.now(), delivery: .sent,
      attachments: payload.attachments)
    let transcript = transcripts.withLock { transcripts in
      var transcript = transcripts[conversation] ?? OpenAITranscript()
      transcript.set([api.userItem(user)], for: user.clientID.rawValue)  // a retry replaces it in place
      transcripts[conversation] = transcript
      return transcript
    }
    return request(in: conversation, transcript: transcript, userMessage: user)
  }

  public func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    guard let transcript = transcripts.withLock({ $0[conversation]?.prefix(through: prompt.rawValue) }) else {
      return Self.failing(ChatError(.unknownMessage, "The transcript does not hold message \(prompt.rawValue)."))
    }
    return request(in: conversation, transcript: transcript)
  }

  public func continueRun(_ continuation: RunContinuation, in conversation: ConversationID)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    guard continuation.inputAnswers.isEmpty else {
      return Self.failing(ChatError(.invalidAction, "OpenAI's APIs ask no questions; nothing was sent."))
    }
    guard var transcript = transcripts.withLock({ $0[conversation] }), let answer = continuation.answer else {
      return Self.failing(ChatError(.unknownMessage, "The transcript for \(conversation.rawValue) is gone."))
    }
    var outputs: [JSONValue] = []
    for call in continuation.toolResults {
      guard let item = api.toolOutputItem(call) else {
        return Self.failing(
          ChatError(.invalidAction, "Tool call \(call.id.rawValue) has no outcome; nothing was sent."))
      }
      outputs.append(item)
    }
    transcript.append(outputs, to: answer.rawValue)
    return request(in: conversation, transcript: transcript)
  }

  private func request(in conversation: ConversationID, transcript: OpenAITranscript, userMessage: Message? = nil)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    let key = makeID()
    var fields = body
    fields["model"] = .string(model)
    fields["stream"] = true
    if !tools.isEmpty { fields["tools"] = api.toolList(tools) }
    let receivedAt = transport.now()
    switch api {
    case .chatCompletions:
      let system: [JSONValue] = instructions.map { [["role": "system", "content": .string($0)]] } ?? []
      fields["messages"] = .array(system + transcript.items)
      fields["stream_options"] = ["include_usage": true]
      let mapper = ChatCompletionsMapper(
        key: key, conversationID: conversation, transcript: transcript, userMessage: userMessage,
        receivedAt: receivedAt)
      return stream("chat/completions", fields, key: key, mapper, for: conversation)
    case .responses:
      fields["input"] = .array(transcript.items)
      if let instructions { fields["instructions"] = .string(instructions) }
      let mapper = ResponsesMapper(
        key: key, conversationID: conversation, transcript: transcript, userMessage: userMessage,
        receivedAt: receivedAt)
      return stream("responses", fields, key: key, mapper, for: conversation)
    }
  }

  private func stream<Mapper: OpenAIStreamMapper>(
    _ path: String, _ fields: [String: JSONValue], key: String, _ mapper: Mapper, for conversation: ConversationID
  ) -> AsyncThrowingStream<ReplyEvent, any Error> {
    transport.eventStream(.post(path, body: JSONValue.object(fields).encoded(), key: key), mapper, opened: nil) {
      mapper, event, events throws(ChatError) in
      do throws(ChatError) {
        try mapper.map(event, into: &events)
      } catch {
        self.keep(mapper.transcript, for: conversation)
        throw error
      }
    } end: { mapper throws(ChatError) in
      defer { self.keep(mapper.transcript, for: conversation) }
      return try mapper.finish()
    } failed: { mapper, error in
      let failure = mapper.failure(ofTransport: error)
      self.keep(mapper.transcript, for: conversation)
      return failure
    }
  }

  /// Stores a request's transcript. Items written meanwhile by a newer send (a request that overlapped
  /// this one) are kept, after this request's.
  private func keep(_ transcript: OpenAITranscript, for conversation: ConversationID) {
    transcripts.withLock { transcripts in
      var merged = transcript
      let known = Set(merged.entries.map(\.messageID))
      for entry in transcripts[conversation]?.entries ?? [] where !known.contains(entry.messageID) {
        merged.entries.append(entry)
      }
      transcripts[conversation] = merged
    }
  }
}
