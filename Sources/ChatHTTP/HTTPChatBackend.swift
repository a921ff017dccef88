public import ConversationState
public import ConversationStore
public import Foundation
import ServerSentEvents
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A `ChatBackend` over HTTP and Server-Sent Events, for the REST + SSE protocol in `Docs/HTTP-PROTOCOL.md`
/// (both reply frame styles). Bodies are decoded as they arrive; cancelling a request (the user stops a
/// reply, a store closes) closes its connection.
///
/// ```swift
/// let tokens = TokenStore()                                  // the host's
/// let backend = HTTPChatBackend(baseURL: URL(string: "https://chat.example.com/v1")!) {
///   await tokens.current                                     // read before every request
/// }
/// let client = ChatClient(backend: backend, credentials: { try await tokens.refresh() })
/// ```
///
/// - `baseURL` must be `https`, except for `localhost`, `127.0.0.1` and `::1`; otherwise every call fails
///   with `INSECURE_URL` before anything is sent.
/// - `token` is asked before every request and sent as `Authorization: Bearer`. A 401 or 403 fails the call
///   with `UNAUTHORIZED`; the store then runs the host's credential provider and tries again.
/// - Errors: 401/403 `UNAUTHORIZED`, 404 `CONVERSATION_NOT_FOUND`, 409 `CONVERSATION_CHANGED`, 429
///   `RATE_LIMITED` with `retryAfter` from `Retry-After`, 5xx retryable; a code in the body wins.
/// - A request whose response head does not come within `requestTimeout` seconds, or a body that goes quiet
///   for `idleTimeout` seconds, fails with `TIMEOUT`.
public final class HTTPChatBackend: ChatBackend {
  /// Supplies the bearer token for the next request; nil sends none.
  public typealias TokenProvider = @Sendable () async throws -> String?

  private let baseURL: URL
  private let token: TokenProvider
  private let streaming: HTTPStreaming
  private let session: URLSession
  private let now: @Sendable () -> Date
  /// The realtime stream's last event ID, sent as `Last-Event-ID` when it reconnects.
  private let lastEventID = Mutex("")

  /// A backend for the server at `baseURL` (for example `https://chat.example.com/v1`).
  ///
  /// - Parameters:
  ///   - requestTimeout: seconds to wait for a response's head.
  ///   - idleTimeout: seconds a streaming body may go without a byte (heartbeats count).
  ///   - now: the device's clock, for times the server leaves out of a frame.
  public init(
    baseURL: URL, requestTimeout: Double = 30, idleTimeout: Double = 60,
    now: @escaping @Sendable () -> Date = { Date() }, token: @escaping TokenProvider
  ) {
    self.baseURL = baseURL
    self.token = token
    self.now = now
    streaming = HTTPStreaming(requestTimeout: requestTimeout, idleTimeout: idleTimeout)
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = max(requestTimeout, idleTimeout) * 2  // our watchdog decides first
    configuration.timeoutIntervalForResource = 7 * 24 * 3600  // a realtime stream may stay open for days
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    session = URLSession(configuration: configuration, delegate: streaming, delegateQueue: nil)
  }

  deinit { session.invalidateAndCancel() }

  /// Whether `url` may be used: HTTPS, or plain HTTP to this machine only.
  public static func isAllowed(_ url: URL) -> Bool {
    switch url.scheme?.lowercased() {
    case "https": return true
    case "http": return ["localhost", "127.0.0.1", "::1", "[::1]"].contains(url.host?.lowercased() ?? "")
    default: return false
    }
  }

  /// The event ID the realtime stream resumes after; empty before the first event.
  public var realtimeLastEventID: String { lastEventID.withLock { $0 } }

  // MARK: - Replies

  public func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let body = SendBody(
      conversationId: payload.conversationID?.rawValue, clientId: payload.clientID.rawValue, text: payload.text,
      attachments: payload.attachments.compactMap { attachment in
        attachment.url.map {
          WireAttachment(name: attachment.filename, mimeType: attachment.contentType, url: $0.absoluteString)
        }
      })
    return reply(
      .post("messages", body: WireJSON.encode(body), key: payload.clientID.rawValue),
      ReplyStreamMapper(sending: payload, at: now()))
  }

  public func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    let body = RegenerateBody(replyTo: prompt.rawValue, answer: answer?.rawValue)
    return reply(
      .post("conversations/\(conversation.rawValue)/regenerate", body: WireJSON.encode(body), key: UUID().uuidString),
      ReplyStreamMapper(regeneratingIn: conversation, at: now()))
  }

  private func reply(_ endpoint: Endpoint, _ start: ReplyStreamMapper) -> AsyncThrowingStream<ReplyEvent, any Error> {
    stream { yield in
      var mapper = start
      try await self.events(endpoint) { event in
        for reply in try mapper.map(event) { yield(reply) }
      }
      try mapper.finish()
    }
  }

  // MARK: - Realtime

  public func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    stream { yield in
      var endpoint = Endpoint.get("events", query: conversation.map { ["conversation_id": $0.rawValue] } ?? [:])
      endpoint.lastEventID = self.lastEventID.withLock { $0 }
      try await self.events(endpoint, opened: { yield(.opened) }) { event in
        // A malformed frame drops the connection; its ID is already the last one seen, so the reconnect
        // resumes after it and the catch-up fetches whatever it was about.
        self.lastEventID.withLock { $0 = event.lastEventID }
        guard let update = try RealtimeEventMapper.map(event, receivedAt: self.now()) else { return }
        if let conversation, case .event(let other, _) = update, other != conversation { return }
        yield(update)
      }
    }
  }

  // MARK: - Requests

  public func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws
    -> HistoryPage
  {
    var query = ["limit": "\(limit)"]
    if let cursor { query["before"] = cursor.rawValue }
    let page = try await call(.get("conversations/\(conversation.rawValue)/messages", query: query), HistoryBody.self)
    return HistoryPage(
      messages: try page.messages.map { try $0.message() }, nextCursor: page.nextCursor.map(PageCursor.init(rawValue:)),
      hasMore: page.hasMore ?? (page.nextCursor != nil), title: page.title,
      status: page.status.flatMap(ConversationStatus.init(wire:)))
  }

  public func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] {
    try await catchUp(in: conversation, after: after).messages
  }

  public func catchUp(in conversation: ConversationID, after: ServerMessageID?) async throws -> CatchUpPage {
    let query = after.map { ["after": $0.rawValue] } ?? [:]
    let page = try await call(.get("conversations/\(conversation.rawValue)/messages", query: query), HistoryBody.self)
    return CatchUpPage(messages: try page.messages.map { try $0.message() }, hasMore: page.hasMore ?? false)
  }

  public func conversations(after cursor: PageCursor?, limit: Int) async throws -> ConversationPage {
    var query = ["limit": "\(limit)"]
    if let cursor { query["after"] = cursor.rawValue }
    let page = try await call(.get("conversations", query: query), ConversationsBody.self)
    return ConversationPage(
      conversations: page.conversations.map(\.summary), nextCursor: page.nextCursor.map(PageCursor.init(rawValue:)),
      hasMore: page.hasMore ?? (page.nextCursor != nil))
  }

  public func rate(_ message: ServerMessageID, in conversation: ConversationID, as rating: Rating) async throws {
    let body = RatingBody(rating: rating.wire, comment: nil)
    try await call(
      .post("conversations/\(conversation.rawValue)/messages/\(message.rawValue)/rating", body: WireJSON.encode(body)))
  }

  public func submitFeedback(_ rating: Rating, comment: String?, in conversation: ConversationID) async throws {
    let body = RatingBody(rating: rating.wire, comment: comment)
    try await call(.post("conversations/\(conversation.rawValue)/feedback", body: WireJSON.encode(body)))
  }

  public func markRead(upTo message: ServerMessageID, in conversation: ConversationID) async throws {
    try await call(
      .post("conversations/\(conversation.rawValue)/read", body: WireJSON.encode(["up_to": message.rawValue])))
  }

  public func sendTyping(_ isTyping: Bool, in conversation: ConversationID) async throws {
    try await call(.post("conversations/\(conversation.rawValue)/typing", body: WireJSON.encode(["typing": isTyping])))
  }

  public func createTicket(_ draft: TicketDraft, from conversation: ConversationID?) async throws -> TicketReceipt {
    let body = TicketBody(conversationId: conversation?.rawValue, subject: draft.subject, body: draft.body)
    let receipt = try await call(.post("tickets", body: WireJSON.encode(body)), TicketReceiptBody.self)
    return TicketReceipt(ticketID: receipt.ticketId, url: receipt.url.flatMap(URL.init(string:)))
  }

  public func submitToolResult(
    _ outcome: ToolCall.Outcome, for call: ToolCallID, in conversation: ConversationID, reply: RequestID
  ) async throws {
    let body: ToolResultBody
    switch outcome {
    case .succeeded(let result): body = ToolResultBody(toolCallId: call.rawValue, result: result, error: nil)
    case .failed(let error):
      body = ToolResultBody(
        toolCallId: call.rawValue, result: nil, error: WireError(code: error.code.rawValue, message: error.message))
    case .running: return
    }
    try await self.call(.post("conversations/\(conversation.rawValue)/tool-results", body: WireJSON.encode(body)))
  }

  public func uploadOutbox(_ batch: OutboxBatch) async throws -> OutboxReceipt {
    let body = OutboxBatchBody(batch)
    let receipt = try await call(.post("outbox", body: WireJSON.encode(body), key: batch.id), OutboxReceiptBody.self)
    return OutboxReceipt(
      isDuplicate: receipt.duplicate ?? false,
      rejections: receipt.rejections?.map { rejection in
        OutboxRejection(
          operationID: OutboxOperationID(rawValue: rejection.operationId),
          reason: OutboxRejection.Reason(rawValue: rejection.reason) ?? .invalid, message: rejection.message ?? "")
      } ?? [])
  }

  // MARK: - Plumbing

  /// A call whose answer is JSON.
  private func call<Answer: Decodable>(_ endpoint: Endpoint, _ answer: Answer.Type) async throws -> Answer {
    let data = try await body(of: endpoint)
    return try WireJSON.decode(answer, from: data, what: "an answer")
  }

  /// A call whose answer carries nothing to read.
  private func call(_ endpoint: Endpoint) async throws {
    _ = try await body(of: endpoint)
  }

  /// The whole body of a successful answer (bounded: answers here are pages, not files).
  private func body(of endpoint: Endpoint) async throws -> Data {
    let request = try await request(endpoint)
    var data = Data()
    var iterator = streaming.start(request, on: session).makeAsyncIterator()
    while let event = try await iterator.next() {
      switch event {
      case .response(let response):
        guard (200..<300).contains(response.statusCode) else {
          throw await failure(response, rest: &iterator)
        }
      case .bytes(let bytes):
        data.append(bytes)
        if data.count > Self.maximumAnswerBytes {
          throw ChatError(.invalidEvent, "The server's answer is larger than \(Self.maximumAnswerBytes) bytes.")
        }
      }
    }
    try Task.checkCancellation()
    return data
  }

  static let maximumAnswerBytes = 32 * 1024 * 1024

  /// Feeds a streamed answer's events to `handle`, as they arrive. `opened` runs once the response is 2xx.
  private func events(
    _ endpoint: Endpoint, opened: () -> Void = {}, _ handle: (ServerSentEvent) throws -> Void
  ) async throws {
    var request = try await request(endpoint)
    request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
    var decoder = ServerSentEventDecoder()
    let exchange = streaming.start(request, on: session)
    var iterator = exchange.makeAsyncIterator()
    while let event = try await iterator.next() {
      switch event {
      case .response(let response):
        guard (200..<300).contains(response.statusCode) else {
          throw await failure(response, rest: &iterator)
        }
        opened()
      case .bytes(let bytes):
        for case .event(let event) in decoder.feed(bytes) { try handle(event) }
      }
    }
    try Task.checkCancellation()
  }

  /// The typed error of a non-2xx answer, read from the rest of its body (whose code wins over the status's).
  private func failure(
    _ response: HTTPURLResponse, rest: inout AsyncThrowingStream<HTTPStreamEvent, any Error>.Iterator
  ) async -> ChatError {
    var body = Data()
    while body.count < 64 * 1024, let event = try? await rest.next() {
      if case .bytes(let bytes) = event { body.append(bytes) }
    }
    return HTTPFailure.error(
      status: response.statusCode, body: body, retryAfter: response.value(forHTTPHeaderField: "Retry-After"), now: now()
    )
  }

  private func request(_ endpoint: Endpoint) async throws -> URLRequest {
    guard Self.isAllowed(baseURL) else {
      throw ChatError(.insecureURL, "\(baseURL.absoluteString) is not HTTPS (plain HTTP is for this machine only).")
    }
    var url = baseURL.appendingPathComponent(endpoint.path)
    if !endpoint.query.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
      components.queryItems = endpoint.query.sorted { $0.key < $1.key }.map {
        URLQueryItem(name: $0.key, value: $0.value)
      }
      url = components.url ?? url
    }
    var request = URLRequest(url: url)
    request.httpMethod = endpoint.method
    request.setValue("application/json", forHTTPHeaderField: "Accept")
    if let body = endpoint.body {
      request.httpBody = body
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    request.setValue(
      endpoint.key ?? (endpoint.method == "POST" ? UUID().uuidString : nil), forHTTPHeaderField: "Idempotency-Key")
    if !endpoint.lastEventID.isEmpty { request.setValue(endpoint.lastEventID, forHTTPHeaderField: "Last-Event-ID") }
    let token: String?
    do {
      token = try await self.token()
    } catch {
      throw (error as? ChatError) ?? ChatError(.unauthorized, "No credential: \(error)")
    }
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    return request
  }

  /// A stream whose work runs in a task that the stream's end cancels (which closes the connection).
  private func stream<Element: Sendable>(
    _ work: @escaping @Sendable (_ yield: (Element) -> Void) async throws -> Void
  ) -> AsyncThrowingStream<Element, any Error> {
    let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
    let task = Task {
      do {
        try await work { continuation.yield($0) }
        continuation.finish()
      } catch {
        continuation.finish(throwing: HTTPFailure.transport(error))
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }
}
