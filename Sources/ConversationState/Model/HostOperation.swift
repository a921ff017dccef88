/// An operation of the host's own that must reach its server as reliably as a message: an analytics event, a
/// profile property. `ChatClient.enqueue(_:in:)` queues it in the durable outbox, where it takes part in the
/// same ordered, bounded batches as the chat's own operations; the host hears whether the server accepted
/// it through `ChatClientOptions.onHostOperation`.
///
/// ```swift
/// let event = HostOperation(kind: "analytics.event", payload: ["name": "chat_opened", "screen": "orders"])
/// let id = try await client.enqueue(event)  // on disk when this returns
/// ```
public struct HostOperation: Hashable, Sendable, Codable {
  /// What it is, as the host and its server name it (`analytics.event`, `profile.set`): 1 to 64 ASCII
  /// letters, digits, `.`, `_` and `-`.
  public var kind: String
  /// Its data, as JSON; at most `ChatPolicy.maximumHostOperationBytes` bytes written compactly.
  public var payload: JSONValue

  /// An operation of `kind` carrying `payload`.
  public init(kind: String, payload: JSONValue) {
    self.kind = kind
    self.payload = payload
  }

  /// The longest `kind`, in characters.
  public static let maximumKindLength = 64

  /// Why this operation cannot be queued under `policy`, or nil when it can: a `kind` that is empty, too long
  /// or has a character outside the set is `INVALID_ACTION`; a payload over the policy's bound is
  /// `OPERATION_TOO_LARGE`.
  public func refusal(under policy: ChatPolicy) -> ChatError? {
    let allowed = kind.utf8.allSatisfy { byte in
      (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        || byte == 0x2E || byte == 0x5F || byte == 0x2D
    }
    guard !kind.isEmpty, kind.utf8.count <= Self.maximumKindLength, allowed else {
      return ChatError(
        .invalidAction,
        "A host operation's kind is 1 to \(Self.maximumKindLength) letters, digits, '.', '_' or '-'; "
          + "\"\(kind.prefix(80))\" is not.")
    }
    let bytes = payload.encodedByteCount
    guard bytes <= policy.maximumHostOperationBytes else {
      return ChatError(
        .operationTooLarge,
        "A host operation's payload is \(bytes) bytes; at most \(policy.maximumHostOperationBytes) are queued.")
    }
    return nil
  }
}

/// What became of a `HostOperation` the host queued, as `ChatClientOptions.onHostOperation` hears it.
public struct HostOperationOutcome: Hashable, Sendable, Codable {
  /// How it ended.
  public enum Result: Hashable, Sendable, Codable {
    /// The server accepted it (or had accepted its batch already: a retry after a lost answer).
    case accepted
    /// It will not reach the server: the server refused it (`INVALID_ACTION`, `OPERATION_TOO_LARGE`,
    /// `CONVERSATION_NOT_FOUND`, … from its rejection), the outbox's bounds evicted it
    /// (`OUTBOX_EVICTED`), or a sign-out ended the epoch it was queued in (`OUTBOX_EVICTED`).
    case refused(ChatError)
  }

  /// The ID `ChatClient.enqueue` returned.
  public var id: OutboxOperationID
  /// The operation.
  public var operation: HostOperation
  /// The conversation it was queued for, if any.
  public var conversationID: ConversationID?
  /// How it ended.
  public var result: Result

  /// The outcome of `operation`, queued as `id`.
  public init(id: OutboxOperationID, operation: HostOperation, conversationID: ConversationID?, result: Result) {
    self.id = id
    self.operation = operation
    self.conversationID = conversationID
    self.result = result
  }

  /// The outcome of `queued`, when it is a host operation.
  public init?(_ queued: OutboxOperation, _ result: Result) {
    guard case .host(let operation) = queued.kind else { return nil }
    self.init(id: queued.id, operation: operation, conversationID: queued.conversationID, result: result)
  }
}
