public import ConversationState
public import ConversationStore
public import Foundation
import ServerSentEvents

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A `ChatBackend` over HTTP and Server-Sent Events, for the REST + SSE protocol in `Docs/HTTP-PROTOCOL.md`
/// (both reply frame styles). Bodies are decoded as they arrive, at the pace the store reads them;
/// cancelling a request (the user stops a reply, a store closes) closes its connection.
///
/// ```swift
/// let tokens = Tokens(renew: login.renew)                   // the host's token store (see the README)
/// let backend = try HTTPChatBackend(baseURL: URL(string: "https://chat.example.com/v1")!) {
///   await tokens.current()                                   // read before every request
/// }
/// let client = ChatClient(backend: backend, credentials: { try await tokens.refresh() })
/// ```
///
/// - `baseURL` must be `https`, except for `localhost`, `127.0.0.1` and `::1`; otherwise every call fails
///   with `INSECURE_URL` before anything is sent.
/// - `token` is asked before every request and sent as `Authorization: Bearer`, only to `baseURL`'s origin
///   (a `ChatError` it throws fails the call as it is; any other error fails it `UNAUTHORIZED`, which starts
///   the store's credential refresh):
///   a redirect is followed only within it (never from `https` to `http`); one to another origin fails with
///   `REDIRECT_REFUSED` and nothing, not even a connection, goes there. A 401 or 403 fails the call with
///   `UNAUTHORIZED`; the store then runs the host's credential provider and tries again.
/// - Errors: 401/403 `UNAUTHORIZED`, 404 `CONVERSATION_NOT_FOUND`, 409 `CONVERSATION_CHANGED`, 429
///   `RATE_LIMITED` with `retryAfter` from `Retry-After` (clamped by `ChatPolicy.serverDelay`), 5xx
///   retryable; a code in the body wins, also in a 200's body.
/// - What the server sends is checked and bounded by the policy's transport limits: a stream that is not
///   `text/event-stream`, or an answer that is not JSON, is `INVALID_RESPONSE` (with the status kept); an
///   event or a line over `maximumEventBytes` is `EVENT_TOO_LARGE`; an answer over `maximumAnswerBytes`
///   (decompressed), or bytes that arrive faster than they are read past `maximumUnreadBytes` (answers
///   too), is `RESPONSE_TOO_LARGE`; timeouts (`requestTimeout`, `idleTimeout`, counted on the monotonic
///   clock, not the store's `ChatClock`) are `TIMEOUT`. What a read completed before a bad event or a limit
///   still reaches the store, then the error.
public final class HTTPChatBackend: ChatBackend {
  /// Supplies the bearer token for the next request; nil sends none.
  public typealias TokenProvider = @Sendable () async throws -> String?

  private let baseURL: URL
  private let token: TokenProvider
  private let streaming: HTTPStreaming
  private let session: URLSession
  private let now: @Sendable () -> Date
  /// The limits and timeouts this backend applies to what the server sends.
  public let policy: ChatPolicy
  /// The realtime stream's last event ID, sent as `Last-Event-ID` when it reconnects.
  private let lastEventID = StateLock("")

  /// A backend for the server at `baseURL` (for example `https://chat.example.com/v1`).
  ///
  /// - Parameters:
  ///   - policy: the transport's timeouts and limits (`requestTimeout`, `idleTimeout`, `maximumEventBytes`,
  ///     `maximumAnswerBytes`, `maximumErrorBodyBytes`, `maximumUnreadBytes`, `maximumRetryAfter`); the
  ///     store's own policy is separate, pass the same value to both to keep them in step.
  ///   - now: the device's clock, for times the server leaves out of a frame and to turn a `Retry-After`
  ///     date into a wait.
  /// - Throws: `INVALID_CONFIGURATION` for a policy that cannot work (`ChatPolicy.validate()`).
  public init(
    baseURL: URL, policy: ChatPolicy = ChatPolicy(), now: @escaping @Sendable () -> Date = { Date() },
    token: @escaping TokenProvider
  ) throws(ChatError) {
    try policy.validate()
    self.baseURL = baseURL
    self.token = token
    self.now = now
    self.policy = policy
    streaming = HTTPStreaming(policy: policy)
    let configuration = URLSessionConfiguration.ephemeral
    // The exchanges' watchdog decides; the session's own limits only back it up.
    configuration.timeoutIntervalForRequest = min(max(policy.requestTimeout, policy.idleTimeout) * 2, 7 * 24 * 3600)
    configuration.timeoutIntervalForResource = 7 * 24 * 3600  // a realtime stream may stay open for days
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    // No cache at all: with one, FoundationNetworking makes a task's protocol only once the cache has
    // answered, and a cancel made meanwhile reports its failure late, after the task completed (a trap:
    // see `HTTPExchange.finish`). Nothing here is cacheable anyway.
    configuration.urlCache = nil
    configuration.httpShouldSetCookies = false
    session = URLSession(configuration: configuration, delegate: streaming, delegateQueue: streaming.delegateQueue)
  }

  /// A backend with the default policy but for its two timeouts, in seconds: `requestTimeout` for a
  /// response's head (and a JSON answer whole), `idleTimeout` for a stream between two lines.
  ///
  /// - Throws: `INVALID_CONFIGURATION` when a timeout is not a positive number.
  public convenience init(
    baseURL: URL, requestTimeout: Double, idleTimeout: Double, now: @escaping @Sendable () -> Date = { Date() },
    token: @escaping TokenProvider
  ) throws(ChatError) {
    var policy = ChatPolicy()
    policy.requestTimeout = requestTimeout
    policy.idleTimeout = idleTimeout
    try self.init(baseURL: baseURL, policy: policy, now: now, token: token)
  }

  deinit {
    // Each exchange cancels its own task the safe way (see `HTTPExchange.finish`); `invalidateAndCancel`
    // would cancel them all on the spot.
    streaming.cancelAll()
    session.finishTasksAndInvalidate()
  }

  /// Whether `url` may be used: HTTPS, or plain HTTP to this machine only.
  public static func isAllowed(_ url: URL) -> Bool {
    switch url.scheme?.lowercased() {
    case "https": return true
    case "http": return ["localhost", "127.0.0.1", "::1", "[::1]"].contains(url.host?.lowercased() ?? "")
    default: return false
    }
  }

  /// The longest realtime event ID that is kept and sent back as `Last-Event-ID` (1 KiB); a longer one is
  /// dropped and the stream resumes without one (its catch-up then fetches what was missed).
  public static let maximumLastEventIDBytes = 1024

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
    eventStream(endpoint, start, opened: nil) { mapper, event throws(ChatError) in
      try mapper.map(event)
    } end: { mapper throws(ChatError) in
      try mapper.finish()
    }
  }

  // MARK: - Realtime

  public func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    var endpoint = Endpoint.get("events", query: conversation.map { ["conversation_id": $0.rawValue] } ?? [:])
    endpoint.lastEventID = lastEventID.withLock { $0 }
    return eventStream(endpoint, (), opened: .opened) { _, event throws(ChatError) in
      // An ID too long to send back as a header is not kept: a server would refuse every reconnect that
      // carried it.
      let id = event.lastEventID
      self.lastEventID.withLock { $0 = id.utf8.count <= Self.maximumLastEventIDBytes ? id : "" }
      // A malformed frame is skipped and reported; the connection goes on (the next catch-up fetches
      // whatever the frame was about).
      let mapped: RealtimeUpdate?
      do throws(ChatError) {
        mapped = try RealtimeEventMapper.map(event, receivedAt: self.now())
      } catch {
        return [.rejected(error)]
      }
      guard let update = mapped else { return [] }
      if let conversation, case .event(let other, _) = update, other != conversation { return [] }
      return [update]
    } end: { _ throws(ChatError) in
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
    case .denied(let reason):
      // The protocol has no approvals: a denial goes back as the error the agent should see.
      body = ToolResultBody(
        toolCallId: call.rawValue, result: nil,
        error: WireError(code: ChatError.Code.cancelled.rawValue, message: reason ?? "The user denied the call."))
    case .running, .inputStreaming, .awaitingApproval: return
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

  /// A call whose answer is JSON: anything else is `INVALID_RESPONSE`, and an error body wins even on a 200.
  private func call<Answer: Decodable>(_ endpoint: Endpoint, _ answer: Answer.Type) async throws -> Answer {
    let (response, data) = try await body(of: endpoint)
    guard Self.isJSON(response) else {
      throw ChatError(
        .invalidResponse, "The server answered \(Self.contentType(response) ?? "no content type"), not JSON.",
        status: response.statusCode)
    }
    if let error = Self.errorInBody(data, status: response.statusCode) { throw error }
    do {
      return try WireJSON.decode(answer, from: data, what: "an answer")
    } catch {
      throw ChatError(.invalidResponse, error.message, status: response.statusCode)
    }
  }

  /// A call whose answer carries nothing to read, unless it is an error: an empty body, or JSON. Anything
  /// else (a portal's HTML page) is `INVALID_RESPONSE`, never taken as the call's success.
  private func call(_ endpoint: Endpoint) async throws {
    let (response, data) = try await body(of: endpoint)
    guard data.isEmpty || Self.isJSON(response) else {
      throw ChatError(
        .invalidResponse, "The server answered \(Self.contentType(response) ?? "no content type"), not JSON.",
        status: response.statusCode)
    }
    if let error = Self.errorInBody(data, status: response.statusCode) { throw error }
  }

  /// The whole body of a successful answer, at most `ChatPolicy.maximumAnswerBytes` of it (answers here
  /// are pages, not files), within `requestTimeout` in all.
  private func body(of endpoint: Endpoint) async throws -> (HTTPURLResponse, Data) {
    let exchange = streaming.start(try await request(endpoint), kind: .answer, on: session)
    var response: HTTPURLResponse?
    var data = Data()
    while let event = try await exchange.next() {
      switch event {
      case .response(let head):
        guard (200..<300).contains(head.statusCode) else { throw await failure(head, rest: exchange) }
        response = head
      case .bytes(let bytes):
        data.append(bytes)  // at most `maximumAnswerBytes` in all: the exchange stops the transfer past it
      }
    }
    guard let response else { throw ChatError(.network, "The connection ended before the server answered.") }
    return (response, data)
  }

  /// A Server-Sent Events response, read and mapped at its consumer's pace: each element the store takes
  /// asks for the next bytes only once the last are used, and the text deltas that piled up meanwhile reach
  /// it as one. `opened` is the element for a 2xx head; `map` turns each event into elements, `end` checks
  /// the body's end.
  private func eventStream<Mapper: Sendable, Element: CoalescingElement>(
    _ endpoint: Endpoint, _ mapper: Mapper, opened: Element?,
    map: @escaping @Sendable (inout Mapper, ServerSentEvent) throws(ChatError) -> [Element],
    end: @escaping @Sendable (inout Mapper) throws(ChatError) -> Void
  ) -> AsyncThrowingStream<Element, any Error> {
    let limits = ServerSentEventDecoder.Limits(
      maximumLineBytes: policy.maximumEventBytes, maximumEventBytes: policy.maximumEventBytes)
    return PulledStream.make(from: EventRead.starting(endpoint, mapper)) { read in
      switch read {
      case .starting(let endpoint, let mapper):
        var request = try await self.request(endpoint)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        let exchange = self.streaming.start(request, kind: .stream, on: self.session)
        read = .reading(exchange, ServerSentEventDecoder(limits: limits), mapper)
        return []
      case .reading(let exchange, var decoder, var mapper):
        guard let event = try await exchange.next() else {
          read = .done
          try end(&mapper)
          return nil
        }
        switch event {
        case .response(let head):
          guard (200..<300).contains(head.statusCode) else { throw await self.failure(head, rest: exchange) }
          guard Self.contentType(head) == "text/event-stream" else {
            // Some servers answer a refused stream with 200 and a JSON error: its code is the error.
            if Self.isJSON(head),
              let error = Self.errorInBody(await self.errorBody(rest: exchange), status: head.statusCode)
            {
              throw error
            }
            throw ChatError(
              .invalidResponse,
              "The server answered \(Self.contentType(head) ?? "no content type") where an event stream was due.",
              status: head.statusCode)
          }
          return opened.map { [$0] } ?? []
        case .bytes(let bytes):
          // What the bytes completed before a bad event or a limit reaches the store first; the error after.
          var elements: [Element] = []
          var failure: ChatError?
          let items: [ServerSentEventDecoder.Item]
          do throws(ServerSentEventDecoder.LimitExceeded) {
            items = try decoder.feed(bytes)
          } catch {
            items = error.completed
            failure = ChatError(.eventTooLarge, error.description)
          }
          do throws(ChatError) {
            for case .event(let event) in items { elements += try map(&mapper, event) }
          } catch {
            failure = error
          }
          read = failure.map { .failing($0) } ?? .reading(exchange, decoder, mapper)
          return Element.coalesced(elements)
        }
      case .failing(let error):
        read = .done
        throw error
      case .done:
        return nil
      }
    }
  }

  /// The typed error of a non-2xx answer, read from at most `maximumErrorBodyBytes` of its body (whose
  /// code wins over the status's).
  private func failure(_ response: HTTPURLResponse, rest: HTTPExchange) async -> ChatError {
    HTTPFailure.error(
      status: response.statusCode, body: await errorBody(rest: rest),
      retryAfter: response.value(forHTTPHeaderField: "Retry-After"), now: now(), policy: policy)
  }

  /// At most `maximumErrorBodyBytes` of the rest of a body; the transfer is stopped after.
  private func errorBody(rest: HTTPExchange) async -> Data {
    var body = Data()
    while body.count < policy.maximumErrorBodyBytes, case .bytes(let bytes)? = try? await rest.next() {
      body.append(bytes.prefix(policy.maximumErrorBodyBytes - body.count))
    }
    rest.cancel()
    return body
  }

  /// The server's error in a JSON body (`{"error": {"code": …}}`), whatever the status said.
  private static func errorInBody(_ data: Data, status: Int) -> ChatError? {
    guard let wire = try? WireJSON.decoder().decode(WireErrorBody.self, from: data).error, let code = wire.code
    else { return nil }
    return ChatError(ChatError.Code(rawValue: code), wire.message ?? "", status: status)
  }

  /// The media type of a response, lowercased, without parameters (`text/event-stream`).
  private static func contentType(_ response: HTTPURLResponse) -> String? {
    guard let value = response.value(forHTTPHeaderField: "Content-Type") else { return nil }
    return value.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
  }

  /// `application/json` or any `+json` type; an empty body with no type is nothing to read, so it passes too.
  private static func isJSON(_ response: HTTPURLResponse) -> Bool {
    guard let type = contentType(response) else { return response.expectedContentLength <= 0 }
    return type == "application/json" || type.hasSuffix("+json")
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
    // Only ever to the configured origin: every URL here is built on `baseURL`, and redirects leave it never.
    if let token, HTTPExchange.isSameOrigin(url, baseURL) {
      request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    }
    return request
  }
}

/// Where one event stream's read is.
private enum EventRead<Mapper: Sendable>: Sendable {
  case starting(Endpoint, Mapper)
  case reading(HTTPExchange, ServerSentEventDecoder, Mapper)
  /// The last elements were handed over; this error comes next (the exchange is let go, ending it).
  case failing(ChatError)
  case done
}
