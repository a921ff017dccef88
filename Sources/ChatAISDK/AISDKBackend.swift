public import ChatHTTP
public import ConversationState
public import ConversationStore
public import Foundation

/// A `ChatBackend` for a server that speaks the AI SDK's UI message stream (v1), the protocol of `useChat`
/// (AI SDK 5 and 6): Next.js route handlers with `toUIMessageStreamResponse()`, Pydantic AI's
/// `VercelAIAdapter`, and the agent servers that mirror them.
///
/// Each send, regeneration and continuation is one POST to `endpoint` with the chat's ID and the
/// conversation as `contextPolicy` cuts it (the newest 100 messages by default) as UI messages (`{id, messages, trigger, messageId?}`, plus the host's `body`), answered by the
/// stream that is the reply (`AISDKReplyMapper` says how each chunk maps). The transport is `ChatHTTP`'s:
/// the same timeouts, limits, origin-bound credential and redirect rules as `HTTPChatBackend`.
///
/// ```swift
/// let agent = try AISDKBackend(
///   endpoint: URL(string: "https://app.example.com/api/chat")!, appTools: ["pick_color"],
///   token: { await tokens.current() })
/// let client = ChatClient(backend: agent)
/// ```
///
/// - An app-run call's result, like an
///   approval's answer, goes back as the assistant message resent with it (`continueRun`), and the reply
///   continues in the same row.
/// - Each request's `messages` are built from the conversation the store shows and stores (`AgentContext`,
///   cut by `contextPolicy`; `AISDKChat(context:)` says how): this object keeps no chat, so a relaunched
///   app, or a second client on the same storage, sends what the user sees. What a tool part held that
///   `ToolCall` does not (the provider's metadata about the call and its result, AI SDK 7's `toolMetadata`,
///   a title, a provider-run or dynamic tool) is kept with the answer (`Message.providerMetadata["ai-sdk"]`)
///   and goes back with the call, so a model that signs its own calls gets its signatures back.
/// - What the protocol does not carry (history pages, the conversation list, ratings, feedback, typing,
///   read state, tickets, uploads, the outbox, realtime events) goes to `companion` (`CompanionBackend`).
public final class AISDKBackend: CompanionBackend, AgentBackend {
  /// The limits and timeouts applied to what the server sends.
  public var policy: ChatPolicy { streams.transport.policy }
  /// The host's backend for what the protocol does not carry.
  public let companion: (any ChatBackend)?
  /// How much of the conversation each request carries (the newest 100 messages unless the host says).
  public let contextPolicy: AgentContextPolicy
  /// The app's results go back as the assistant message resent with them, in the next request.
  public var toolResultDelivery: ToolResultDelivery { .nextRun }
  /// What the streams carry besides replies (transient data, metadata, skipped chunks), in order.
  /// Delivered asynchronously; the newest 1,024 are kept while nobody reads.
  public var sideEvents: AsyncStream<AISDKSideEvent> { streams.sideEvents }

  private let streams: AgentReplyStreams<AISDKSideEvent>
  private let appTools: Set<String>
  private let body: [String: JSONValue]
  private let makeID: @Sendable () -> String

  /// A backend for the chat route at `endpoint` (`https`, or `http` to this machine only).
  ///
  /// - Parameters:
  ///   - endpoint: the chat route (`useChat`'s `api`), posted each request; its resume stream is
  ///     `{endpoint}/{chatId}/stream`.
  ///   - appTools: the names of the tools the app runs itself (`onToolCall` in `useChat`); a call to any
  ///     other tool is the server's.
  ///   - body: the host's own fields, sent with every request (the protocol's own fields win).
  ///   - companion: the backend for what the protocol does not carry.
  ///   - contextPolicy: how much of the conversation each request carries.
  ///   - policy: the transport's timeouts and limits.
  ///   - now: the device's clock, for the time of answers (the protocol sends none).
  ///   - makeID: new chat IDs (random UUIDs unless a test gives its own).
  ///   - token: the bearer token for each request, sent to `endpoint`'s origin only.
  /// - Throws: `INVALID_CONFIGURATION` for a policy or context policy that cannot work (`ChatPolicy.validate()`,
  ///   `AgentContextPolicy.validate()`).
  public init(
    endpoint: URL, appTools: Set<String> = [], body: [String: JSONValue] = [:], companion: (any ChatBackend)? = nil,
    contextPolicy: AgentContextPolicy = .standard, policy: ChatPolicy = ChatPolicy(),
    now: @escaping @Sendable () -> Date = { Date() },
    makeID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() },
    token: @escaping @Sendable () async throws -> String? = { nil }
  ) throws(ChatError) {
    streams = AgentReplyStreams(
      transport: try HTTPTransport(
        baseURL: endpoint, policy: policy, errorCodes: .fromStatus, now: now, token: token))
    try contextPolicy.validate()
    self.contextPolicy = contextPolicy
    self.appTools = appTools
    self.body = body
    self.companion = companion
    self.makeID = makeID
  }

  deinit { streams.finish() }

  // MARK: - Requests

  /// One run for the user's message after `context` (see the type's notes).
  public func send(_ payload: SendPayload, context: AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let conversation = payload.conversationID ?? ConversationID(rawValue: makeID())
    let user = AgentContext.userMessage(payload, at: streams.transport.now())
    var chat = AISDKChat(context: context)
    chat.upsert(AISDKChat.userMessage(user))
    return request(in: conversation, chat: chat, trigger: "submit-message", messageID: nil, userMessage: user)
  }

  /// One run for a new answer to `prompt`, the last message of `context`; `UNKNOWN_MESSAGE` when it is not.
  public func regenerate(
    in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?, context: AgentContext
  ) -> AsyncThrowingStream<ReplyEvent, any Error> {
    do throws(ChatError) { try context.checkEnds(with: prompt) } catch { return Self.failing(error) }
    return request(
      in: conversation, chat: AISDKChat(context: context), trigger: "regenerate-message", messageID: answer?.rawValue)
  }

  /// One run that continues `continuation.message` after `context`, carrying its outcomes and answers.
  public func continueRun(_ continuation: RunContinuation, in conversation: ConversationID, context: AgentContext)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    var chat = AISDKChat(context: context)
    var waited = continuation.message
    if let answer = continuation.answer { waited.serverID = answer }
    chat.upsert(AISDKChat.uiMessage(waited))
    let answer: String
    do throws(ChatError) {
      answer = try chat.answer(continuation)
    } catch {
      return Self.failing(error)
    }
    return request(in: conversation, chat: chat, trigger: "submit-message", messageID: answer, continuing: answer)
  }

  /// Resumes a reply through the protocol's resume endpoint, `GET {endpoint}/{chatId}/stream`: `204` (no
  /// active stream) is `NOT_RESUMABLE`; a stream is the reply replayed from its start, whose chunks up to the
  /// cursor are mapped again but not passed on (`EventNumbering`), so the reply goes on where it was. The
  /// replay is mapped against `context` (the chat before the answer), the same after a relaunch.
  public func resumeReply(from cursor: ReplyCursor, context: AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    let conversation = cursor.conversationID
    let answer = cursor.replyID?.rawValue
    let original = ReplyRequest(
      key: answer.flatMap { $0.hasPrefix("aisdk-") ? String($0.dropFirst(6)) : nil } ?? makeID(),
      chat: AISDKChat(context: context).removing(answer), userMessage: nil, continuing: nil, answer: answer)
    let path =
      conversation.rawValue.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? conversation.rawValue
    return stream(
      .get("\(path)/stream"), original, in: conversation, numbering: .counting(resumingAfter: cursor.position))
  }

  private func request(
    in conversation: ConversationID, chat: AISDKChat, trigger: String, messageID: String?, userMessage: Message? = nil,
    continuing: String? = nil
  ) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let key = makeID()
    var fields = body
    fields["id"] = .string(conversation.rawValue)
    fields["messages"] = .array(chat.messages)
    fields["trigger"] = .string(trigger)
    if let messageID { fields["messageId"] = .string(messageID) }
    let request = ReplyRequest(
      key: key, chat: chat, userMessage: userMessage, continuing: continuing, answer: continuing)
    return stream(
      .post("", body: JSONValue.object(fields).encoded(), key: key), request, in: conversation,
      numbering: .counting())
  }

  /// A reply's stream: the first, or a resume's replay (`numbering` then skips what was applied).
  private func stream(
    _ endpoint: Endpoint, _ request: ReplyRequest, in conversation: ConversationID, numbering: EventNumbering
  ) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let mapper = AISDKReplyMapper(
      key: request.key, conversationID: conversation, chat: request.chat, userMessage: request.userMessage,
      continuing: request.continuing, appTools: appTools, receivedAt: streams.transport.now())
    let nothing = ChatError(.notResumable, "The chat route has no active stream for \(conversation.rawValue) (204).")
    return streams.stream(endpoint, mapper, numbering: numbering, noContent: nothing)
  }
}

/// One request of a chat as it began: what its stream is mapped with, and a resume's replay too.
private struct ReplyRequest: Sendable {
  var key: String
  /// The chat as the request sent it, before the answer.
  var chat: AISDKChat
  var userMessage: Message?
  var continuing: String?
  /// The answer's message ID when known before the stream names it (a continuation's).
  var answer: String?
}
