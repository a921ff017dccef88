/// The timers of a `ChatClient`'s state machine.
public enum ClientTimer: Hashable, Sendable, Codable {
  /// The shared connection tries again.
  case reconnect
  /// The shared connection has stayed open long enough to count as healthy: its backoff starts over.
  case connectionHealthy
  /// The outbox sends its batch again after a retryable failure.
  case outboxRetry
  /// The contact details go again after a retryable failure.
  case contactRetry
  /// More stores are open than `maximumIdleConversations`: look again for ones nobody holds any more and
  /// whose work has settled (a screen may let go of a store at any time; that makes no event).
  case idleCheck
}
