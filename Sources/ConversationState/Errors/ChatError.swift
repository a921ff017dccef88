/// A failure the UI can show and a caller can act on: a stable `code`, a human `message`, the HTTP
/// `status` when one came back, and whether trying again can help.
///
/// ```swift
/// let error = ChatError(.rateLimited, "Slow down", status: 429)
/// error.retryable  // true: classified from code and status by `ChatError.isRetryable`
/// ```
public struct ChatError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
  public var code: Code
  public var message: String
  public var status: Int?
  public var retryable: Bool
  /// The server's hint for when to try again (for example from a 429's `Retry-After`), in seconds.
  public var retryAfter: Double?

  /// An error whose `retryable` flag comes from the one classification table, `isRetryable(code:status:)`.
  public init(_ code: Code, _ message: String, status: Int? = nil, retryAfter: Double? = nil) {
    self.code = code
    self.message = message
    self.status = status
    self.retryable = Self.isRetryable(code: code, status: status)
    self.retryAfter = retryAfter
  }

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
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    // Codes of the seed SDKs' servers.
    public static let agentNotFound: Code = "AGENT_NOT_FOUND"
    public static let invalidIdentity: Code = "INVALID_IDENTITY"
    public static let conversationNotFound: Code = "CONVERSATION_NOT_FOUND"
    public static let conversationNotOngoing: Code = "CONVERSATION_NOT_ONGOING"
    public static let conversationChanged: Code = "CONVERSATION_CHANGED"
    public static let rateLimited: Code = "RATE_LIMITED"
    public static let creditLimitReached: Code = "CREDIT_LIMIT_REACHED"
    public static let agentUnavailable: Code = "AGENT_UNAVAILABLE"
    public static let providerError: Code = "PROVIDER_ERROR"
    public static let incompleteStream: Code = "INCOMPLETE_STREAM"
    public static let toolResultTooLarge: Code = "TOOL_RESULT_TOO_LARGE"
    public static let toolLoopLimit: Code = "TOOL_LOOP_LIMIT"

    // Client-side codes: transport, validation and illegal actions.
    public static let network: Code = "NETWORK"
    public static let timeout: Code = "TIMEOUT"
    public static let unauthorized: Code = "UNAUTHORIZED"
    public static let emptyMessage: Code = "EMPTY_MESSAGE"
    public static let tooManyAttachments: Code = "TOO_MANY_ATTACHMENTS"
    public static let attachmentTooLarge: Code = "ATTACHMENT_TOO_LARGE"
    public static let invalidPageSize: Code = "INVALID_PAGE_SIZE"
    public static let unknownMessage: Code = "UNKNOWN_MESSAGE"
    public static let invalidEvent: Code = "INVALID_EVENT"
    public static let invalidAction: Code = "INVALID_ACTION"
    public static let cancelled: Code = "CANCELLED"

    static let transient: Set<Code> = [
      .rateLimited, .agentUnavailable, .providerError, .incompleteStream, .network, .timeout,
    ]
    static let permanent: Set<Code> = [
      .agentNotFound, .invalidIdentity, .conversationNotFound, .conversationNotOngoing, .conversationChanged,
      .creditLimitReached, .toolResultTooLarge, .toolLoopLimit, .unauthorized, .emptyMessage,
      .tooManyAttachments, .attachmentTooLarge, .invalidPageSize, .unknownMessage, .invalidEvent,
      .invalidAction, .cancelled,
    ]
  }

  /// Whether this failure means the identity is not (or no longer) accepted; such failures are never
  /// retried, and a connection that hits one closes.
  public var isAuthorizationFailure: Bool {
    code == .invalidIdentity || code == .unauthorized || status == 401 || status == 403
  }
}
