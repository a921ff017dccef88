/// A failure the UI can show and a caller can act on: a stable `code`, a human `message`, the HTTP
/// `status` when one came back, and whether trying again can help.
///
/// ```swift
/// let error = ChatError(.rateLimited, "Slow down", status: 429)
/// let retryable = error.retryable  // true: classified from code and status by `ChatError.isRetryable`
/// ```
public struct ChatError: Error, Sendable, CustomStringConvertible {
  /// The fields behind one reference: a message's `delivery` and `reply` carry an error only when one
  /// failed, and inline the error made every message of a conversation 96 bytes larger.
  @usableFromInline var fields: CopyOnWrite<Fields>

  /// What went wrong, as a stable code to branch on; `message` is for people, not for logic.
  @inlinable public var code: Code {
    _read { yield fields.value.code }
    _modify { yield &fields.value.code }
  }
  /// A human-readable explanation to show or log; empty when the server sent none.
  @inlinable public var message: String {
    _read { yield fields.value.message }
    _modify { yield &fields.value.message }
  }
  /// The HTTP status of the failed response; `nil` when none came back (a dropped connection, or a
  /// refusal made on the device).
  @inlinable public var status: Int? {
    _read { yield fields.value.status }
    _modify { yield &fields.value.status }
  }
  /// Whether trying the same request again can help: classified by `isRetryable(code:status:)` unless
  /// the server said otherwise.
  @inlinable public var retryable: Bool {
    _read { yield fields.value.retryable }
    _modify { yield &fields.value.retryable }
  }
  /// The server's hint for when to try again (for example from a 429's `Retry-After`), in seconds.
  @inlinable public var retryAfter: Double? {
    _read { yield fields.value.retryAfter }
    _modify { yield &fields.value.retryAfter }
  }
  /// Where the server said the conversation stands, when it said so with the error (the HTTP protocol's
  /// `conversation_status`). `CONVERSATION_NOT_ONGOING` is said both when the conversation ended and when a
  /// person took it over, so the store moves its status only to what is named here; without it the status
  /// is not guessed (see `ConversationStatus`).
  @inlinable public var conversationStatus: ConversationStatus? {
    _read { yield fields.value.conversationStatus }
    _modify { yield &fields.value.conversationStatus }
  }

  /// An error whose `retryable` flag comes from the one classification table, `isRetryable(code:status:)`.
  public init(_ code: Code, _ message: String, status: Int? = nil, retryAfter: Double? = nil) {
    fields = CopyOnWrite(
      Fields(
        code: code, message: message, status: status, retryable: Self.isRetryable(code: code, status: status),
        retryAfter: retryAfter))
  }

  /// The stored fields.
  @usableFromInline
  struct Fields: Hashable, Sendable {
    @usableFromInline var code: Code
    @usableFromInline var message: String
    @usableFromInline var status: Int?
    @usableFromInline var retryable: Bool
    @usableFromInline var retryAfter: Double?
    @usableFromInline var conversationStatus: ConversationStatus?
  }

  /// The error as `CODE (HTTP status): message`, for logs.
  public var description: String {
    let statusText = status.map { " (HTTP \($0))" } ?? ""
    return "\(code.rawValue)\(statusText): \(message)"
  }

  /// Whether repeating the same request can succeed.
  ///
  /// The code decides when it is known; otherwise the HTTP status does (408, 425, 429 and 5xx are
  /// transient); a failure with neither is assumed transient, since that is how a dropped connection
  /// looks. An authorization failure (401, 403, `INVALID_IDENTITY`) is never retryable.
  public static func isRetryable(code: Code, status: Int?) -> Bool {
    // Any 401 or 403 is an authorization failure, whatever code came with it: never retried.
    if status == 401 || status == 403 || code == .invalidIdentity || code == .unauthorized { return false }
    if Code.transient.contains(code) { return true }
    if Code.permanent.contains(code) { return false }
    guard let status else { return true }
    switch status {
    case 408, 425, 429, 500...599: return true
    default: return false
    }
  }
}

extension ChatError {
  /// A stable, machine-readable error code. Servers may send codes this client does not know; they are
  /// kept as they came.
  public struct Code: StringIdentifier {
    /// The code as the server spells it, for example `RATE_LIMITED`.
    public let rawValue: String
    /// Wraps a code as received; a code this client does not know is kept, not rejected.
    public init(rawValue: String) { self.rawValue = rawValue }

    // Codes of the seed SDKs' servers.
    /// The agent the app asked for does not exist on the server.
    public static let agentNotFound: Code = "AGENT_NOT_FOUND"
    /// The server does not accept the signed-in identity; never retried, and a connection that hits it closes.
    public static let invalidIdentity: Code = "INVALID_IDENTITY"
    /// The server has no such conversation for this identity.
    public static let conversationNotFound: Code = "CONVERSATION_NOT_FOUND"
    /// The conversation has ended, or a human agent has it, so a send or regeneration is refused.
    public static let conversationNotOngoing: Code = "CONVERSATION_NOT_ONGOING"
    /// The server says the conversation changed under the request (for example it moved on since the
    /// client's view of it): the store reloads its history, then tries the send again once.
    public static let conversationChanged: Code = "CONVERSATION_CHANGED"
    /// Too many requests; transient, and `retryAfter` says when to try again if the server gave a hint.
    public static let rateLimited: Code = "RATE_LIMITED"
    /// The account has no credits left; retrying does not help until it is topped up.
    public static let creditLimitReached: Code = "CREDIT_LIMIT_REACHED"
    /// No agent can answer this conversation (none assigned, or switched off); retrying does not help.
    public static let agentUnavailable: Code = "AGENT_UNAVAILABLE"
    /// The AI model provider behind the agent failed; transient.
    public static let providerError: Code = "PROVIDER_ERROR"
    /// A reply stream ended or dropped before the server finished it; transient, and the partial reply is kept,
    /// `truncated`.
    public static let incompleteStream: Code = "INCOMPLETE_STREAM"
    /// The server has no stream to resume for a reply (it ended, or it was never kept): the reply ends
    /// with what it had.
    public static let notResumable: Code = "NOT_RESUMABLE"
    /// A tool result was larger than `ChatPolicy.maximumToolResultBytes` (UTF-8 bytes of its JSON).
    public static let toolResultTooLarge: Code = "TOOL_RESULT_TOO_LARGE"
    /// A reply made more than `ChatPolicy.clientToolCallLimit` client-executed tool calls and was stopped.
    public static let toolLoopLimit: Code = "TOOL_LOOP_LIMIT"

    // Client-side codes: transport, validation and illegal actions.
    /// The connection failed or dropped before a response came back; transient.
    public static let network: Code = "NETWORK"
    /// No response came back in time; transient.
    public static let timeout: Code = "TIMEOUT"
    /// The client is not (or no longer) authorized; never retried, like HTTP 401 and 403.
    public static let unauthorized: Code = "UNAUTHORIZED"
    /// Nothing to send: a message with neither text nor attachments, or a ticket without subject or body.
    public static let emptyMessage: Code = "EMPTY_MESSAGE"
    /// A message with more than `ChatPolicy.maximumAttachments` attachments.
    public static let tooManyAttachments: Code = "TOO_MANY_ATTACHMENTS"
    /// An attachment over `ChatPolicy.maximumAttachmentBytes` bytes.
    public static let attachmentTooLarge: Code = "ATTACHMENT_TOO_LARGE"
    /// A page size outside `ChatPolicy.historyPageSizes` (or `listPageSizes`) was asked for.
    public static let invalidPageSize: Code = "INVALID_PAGE_SIZE"
    /// An action or event named a message (or attachment) this conversation does not hold.
    public static let unknownMessage: Code = "UNKNOWN_MESSAGE"
    /// A backend event that cannot be applied (malformed, or about something unknown); it is ignored.
    public static let invalidEvent: Code = "INVALID_EVENT"
    /// An action the current state does not allow, for example regenerating while a reply still streams.
    public static let invalidAction: Code = "INVALID_ACTION"
    /// The work was stopped on purpose (for example the user stopped a reply); not a failure to retry.
    public static let cancelled: Code = "CANCELLED"
    /// An attachment's bytes are gone (held in memory by a run of the app that ended); attach it again.
    public static let attachmentUnavailable: Code = "ATTACHMENT_UNAVAILABLE"
    /// The agent asked the app to run a tool it has no handler for.
    public static let toolNotFound: Code = "TOOL_NOT_FOUND"
    /// An app-side tool handler threw.
    public static let toolFailed: Code = "TOOL_FAILED"
    /// The backend does not offer this feature; retrying does not help.
    public static let unsupported: Code = "UNSUPPORTED"
    /// A backend URL is not HTTPS (and not a loopback address); a configuration error, never retried.
    public static let insecureURL: Code = "INSECURE_URL"
    /// A message's text is longer than `ChatPolicy.maximumTextLength` characters.
    public static let messageTooLong: Code = "MESSAGE_TOO_LONG"
    /// A send that would queue more than `ChatPolicy.maximumFollowUps` follow-ups.
    public static let tooManyFollowUps: Code = "TOO_MANY_FOLLOW_UPS"
    /// An attachment's type is not in `ChatPolicy.allowedAttachmentTypes`.
    public static let attachmentTypeNotAllowed: Code = "ATTACHMENT_TYPE_NOT_ALLOWED"
    /// A realtime event named another conversation than the one its connection is for; it is ignored.
    public static let eventForOtherConversation: Code = "EVENT_FOR_OTHER_CONVERSATION"
    /// Chat is not available right now (a disabled state the UI shows, not a failure to retry).
    public static let chatUnavailable: Code = "CHAT_UNAVAILABLE"

    // What a misbehaving server gets back (see `ChatPolicy` for every limit).
    /// The server's answer is not what the protocol says it must be: the wrong content type (an HTML portal
    /// page for a stream), a JSON answer that is not JSON, a page larger than was asked for, a history cursor
    /// that repeats. The HTTP status, when there was one, is kept. Transient: a captive portal goes away.
    public static let invalidResponse: Code = "INVALID_RESPONSE"
    /// One server-sent event, or one line of the stream, is larger than `ChatPolicy.maximumEventBytes`; the
    /// stream is closed.
    public static let eventTooLarge: Code = "EVENT_TOO_LARGE"
    /// An answer's body (decompressed) is larger than `ChatPolicy.maximumAnswerBytes`, or a stream's
    /// unread bytes outgrew `ChatPolicy.maximumUnreadBytes`; nothing more of it is read.
    public static let responseTooLarge: Code = "RESPONSE_TOO_LARGE"
    /// A reply's text and reasoning reached `ChatPolicy.maximumReplyBytes`, or it carried more than
    /// `ChatPolicy.maximumToolCallsPerReply` tool calls or `ChatPolicy.maximumPartsPerReply` parts: it ends
    /// `failed` with what arrived kept.
    public static let replyTooLarge: Code = "REPLY_TOO_LARGE"
    /// The server redirected a request to another origin (scheme, host or port), or from HTTPS to HTTP;
    /// nothing was sent there.
    public static let redirectRefused: Code = "REDIRECT_REFUSED"
    /// A catch-up brought nothing new although the server said there was more; it is tried again after
    /// `ChatPolicy.syncBackoff`, never at once.
    public static let syncStalled: Code = "SYNC_STALLED"
    /// A host setting is out of range (a timeout of zero or less, a NaN or an infinity, a limit below 1):
    /// reported by `ChatPolicy.validate()`, which `HTTPChatBackend`'s initializers call.
    public static let invalidConfiguration: Code = "INVALID_CONFIGURATION"

    /// The outbox dropped an operation before it could be sent: its bounds (count, bytes, age) made room
    /// for newer ones, or a sign-out ended the epoch it was queued in. A message shows it as failed; retry
    /// sends it again.
    public static let outboxEvicted: Code = "OUTBOX_EVICTED"

    /// Contact details that cannot be sent: an e-mail address or name outside `ContactDetails`'s rules, or
    /// refused by the server.
    public static let invalidContact: Code = "INVALID_CONTACT"
    /// A `HostOperation`'s payload is larger than `ChatPolicy.maximumHostOperationBytes`, or the server
    /// refused an outbox operation as too large.
    public static let operationTooLarge: Code = "OPERATION_TOO_LARGE"

    /// The device could not store something it had to keep (a full disk, an unwritable data folder); trying
    /// again can work once space is freed.
    public static let storageFailed: Code = "STORAGE_FAILED"
    /// A conversation title the user gave that cannot be kept: empty once trimmed, or longer than
    /// `ConversationSummary.maximumUserTitleLength`, or refused by the server.
    public static let invalidTitle: Code = "INVALID_TITLE"
    /// The server took nothing of an outbox batch because it numbers the outbox elsewhere (a stale epoch, a
    /// gap in the sequence): the client numbers the batch again from where the server is and sends it
    /// again after the outbox's backoff. Reported as the client's background error; nothing is lost.
    public static let outboxOutOfSync: Code = "OUTBOX_OUT_OF_SYNC"
    static let transient: Set<Code> = [
      .rateLimited, .providerError, .incompleteStream, .network, .timeout, .storageFailed, .syncStalled,
      // The operation itself was fine: sent again, it can go.
      .outboxEvicted,
      // The batch goes again, numbered as the server numbers it.
      .outboxOutOfSync,
      // A captive portal's page, or a proxy's, goes away once the user has signed in to the network.
      .invalidResponse,
    ]
    static let permanent: Set<Code> = [
      .agentNotFound, .invalidIdentity, .conversationNotFound, .conversationNotOngoing, .conversationChanged,
      .creditLimitReached, .agentUnavailable, .toolResultTooLarge, .toolLoopLimit, .unauthorized, .emptyMessage,
      .tooManyAttachments, .attachmentTooLarge, .invalidPageSize, .unknownMessage, .invalidEvent,
      .invalidAction, .cancelled, .unsupported, .insecureURL, .messageTooLong, .attachmentTypeNotAllowed,
      .eventForOtherConversation, .chatUnavailable, .toolNotFound, .toolFailed, .attachmentUnavailable,
      .eventTooLarge, .responseTooLarge, .replyTooLarge, .redirectRefused, .invalidConfiguration, .notResumable,
      .operationTooLarge, .invalidContact, .tooManyFollowUps, .invalidTitle,
    ]
  }

  /// Whether this failure means the identity is not (or no longer) accepted; such failures are never
  /// retried, and a connection that hits one closes.
  public var isAuthorizationFailure: Bool {
    code == .invalidIdentity || code == .unauthorized || status == 401 || status == 403
  }
}

extension ChatError: Hashable {
  /// Field by field.
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.fields == rhs.fields }

  public func hash(into hasher: inout Hasher) { fields.value.hash(into: &hasher) }
}

extension ChatError: Codable {
  /// Encodes one JSON object with a key per field (decoding is in `ChatError+Codable.swift`).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(code, forKey: .code)
    try container.encode(message, forKey: .message)
    try container.encodeIfPresent(status, forKey: .status)
    try container.encode(retryable, forKey: .retryable)
    try container.encodeIfPresent(retryAfter, forKey: .retryAfter)
    try container.encodeIfPresent(conversationStatus, forKey: .conversationStatus)
  }
}
