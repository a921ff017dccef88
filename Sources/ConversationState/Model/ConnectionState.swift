public import Foundation

/// The realtime connection.
///
/// ```
/// idle -> connecting -> connected            (first connect)
/// connected -> reconnecting(1) -> connecting -> syncing -> connected
/// any -> closed                              (disconnect, or an authorization failure: never retried)
/// ```
public enum ConnectionState: Hashable, Sendable, Codable {
  /// Never connected. Moves to `connecting`.
  case idle
  /// A connect request is in flight. Moves to `connected` (first time), `syncing` (after a loss) or
  /// `reconnecting`.
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

/// Reconnect timing: exponential backoff with full jitter.
public enum ReconnectBackoff {
  public static let base: Double = 1
  public static let cap: Double = 30

  /// The delay before attempt `attempt` (1-based): `jitter × min(cap, base × 2^(attempt-1))`, where
  /// `jitter` in 0…1 is supplied by the caller (the store's random source), so the reducer stays pure.
  /// A jitter outside 0…1 is clamped into it; NaN counts as 1.
  public static func delay(attempt: Int, jitter: Double) -> Double {
    let exponent = Double(max(0, min(attempt - 1, 30)))
    let ceiling = min(cap, base * pow(2, exponent))
    // NaN counts as 1: the longest wait is the safe reading of a broken random source.
    let fraction = jitter.isNaN ? 1 : min(max(jitter, 0), 1)
    return ceiling * fraction
  }
}
