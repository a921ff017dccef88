public import Foundation

/// Identifies one outbox operation; also its idempotency key when it is uploaded.
public struct OutboxOperationID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible,
  ExpressibleByStringLiteral
{
  public let rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }
  public init(stringLiteral value: String) { rawValue = value }
  public var description: String { rawValue }
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Something the user did offline that must reach the server: a message, a rating, conversation feedback,
/// a read-cursor move, or an operation of the host's own (typing is never queued: it is stale by the time
/// it could go).
public struct OutboxOperation: Hashable, Sendable, Codable, Identifiable {
  /// What the user did.
  public enum Kind: Hashable, Sendable, Codable {
    /// A message written offline, in a conversation the server has created.
    case send(OutgoingMessage)
    /// A rating of the answer the server knows as the first value. `replacing` is the rating the answer
    /// showed before, which it shows again if the server refuses this one; it is not sent.
    case rateAnswer(ServerMessageID, Rating, replacing: Rating = .none)
    /// The answer to the conversation's feedback question.
    case rateConversation(Rating, comment: String?)
    /// The read cursor moved to this message.
    case markRead(upTo: ServerMessageID)
    /// An operation of the host's own (`ChatClient.enqueue`); its outcome goes to the host, not to a
    /// conversation.
    case host(HostOperation)
  }

  public var id: OutboxOperationID
  /// Whether it is an operation of the host's own (`Kind.host`), whose outcome goes to the host.
  public var isHostOperation: Bool {
    if case .host = kind { return true }
    return false
  }
  /// The conversation it belongs to; nil for a message that creates a new conversation.
  public var conversationID: ConversationID?
  public var kind: Kind
  /// When it was queued, on the device's clock; the outbox's age bound counts from it. `ChatClient` sets it
  /// from its `StoreEnvironment` clock when it stores the operation (the reducer, which has no clock, fills in
  /// the time of what the operation is about).
  public var enqueuedAt: Date

  public init(id: OutboxOperationID, conversationID: ConversationID?, kind: Kind, enqueuedAt: Date) {
    self.id = id
    self.conversationID = conversationID
    self.kind = kind
    self.enqueuedAt = enqueuedAt
  }
}

/// A batch of outbox operations as it is uploaded: in order, numbered with contiguous sequence numbers that
/// start at 1 for each identity epoch, under an ID that stays the same when the batch is sent again after a lost
/// response (so the server can answer "duplicate" instead of applying it twice).
public struct OutboxBatch: Hashable, Sendable, Codable {
  /// The client's ID of this batch; the same on every retry of it.
  public var id: String
  /// The identity epoch the operations belong to; sequence numbers restart at 1 in each.
  public var epoch: UInt64
  /// The sequence number of the first operation; the others follow without gaps.
  public var firstSequence: Int
  /// 1 to 100 operations, oldest first.
  public var operations: [OutboxOperation]

  public init(id: String, epoch: UInt64, firstSequence: Int, operations: [OutboxOperation]) {
    self.id = id
    self.epoch = epoch
    self.firstSequence = firstSequence
    self.operations = operations
  }

  /// Each operation with its sequence number.
  public var numbered: [(sequence: Int, operation: OutboxOperation)] {
    operations.enumerated().map { (firstSequence + $0.offset, $0.element) }
  }
}

/// The server's answer to an uploaded batch.
public struct OutboxReceipt: Hashable, Sendable, Codable {
  /// The server had already accepted this batch ID (its first answer was lost): the batch counts as done.
  public var isDuplicate: Bool
  /// Operations the server refused, each with why; all others were accepted.
  public var rejections: [OutboxRejection]
  /// Set when the server took nothing of the batch because its numbering is not the server's: its epoch
  /// is stale (the server's moved on, as after a sign-out elsewhere) or its sequence numbers leave a gap or
  /// overlap. The batch is numbered again from here and sent again, after the outbox's backoff.
  public var resync: OutboxSequencing?

  public init(isDuplicate: Bool = false, rejections: [OutboxRejection] = [], resync: OutboxSequencing? = nil) {
    self.isDuplicate = isDuplicate
    self.rejections = rejections
    self.resync = resync
  }
}

/// Where the server numbers an installation's outbox batches: the epoch it is in (1 or more), and the
/// sequence number it expects next (1 or more).
///
/// ```swift
/// // The server refused a batch as stale, saying it is in epoch 4 and expects sequence 1:
/// let receipt = OutboxReceipt(resync: OutboxSequencing(epoch: 4, nextSequence: 1))
/// ```
public struct OutboxSequencing: Hashable, Sendable, Codable {
  /// The server's outbox epoch; never 0.
  public var epoch: UInt64
  /// The sequence number the server expects next; never below 1.
  public var nextSequence: Int

  /// Clamps what a server says into range: an epoch of 0 is 1, a sequence below 1 is 1.
  public init(epoch: UInt64, nextSequence: Int) {
    self.epoch = max(epoch, 1)
    self.nextSequence = max(nextSequence, 1)
  }
}

/// One operation of a batch the server refused, for a closed set of reasons.
public struct OutboxRejection: Hashable, Sendable, Codable {
  /// Why the server refused an operation.
  public enum Reason: String, Hashable, Sendable, Codable, CaseIterable {
    /// The conversation does not exist (any more) for this user.
    case conversationNotFound = "CONVERSATION_NOT_FOUND"
    /// The conversation has ended or is with a human agent, and takes no more messages.
    case conversationNotOngoing = "CONVERSATION_NOT_ONGOING"
    /// The message or rating it refers to does not exist.
    case unknownMessage = "UNKNOWN_MESSAGE"
    /// The operation is larger than the server accepts.
    case tooLarge = "TOO_LARGE"
    /// The operation is malformed or not allowed for this user.
    case invalid = "INVALID_OPERATION"
  }

  public var operationID: OutboxOperationID
  public var reason: Reason
  /// The server's explanation, for people.
  public var message: String

  public init(operationID: OutboxOperationID, reason: Reason, message: String = "") {
    self.operationID = operationID
    self.reason = reason
    self.message = message
  }

  /// The typed error of a refused operation of `kind`: as `error`, except that a host operation refused as
  /// too large is `OPERATION_TOO_LARGE` (it has no text to be too long).
  public func error(for kind: OutboxOperation.Kind) -> ChatError {
    var error = error
    if case .host = kind, reason == .tooLarge { error.code = .operationTooLarge }
    return error
  }

  /// The typed error the operation's message or rating shows; none of these is retryable as it is.
  public var error: ChatError {
    let code: ChatError.Code
    switch reason {
    case .conversationNotFound: code = .conversationNotFound
    case .conversationNotOngoing: code = .conversationNotOngoing
    case .unknownMessage: code = .unknownMessage
    case .tooLarge: code = .messageTooLong
    case .invalid: code = .invalidAction
    }
    var error = ChatError(code, message.isEmpty ? "The server refused this (\(reason.rawValue))." : message)
    error.retryable = false
    return error
  }
}
