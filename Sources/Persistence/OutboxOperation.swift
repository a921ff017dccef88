public import ConversationState
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

/// Something the user did offline that must reach the server: a message, a rating, conversation feedback
/// or a read-cursor move (typing is never queued: it is stale by the time it could go).
public struct OutboxOperation: Hashable, Sendable, Codable, Identifiable {
  /// What the user did.
  public enum Kind: Hashable, Sendable, Codable {
    case send(OutgoingMessage)
    case rateAnswer(ClientMessageID, Rating)
    case rateConversation(Rating, comment: String?)
    case markRead(upTo: ServerMessageID)
  }

  public var id: OutboxOperationID
  /// The conversation it belongs to; nil for a message that creates a new conversation.
  public var conversationID: ConversationID?
  public var kind: Kind
  /// When it was queued, on the device's clock; the outbox's age bound counts from it.
  public var enqueuedAt: Date

  public init(id: OutboxOperationID, conversationID: ConversationID?, kind: Kind, enqueuedAt: Date) {
    self.id = id
    self.conversationID = conversationID
    self.kind = kind
    self.enqueuedAt = enqueuedAt
  }
}

/// The outbox's bounds: past any of them the oldest operations are dropped (never one being uploaded).
public struct OutboxLimits: Hashable, Sendable {
  /// At most this many operations wait (default 2,000).
  public var maximumOperations: Int
  /// At most this many bytes of serialized operations wait (default 2 MiB).
  public var maximumBytes: Int
  /// An operation older than this many seconds is dropped (default 7 days).
  public var maximumAge: Double

  public init(maximumOperations: Int = 2_000, maximumBytes: Int = 2 * 1024 * 1024, maximumAge: Double = 7 * 86_400) {
    self.maximumOperations = maximumOperations
    self.maximumBytes = maximumBytes
    self.maximumAge = maximumAge
  }
}

/// An operation the outbox dropped to stay within its bounds: which one and why, never what it contained.
public struct OutboxEviction: Hashable, Sendable {
  public enum Reason: String, Hashable, Sendable {
    /// More than `maximumOperations` were waiting.
    case count
    /// More than `maximumBytes` were waiting.
    case bytes
    /// It waited longer than `maximumAge`.
    case age
  }

  public var id: OutboxOperationID
  public var reason: Reason

  public init(id: OutboxOperationID, reason: Reason) {
    self.id = id
    self.reason = reason
  }
}
