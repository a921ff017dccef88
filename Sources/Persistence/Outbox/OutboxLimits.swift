public import ConversationState

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
