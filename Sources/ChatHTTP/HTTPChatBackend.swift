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
/// let tokens = Tokens(renew: login.renew)  // the host's token store (see the README)
/// let backend = try HTTPChatBackend(baseURL: URL(string: "https://chat.example.com/v1")!) {
///   await tokens.current()  // read before every request
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
/// - Reply frames are positioned by their SSE `id:`s: a reply whose connection drops is resumed after the
///   last frame applied (`resumeReply(from:)`, `ChatPolicy.replyResumeAttempts`); frames without IDs are not.
public final class HTTPChatBackend: ChatBackend {
  /// Supplies the bearer token for the next request; nil sends none. Called before every request, in a
  /// task of its own that the request's cancellation does not reach (see
  /// `ConversationRuntime.CredentialProvider`): keep it fast, a read of what the host's login stored.
  public typealias TokenProvider = @Sendable () async throws -> String?

  private let transport: HTTPTransport
  /// Reply streams, read by `ReplyStreamMapper` as every agent backend's are by its mapper.
  private let replies: AgentReplyStreams<Never>
  private var now: @Sendable () -> Date { transport.now }
  /// The limits and timeouts this backend applies to what the server sends.
  public var policy: ChatPolicy { transport.policy }
  /// The realtime stream's last event ID, sent as `Last-Event-ID` when it reconnects.
  private let lastEventID = StateLock("")

  /// A backend for the server at `baseURL` (for example `https://chat.example.com/v1`).
  ///
  /// - Parameters:
  ///   - baseURL: the API root every path of `Docs/HTTP-PROTOCOL.md` is under; `https`, or `http` to this
  ///     machine only.
  ///   - policy: the transport's timeouts and limits (`requestTimeout`, `idleTimeout`, `maximumEventBytes`,
  ///     `maximumAnswerBytes`, `maximumErrorBodyBytes`, `maximumUnreadBytes`, `maximumRetryAfter`); the
  ///     store's own policy is separate, pass the same value to both to keep them in step.
  ///   - now: the device's clock, for times the server leaves out of a frame and to turn a `Retry-After`
  ///     date into a wait.
  ///   - token: the bearer token for each request, sent to `baseURL`'s origin only; asked again once after
  ///     an authorization failure.
  /// - Throws: `INVALID_CONFIGURATION` for a policy that cannot work (`ChatPolicy.validate()`).
  public init(
    baseURL: URL, policy: ChatPolicy = ChatPolicy(), now: @escaping @Sendable () -> Date = { Date() },
    token: @escaping TokenProvider
  ) throws(ChatError) {
    transport = try HTTPTransport(baseURL: baseURL, policy: policy, now: now, token: token)
    replies = AgentReplyStreams(transport: transport)
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

  /// Whether `url` may be used: HTTPS, or plain HTTP to this machine only.
  public static func isAllowed(_ url: URL) -> Bool { HTTPTransport.isAllowed(url) }

  /// The longest realtime event ID that is kept and sent back as `Last-Event-ID` (1 KiB); a longer one is
  /// dropped and the stream resumes without one (its catch-up then fetches what was missed).
  public static let maximumLastEventIDBytes = EventNumbering.maximumIDBytes

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
      }, parentId: payload.placement?.wireParent, siblingOf: payload.placement?.wireSibling)
    return reply(
      .post("messages", body: WireJSON.encode(body), key: payload.clientID.rawValue),
      ReplyStreamMapper(sending: payload, at: now(), policy: policy))
  }

  public func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    let body = RegenerateBody(replyTo: prompt.rawValue, answer: answer?.rawValue)
    return reply(
      .post("conversations/\(conversation.rawValue)/regenerate", body: WireJSON.encode(body), key: UUID().uuidString),
      ReplyStreamMapper(regeneratingIn: conversation, at: now(), policy: policy))
  }

  /// Resumes a reply through `GET conversations/{id}/replies/{message_id}/stream` with the ID of the last
  /// frame the store applied as `Last-Event-ID`: the server sends the frames after it, then the rest live.
  /// A cursor without the reply's server ID or an event ID (a reply whose first frame never came) fails
  /// with `NOT_RESUMABLE` at once, and so does a `204` (the server keeps no such stream).
  public func resumeReply(from cursor: ReplyCursor) -> AsyncThrowingStream<ReplyEvent, any Error> {
    guard let reply = cursor.replyID, case .eventID(let lastID) = cursor.position else {
      let error = ChatError(.notResumable, "The reply has no server ID or frame ID to resume from.")
      return AsyncThrowingStream { $0.finish(throwing: error) }
    }
    var endpoint = Endpoint.get("conversations/\(cursor.conversationID.rawValue)/replies/\(reply.rawValue)/stream")
    endpoint.lastEventID = lastID
    let nothing = ChatError(.notResumable, "The server keeps no stream of reply \(reply.rawValue) (204).")
    return self.reply(
      endpoint, ReplyStreamMapper(resuming: reply, in: cursor.conversationID, at: now(), policy: policy),
      noContent: nothing)
  }

  /// A reply's stream; its frames are positioned by their SSE IDs, which a resume sends back.
  private func reply(_ endpoint: Endpoint, _ start: ReplyStreamMapper, noContent: ChatError? = nil)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    replies.stream(endpoint, start, numbering: .eventIDs, noContent: noContent)
  }

  // MARK: - Realtime

  public func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    var endpoint = Endpoint.get("events", query: conversation.map { ["conversation_id": $0.rawValue] } ?? [:])
    endpoint.lastEventID = lastEventID.withLock { $0 }
    return transport.eventStream(endpoint, (), opened: .opened) { _, event, elements throws(ChatError) in
      // An ID too long to send back as a header is not kept: a server would refuse every reconnect that
      // carried it.
      let id = event.lastEventID
      self.lastEventID.withLock { $0 = id.utf8.count <= Self.maximumLastEventIDBytes ? id : "" }
      // A malformed frame is skipped and reported; the connection goes on (the next catch-up fetches
      // whatever the frame was about).
      let mapped: RealtimeUpdate?
      do throws(ChatError) {
        if let listEvents = try RealtimeEventMapper.listEvents(event, receivedAt: self.now()) {
          // The user's list, on the shared connection only: a conversation's own connection has no list.
          if conversation == nil { elements += listEvents.map(RealtimeUpdate.list) }
          return
        }
        mapped = try RealtimeEventMapper.map(event, receivedAt: self.now(), policy: self.policy)
      } catch {
        elements.append(.rejected(error))
        return
      }
      guard let update = mapped else { return }
      if let conversation, case .event(let other, _) = update, other != conversation { return }
      elements.append(update)
    } end: { _ throws(ChatError) in
      []
    }
  }

  // MARK: - Requests

  public func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws
    -> HistoryPage
  {
    var query = ["limit": "\(limit)"]
    if let cursor { query["before"] = cursor.rawValue }
    let page = try await transport.call(
      .get("conversations/\(conversation.rawValue)/messages", query: query), HistoryBody.self)
    let read = readableMessages(of: page)
    return HistoryPage(
      messages: read.messages, nextCursor: page.nextCursor.map(PageCursor.init(rawValue:)),
      hasMore: page.hasMore ?? (page.nextCursor != nil), title: page.title,
      status: page.status.flatMap(ConversationStatus.init(wire:)), readUpTo: page.readUpTo.map { ServerMessageID($0) },
      unreadCount: page.unreadCount, totalCount: page.totalCount, unreadable: read.unreadable)
  }

  public func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] {
    try await catchUp(in: conversation, after: after).messages
  }

  public func catchUp(in conversation: ConversationID, after: ServerMessageID?) async throws -> CatchUpPage {
    let query = after.map { ["after": $0.rawValue] } ?? [:]
    let page = try await transport.call(
      .get("conversations/\(conversation.rawValue)/messages", query: query), HistoryBody.self)
    return CatchUpPage(messages: try messages(of: page), hasMore: page.hasMore ?? false)
  }

  /// A catch-up page's messages, or `INVALID_EVENT` for the whole page when one cannot be read (an unknown
  /// role, a source without a title or with a link that is not `http(s)`, more sources than the policy
  /// allows). A history page leaves such a message out instead (`readableMessages(of:)`).
  private func messages(of page: HistoryBody) throws(ChatError) -> [Message] {
    let read = readableMessages(of: page)
    if let first = read.unreadable.first { throw first }
    return read.messages
  }

  /// A history page's messages that can be read, and an `INVALID_EVENT` for each one that cannot: older
  /// history goes on past a bad message (`HistoryPage.unreadable`).
  private func readableMessages(of page: HistoryBody) -> (messages: [Message], unreadable: [ChatError]) {
    let maximumSources = policy.maximumSourcesPerMessage
    var messages: [Message] = []
    var unreadable: [ChatError] = []
    for wire in page.messages {
      do throws(ChatError) {
        messages.append(try wire.message(maximumSources: maximumSources))
      } catch {
        unreadable.append(error)
      }
    }
    return (messages, unreadable)
  }

  public func conversations(after cursor: PageCursor?, limit: Int) async throws -> ConversationPage {
    var query = ["limit": "\(limit)"]
    if let cursor { query["after"] = cursor.rawValue }
    let page = try await transport.call(.get("conversations", query: query), ConversationsBody.self)
    return ConversationPage(
      conversations: page.conversations.map(\.summary), nextCursor: page.nextCursor.map(PageCursor.init(rawValue:)),
      hasMore: page.hasMore ?? (page.nextCursor != nil), totalCount: page.totalCount)
  }

  /// `PATCH B/conversations/{id}` with the one field changed (`{"title": …}`, `{"pinned": true, "pinned_at":
  /// …}` or `{"pinned": false}`, `{"archived": …}`, `{"unread": …}`), answered `204` (or `200` with the
  /// conversation, not read). Errors as for any call: a refusal (`400 INVALID_TITLE`, `404`) rolls the change
  /// back; a network error, a `5xx` or a `429` is retried by the list.
  public func updateConversation(_ conversation: ConversationID, _ change: ConversationChange) async throws {
    try await Self.listCall { try await self.transport.call(.updateConversation(conversation, change)) }
  }

  /// `DELETE B/conversations/{id}`, answered `204`. A `404` is `CONVERSATION_NOT_FOUND`, which the list counts
  /// as done.
  public func deleteConversation(_ conversation: ConversationID) async throws {
    try await Self.listCall { try await self.transport.call(.deleteConversation(conversation)) }
  }

  /// A list change, where a server without the list's endpoints (`405`, `501`) is `UNSUPPORTED`: the change
  /// is then kept on the device, where a `501` read as a server error would be retried for ever.
  private static func listCall(_ call: () async throws -> Void) async throws {
    do {
      try await call()
    } catch let error as ChatError where (error.status == 405 || error.status == 501) && error.code != .unsupported {
      throw ChatError.unsupported("a conversation list")
    }
  }

  public func rate(_ message: ServerMessageID, in conversation: ConversationID, as rating: Rating) async throws {
    let body = RatingBody(rating: rating.wire, comment: nil)
    try await transport.call(
      .post("conversations/\(conversation.rawValue)/messages/\(message.rawValue)/rating", body: WireJSON.encode(body)))
  }

  public func submitFeedback(_ rating: Rating, comment: String?, in conversation: ConversationID) async throws {
    let body = RatingBody(rating: rating.wire, comment: comment)
    try await transport.call(.post("conversations/\(conversation.rawValue)/feedback", body: WireJSON.encode(body)))
  }

  public func markRead(upTo message: ServerMessageID, in conversation: ConversationID) async throws {
    try await transport.call(
      .post("conversations/\(conversation.rawValue)/read", body: WireJSON.encode(["up_to": message.rawValue])))
  }

  /// `POST B/contact` with the details (`null` for what is not given).
  public func updateContactDetails(_ details: ContactDetails) async throws {
    try await transport.call(.post("contact", body: WireJSON.encode(ContactBody(details))))
  }

  public func sendTyping(_ isTyping: Bool, in conversation: ConversationID) async throws {
    try await transport.call(
      .post("conversations/\(conversation.rawValue)/typing", body: WireJSON.encode(["typing": isTyping])))
  }

  public func createTicket(_ draft: TicketDraft, from conversation: ConversationID?) async throws -> TicketReceipt {
    let body = TicketBody(
      conversationId: conversation?.rawValue, subject: draft.subject, body: draft.body, category: draft.category,
      priority: draft.priority.rawValue)
    let receipt = try await transport.call(.post("tickets", body: WireJSON.encode(body)), TicketReceiptBody.self)
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
    try await transport.call(.post("conversations/\(conversation.rawValue)/tool-results", body: WireJSON.encode(body)))
  }

  /// From now on every request carries `Outbox-Epoch: epoch`, so the server can fence a device whose
  /// person signed out (see `Docs/HTTP-PROTOCOL.md`, "Outbox batch").
  public func outboxEpochChanged(_ epoch: UInt64) { transport.setOutboxEpoch(epoch) }

  public func uploadOutbox(_ batch: OutboxBatch) async throws -> OutboxReceipt {
    let body = OutboxBatchBody(batch)
    let answer = try await transport.call(
      .post("outbox", body: WireJSON.encode(body), key: batch.id), OutboxReceiptBody.self, reading: 409,
      OutboxOutOfSyncBody.sequencing(in:))
    let receipt: OutboxReceiptBody
    switch answer {
    case .answer(let body): receipt = body
    case .refusal(let sequencing): return OutboxReceipt(resync: sequencing)
    }
    return OutboxReceipt(
      isDuplicate: receipt.duplicate ?? false,
      rejections: receipt.rejections?.map { rejection in
        OutboxRejection(
          operationID: OutboxOperationID(rawValue: rejection.operationId),
          reason: OutboxRejection.Reason(rawValue: rejection.reason) ?? .invalid, message: rejection.message ?? "")
      } ?? [])
  }

}
