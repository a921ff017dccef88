package import ConversationState
import ConversationStore
package import Foundation
package import ServerSentEvents

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What every protocol backend over HTTP shares (this package's own protocol, AG-UI, and the ones to come):
/// the session and its `HTTPStreaming` delegate, requests built on one base URL with the credential sent
/// to that origin only, JSON calls, and event streams decoded and mapped at their consumer's pace. A
/// protocol backend adds only its endpoints and its event mapper.
package final class HTTPTransport: Sendable {
  /// Supplies the bearer token for the next request; nil sends none.
  package typealias TokenProvider = @Sendable () async throws -> String?

  /// Whose error codes an error body carries.
  package enum ErrorCodes: Sendable {
    /// This package's protocol: the body's `error.code` is a `ChatError` code and wins over the status
    /// (even on a 200 answered with JSON where a stream was due).
    case fromBody
    /// Another protocol's (OpenAI's `rate_limit_exceeded`, a framework's own): the status says what the
    /// failure is (429 `RATE_LIMITED`, 401 `UNAUTHORIZED`…), the body's message says why.
    case fromStatus
  }

  package let baseURL: URL
  package let policy: ChatPolicy
  package let now: @Sendable () -> Date
  private let token: TokenProvider
  private let errorCodes: ErrorCodes
  private let streaming: HTTPStreaming
  private let session: URLSession
  /// The installation's outbox epoch, sent on every request once known (`Outbox-Epoch`).
  private let outboxEpoch = StateLock<UInt64?>(nil)

  /// - Throws: `INVALID_CONFIGURATION` for a policy that cannot work (`ChatPolicy.validate()`).
  package init(
    baseURL: URL, policy: ChatPolicy, errorCodes: ErrorCodes = .fromBody, now: @escaping @Sendable () -> Date,
    token: @escaping TokenProvider
  ) throws(ChatError) {
    try policy.validate()
    self.errorCodes = errorCodes
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

  deinit {
    // Each exchange cancels its own task the safe way (see `HTTPExchange.finish`); `invalidateAndCancel`
    // would cancel them all on the spot.
    streaming.cancelAll()
    session.finishTasksAndInvalidate()
  }

  /// Whether `url` may be used: HTTPS, or plain HTTP to this machine only.
  package static func isAllowed(_ url: URL) -> Bool {
    switch url.scheme?.lowercased() {
    case "https": return true
    case "http": return ["localhost", "127.0.0.1", "::1", "[::1]"].contains(url.host?.lowercased() ?? "")
    default: return false
    }
  }

  // MARK: - Calls

  /// A call whose answer is JSON: anything else is `INVALID_RESPONSE`, and an error body wins even on a 200.
  package func call<Answer: Decodable>(_ endpoint: Endpoint, _ answer: Answer.Type) async throws -> Answer {
    let (response, data) = try await body(of: endpoint)
    return try Self.decode(answer, response, data)
  }

  /// A JSON call whose refusal with `status` may say more than an error (an outbox batch refused as out of
  /// sync says where the server numbers): `read` gets that refusal's body (at most `maximumErrorBodyBytes`)
  /// and returns what it stands for, or nil when it is an error like any other, which is then thrown.
  package func call<Answer: Decodable, Refusal>(
    _ endpoint: Endpoint, _ answer: Answer.Type, reading status: Int, _ read: (Data) -> Refusal?
  ) async throws -> Answered<Answer, Refusal> {
    let (response, data) = try await body(of: endpoint, keeping: status)
    guard response.statusCode == status else { return .answer(try Self.decode(answer, response, data)) }
    if let refusal = read(data) { return .refusal(refusal) }
    throw HTTPFailure.error(
      status: status, body: data, retryAfter: response.value(forHTTPHeaderField: "Retry-After"), now: now(),
      policy: policy, bodyCodeWins: errorCodes == .fromBody)
  }

  /// What a call that reads one kind of refusal got: the answer, or that refusal.
  package enum Answered<Answer, Refusal> {
    case answer(Answer)
    case refusal(Refusal)
  }

  /// The answer a successful JSON call's body holds, or the error it holds instead.
  private static func decode<Answer: Decodable>(_ answer: Answer.Type, _ response: HTTPURLResponse, _ data: Data)
    throws -> Answer
  {
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
  package func call(_ endpoint: Endpoint) async throws {
    let (response, data) = try await body(of: endpoint)
    guard data.isEmpty || Self.isJSON(response) else {
      throw ChatError(
        .invalidResponse, "The server answered \(Self.contentType(response) ?? "no content type"), not JSON.",
        status: response.statusCode)
    }
    if let error = Self.errorInBody(data, status: response.statusCode) { throw error }
  }

  /// The whole body of a successful answer, at most `ChatPolicy.maximumAnswerBytes` of it (answers here
  /// are pages, not files), within `requestTimeout` in all; for a refusal with status `keeping`, its body as
  /// an error's is read (at most `maximumErrorBodyBytes`).
  private func body(of endpoint: Endpoint, keeping: Int? = nil) async throws -> (HTTPURLResponse, Data) {
    let exchange = streaming.start(try await request(endpoint), kind: .answer, on: session)
    var response: HTTPURLResponse?
    var data = Data()
    while let event = try await exchange.next() {
      switch event {
      case .response(let head):
        if head.statusCode == keeping { return (head, await errorBody(rest: exchange)) }
        guard (200..<300).contains(head.statusCode) else { throw await failure(head, rest: exchange) }
        response = head
      case .bytes(let bytes):
        data.append(bytes)  // at most `maximumAnswerBytes` in all: the exchange stops the transfer past it
      }
    }
    guard let response else { throw ChatError(.network, "The connection ended before the server answered.") }
    return (response, data)
  }

  // MARK: - Event streams

  /// A Server-Sent Events response, read and mapped at its consumer's pace: each element the store takes
  /// asks for the next bytes only once the last are used, and the text deltas that piled up meanwhile reach
  /// it as one. `opened` is the element for a 2xx head; `map` appends each event's elements; `end` gives
  /// the elements the body's end stands for, or throws what its end means (a reply cut off); `failed` says
  /// what a transport failure of the body (a dropped connection, a timeout) means to the protocol.
  ///
  /// `numbering` positions a reply's events for a resume (`EventNumbering`). `noContent` is the error a
  /// `204` answer stands for (nothing to resume), when it is not a success.
  package func eventStream<Mapper: Sendable, Element: CoalescingElement>(
    _ endpoint: Endpoint, _ mapper: Mapper, opened: Element?, numbering: EventNumbering? = nil,
    noContent: ChatError? = nil,
    map: @escaping @Sendable (inout Mapper, ServerSentEvent, inout [Element]) throws(ChatError) -> Void,
    end: @escaping @Sendable (inout Mapper) throws(ChatError) -> [Element],
    failed: @escaping @Sendable (inout Mapper, ChatError) -> ChatError = { _, error in error }
  ) -> AsyncThrowingStream<Element, any Error> {
    let limits = ServerSentEventDecoder.Limits(
      maximumLineBytes: policy.maximumEventBytes, maximumEventBytes: policy.maximumEventBytes)
    return PulledStream.make(from: EventRead.starting(endpoint, mapper)) { read in
      switch read {
      case .starting(let endpoint, let mapper):
        var request = try await self.request(endpoint)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        let exchange = self.streaming.start(request, kind: .stream, on: self.session)
        read = .reading(exchange, ServerSentEventDecoder(limits: limits), mapper, numbering)
        return []
      case .reading(let exchange, var decoder, var mapper, var numbering):
        let next: HTTPStreamEvent?
        do throws(ChatError) {
          next = try await exchange.next()
        } catch {
          read = .done
          throw failed(&mapper, error)
        }
        guard let event = next else {
          read = .done
          return try end(&mapper)
        }
        switch event {
        case .response(let head):
          guard (200..<300).contains(head.statusCode) else { throw await self.failure(head, rest: exchange) }
          if head.statusCode == 204, let noContent {
            read = .done
            exchange.cancel()
            throw noContent
          }
          guard Self.contentType(head) == "text/event-stream" else {
            // Some servers answer a refused stream with 200 and a JSON error: its code is the error.
            if self.errorCodes == .fromBody, Self.isJSON(head),
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
            if numbering == nil {
              for case .event(let event) in items { try map(&mapper, event, &elements) }
            } else {
              for case .event(let event) in items { try numbering?.map(event, &mapper, &elements, map) }
            }
          } catch {
            failure = error
          }
          var batch = Element.coalesced(elements)
          if let last = batch.indices.last, let position = numbering?.takePosition() {
            batch[last] = batch[last].positioned(position)
          }
          read = failure.map { .failing($0) } ?? .reading(exchange, decoder, mapper, numbering)
          return batch
        }
      case .failing(let error):
        read = .done
        throw error
      case .done:
        return nil
      }
    }
  }

  // MARK: - Plumbing

  /// The typed error of a non-2xx answer, read from at most `maximumErrorBodyBytes` of its body (whose
  /// code wins over the status's).
  private func failure(_ response: HTTPURLResponse, rest: HTTPExchange) async -> ChatError {
    HTTPFailure.error(
      status: response.statusCode, body: await errorBody(rest: rest),
      retryAfter: response.value(forHTTPHeaderField: "Retry-After"), now: now(), policy: policy,
      bodyCodeWins: errorCodes == .fromBody)
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
    return wire.chatError(defaultCode: ChatError.Code(rawValue: code), defaultMessage: "", status: status)
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

  /// Sends `epoch` as `Outbox-Epoch` on every request from now on.
  package func setOutboxEpoch(_ epoch: UInt64) { outboxEpoch.withLock { $0 = epoch } }

  /// The request for `endpoint`: on `baseURL` (itself when the endpoint has no path), with the credential
  /// for `baseURL`'s origin only.
  private func request(_ endpoint: Endpoint) async throws -> URLRequest {
    guard Self.isAllowed(baseURL) else {
      throw ChatError(.insecureURL, "\(baseURL.absoluteString) is not HTTPS (plain HTTP is for this machine only).")
    }
    var url = endpoint.path.isEmpty ? baseURL : baseURL.appendingPathComponent(endpoint.path)
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
    if let epoch = outboxEpoch.withLock({ $0 }) { request.setValue(String(epoch), forHTTPHeaderField: "Outbox-Epoch") }
    let token: String?
    do {
      token = try await uncancelledHostCall(self.token)
    } catch is CancellationError {
      // The request was cancelled while the provider ran (the provider itself runs on).
      throw ChatError(.cancelled, "The request was cancelled.")
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
  case reading(HTTPExchange, ServerSentEventDecoder, Mapper, EventNumbering?)
  /// The last elements were handed over; this error comes next (the exchange is let go, ending it).
  case failing(ChatError)
  case done
}
