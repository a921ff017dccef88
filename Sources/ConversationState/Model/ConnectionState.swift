public import Foundation

/// The realtime connection.
///
/// ```
/// idle -> connecting -> connected            (first connect, nothing confirmed to catch up from)
/// idle -> connecting -> syncing -> connected (a conversation with a confirmed message: catch up first)
/// connected -> reconnecting(1) -> connecting -> syncing -> connected
/// any -> closed                              (disconnect, or an authorization failure: never retried)
/// ```
public enum ConnectionState: Hashable, Sendable, Codable {
  /// Never connected. Moves to `connecting`.
  case idle
  /// A connect request is in flight. Moves to `syncing` (there is a confirmed message to catch up from),
  /// `connected` (nothing to catch up from) or `reconnecting`.
  case connecting
  /// Live. Moves to `reconnecting` when the connection drops, `closed` on disconnect.
  case connected
  /// Live again after a loss, fetching the messages missed since the last confirmed one. Moves to
  /// `connected` once they are merged.
  case syncing
  /// Waiting to try again: `attempt` counts from 1; the timer fires at `retryAt`. Moves to `connecting`.
  case reconnecting(attempt: Int, retryAt: Date)
  /// Stopped on purpose or by an authorization failure. Moves to `connecting` on an explicit connect.
  case closed

  /// Whether messages sent now should wait in the outbox rather than go out.
  public var isOffline: Bool {
    switch self {
    case .reconnecting, .closed: return true
    case .idle, .connecting, .connected, .syncing: return false
    }
  }
}

/// Reconnect timing with the default policy (`ChatPolicy().reconnectBackoff`): 1 s doubling to 30 s, with
/// full jitter.
public enum ReconnectBackoff {
  /// The ceiling of the first wait, in seconds.
  public static let base: Double = 1
  /// The largest ceiling, in seconds.
  public static let cap: Double = 30

  /// The delay before attempt `attempt` (1-based): see `Backoff.delay(attempt:jitter:)`.
  public static func delay(attempt: Int, jitter: Double) -> Double {
    Backoff(base: base, cap: cap).delay(attempt: attempt, jitter: jitter)
  }
}
