public import Foundation

/// One thing that happened on a `ChatClient`'s network side, for a host's logs and counters: its shared
/// connection, a conversation's catch-up, the outbox uploader. A closed code with numbers only (attempts,
/// delays, counts, an HTTP status): never a message's text, a conversation's or user's ID, a credential, or
/// an error's message. Logs leave the device; conversations must not.
///
/// ```swift
/// let (events, sink) = ClientDiagnostic.makeStream(bufferingNewest: 256)
/// let client = ChatClient(backend: MyServer(), options: ChatClientOptions(workspace: "acme", diagnostics: sink))
/// Task {
///   for await event in events {  // in order; ends when the client closes
///     if case .connectionLost(let attempt, let retryDelay, let failure) = event.code {
///       print("\(event.at) connection lost (\(attempt)): \(failure.kind), retry in \(retryDelay) ms")
///     }
///   }
/// }
/// ```
public struct ClientDiagnostic: Hashable, Sendable {
  /// What happened.
  public var code: Code
  /// When the client saw it happen, on the device's clock (the client's `StoreEnvironment.clock`), not the
  /// server's.
  public var at: Date

  /// An event of `code` seen at `at` (the device's clock).
  public init(_ code: Code, at: Date) {
    self.code = code
    self.at = at
  }

  /// What happened: a closed set, each case with numeric fields only. A conversation is named by its
  /// `ConversationHandle`, the number the client gave its store (`h0`, `h1`, … in the order stores were
  /// opened, never reused by that client, unrelated to the conversation's ID or content); the same
  /// conversation opened again after it closed for being idle has a new one.
  ///
  /// Retry delays are whole milliseconds from the event's `at` until the next attempt is due.
  public enum Code: Hashable, Sendable {
    // MARK: The client's shared realtime connection

    /// An attempt to open the shared connection began. `attempt` is 1 plus the attempts that failed since
    /// the connection was last healthy.
    case connectionConnecting(attempt: Int)
    /// The shared connection opened (which proves nothing yet: see `connectionHealthy`).
    case connectionOpened(attempt: Int)
    /// The shared connection was lost, or could not be opened: the `attempt`-th failure in a row. It is
    /// tried again after `retryDelayMilliseconds`.
    case connectionLost(attempt: Int, retryDelayMilliseconds: Int, failure: Failure)
    /// The server refused the credential: the connection stays closed until a fresh one
    /// (`ChatClient.credentialsRefreshed()`), never retried on a timer.
    case connectionNeedsCredentials(failure: Failure)
    /// After `afterFailedAttempts` failures the connection delivered an event or stayed open for
    /// `ChatPolicy.healthyConnectionAfter`: the next loss backs off from the base again.
    case connectionHealthy(afterFailedAttempts: Int)

    // MARK: A conversation catching up (after a reconnect, or by polling)

    /// A conversation began fetching what it missed while it was not live.
    case catchUpStarted(conversation: ConversationHandle)
    /// The catch-up ended complete: nothing is missing between what is shown and the live messages.
    case caughtUp(conversation: ConversationHandle)
    /// A catch-up or poll failed in a way that can pass (`failure` says how; `invalidResponse` for a server
    /// that said "more" and sent nothing newer): the `attempt`-th in a row, tried again after
    /// `ChatPolicy.syncBackoff`.
    case catchUpStalled(conversation: ConversationHandle, attempt: Int, failure: Failure)
    /// A catch-up ended for good before it was complete: messages may be missing between what is shown
    /// and the live ones (`ConversationState.hasMissedMessagesGap`), until a later catch-up completes.
    case catchUpGapLeft(conversation: ConversationHandle, failure: Failure)
    /// With `ConnectionMode.polling`: a poll failed, the `attempt`-th in a row; the next is due after
    /// `retryDelayMilliseconds`.
    case pollFailed(conversation: ConversationHandle, attempt: Int, retryDelayMilliseconds: Int, failure: Failure)

    // MARK: The outbox uploader

    /// A batch of `operations` was read from the outbox and is on its way. `attempt` is 1 plus the
    /// uploads that failed since one last succeeded.
    case outboxBatchPrepared(operations: Int, attempt: Int)
    /// The server took a batch of `operations`, refusing `refused` of them (each goes back to where it was
    /// made, or to the host for its own operations).
    case outboxBatchUploaded(operations: Int, refused: Int)
    /// The server refused a whole batch of `operations` for good; the next batch goes.
    case outboxBatchRefused(operations: Int, failure: Failure)
    /// An upload failed in a way that can pass, the `attempt`-th in a row; the same batch goes again after
    /// `retryDelayMilliseconds`, or as soon as the connection opens.
    case outboxBatchFailed(attempt: Int, retryDelayMilliseconds: Int, failure: Failure)
    /// The server refused the credential: nothing is uploaded until a fresh one.
    case outboxWaitingForCredentials(failure: Failure)
  }

  /// Why something failed, redacted to a closed kind and the HTTP status. The kind is chosen by comparing
  /// the error with the codes this client knows (`ChatError.Code` is an open string a server can set, so it
  /// is never passed on), and the status only when it is one HTTP can carry (100 to 599).
  public struct Failure: Hashable, Sendable {
    /// What kind of failure it was.
    public var kind: Kind
    /// The HTTP status of the failed response; nil when none came back.
    public var httpStatus: Int?

    /// A failure of `kind` with `httpStatus`.
    public init(kind: Kind, httpStatus: Int? = nil) {
      self.kind = kind
      self.httpStatus = httpStatus
    }

    /// The kinds of failure a diagnostic tells apart.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
      /// The connection failed or dropped (`NETWORK`, `INCOMPLETE_STREAM`).
      case network
      /// No answer in time (`TIMEOUT`, HTTP 408).
      case timeout
      /// The credential was refused (HTTP 401 or 403, `UNAUTHORIZED`, `INVALID_IDENTITY`).
      case unauthorized
      /// Too many requests (`RATE_LIMITED`, HTTP 429).
      case rateLimited
      /// The server failed (HTTP 5xx, `PROVIDER_ERROR`).
      case server
      /// The server's answer broke the protocol or could not be used (`INVALID_RESPONSE`, `INVALID_EVENT`,
      /// `SYNC_STALLED`, an event or answer too large).
      case invalidResponse
      /// The device could not read or write its storage (`STORAGE_FAILED`).
      case storage
      /// Anything else, including codes this client does not know.
      case other
    }
  }
}

extension ClientDiagnostic.Failure {
  /// `error` redacted: its kind and HTTP status, nothing of its code's or message's text. Nil (a failure the
  /// state does not name) is `other`.
  public init(_ error: ChatError?) {
    guard let error else {
      self.init(kind: .other)
      return
    }
    let status = error.status.flatMap { (100...599).contains($0) ? $0 : nil }
    self.init(kind: Self.kind(of: error), httpStatus: status)
  }

  private static let invalidResponses: Set<ChatError.Code> = [
    .invalidResponse, .invalidEvent, .syncStalled, .eventTooLarge, .responseTooLarge,
  ]

  private static func kind(of error: ChatError) -> Kind {
    if error.isAuthorizationFailure { return .unauthorized }
    if error.code == .rateLimited || error.status == 429 { return .rateLimited }
    if error.code == .timeout || error.status == 408 { return .timeout }
    if error.code == .network || error.code == .incompleteStream { return .network }
    if invalidResponses.contains(error.code) { return .invalidResponse }
    if error.code == .storageFailed { return .storage }
    if error.code == .providerError || (error.status.map { (500...599).contains($0) } ?? false) { return .server }
    return .other
  }
}
