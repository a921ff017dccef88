import ConversationState
import Foundation

/// The rules every realtime connection follows — a conversation's own and a `ChatClient`'s shared one —
/// written once, on the two values each keeps: its `ConnectionState` and how many attempts failed since it
/// was last healthy. What differs around them stays with each reducer (a conversation syncs what it missed
/// and polls; the client wakes its stores and its outbox).
///
/// ```
/// idle | closed | reconnecting -> connecting          (open)
/// connecting -> connected                               (opened: proves nothing yet)
/// connected -> (healthy: failures back to 0)            (an event, or open for healthyConnectionAfter)
/// any live -> reconnecting(attempt, retryAt)            (a loss: backoff with jitter)
/// any live -> closed                                    (an authorization failure: a credential, not time)
/// ```
enum ConnectionRules {
  /// Whether a connection is to be opened: none is on its way or alive.
  static func needsOpening(_ connection: ConnectionState) -> Bool {
    switch connection {
    case .connecting, .connected, .syncing: return false
    case .idle, .closed, .reconnecting: return true
    }
  }

  /// Opened: how long it must stay open to prove healthy, or nil when the backoff is at its base already
  /// (nothing to prove).
  static func healthyAfter(opening failedAttempts: Int, _ policy: ChatPolicy) -> Double? {
    failedAttempts > 0 ? policy.healthyConnectionAfter : nil
  }

  /// It delivered an event or stayed open long enough: the next loss backs off from the base again.
  static func provenHealthy(_ connection: ConnectionState, failedAttempts: inout Int) {
    switch connection {
    case .connected, .syncing: failedAttempts = 0
    case .idle, .connecting, .reconnecting, .closed: break
    }
  }

  /// What a loss leads to.
  enum Loss: Equatable {
    /// The server refused the credential: closed until a fresh one.
    case needsCredentials
    /// Retry after this many seconds.
    case retry(after: Double)
  }

  /// The connection was lost with `error` at `at` (the runtime's local clock; a non-finite time counts as
  /// the reference date, so NaN never reaches the state), `jitter` in 0…1.
  static func lost(
    _ error: ChatError, at: Date, jitter: Double, _ policy: ChatPolicy, connection: inout ConnectionState,
    failedAttempts: inout Int
  ) -> Loss {
    if error.isAuthorizationFailure {
      connection = .closed
      return .needsCredentials
    }
    failedAttempts += 1
    let delay = policy.reconnectBackoff.delay(attempt: failedAttempts, jitter: jitter)
    let now = at.timeIntervalSinceReferenceDate.isFinite ? at : Date(timeIntervalSinceReferenceDate: 0)
    connection = .reconnecting(attempt: failedAttempts, retryAt: now.addingTimeInterval(delay))
    return .retry(after: delay)
  }
}
