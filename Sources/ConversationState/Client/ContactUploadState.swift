public import Foundation

/// Whether the backend has the anonymous user's latest contact details (`ClientState.contact`).
///
/// ```
/// idle -> sending -> idle                       (taken: the backend has them)
/// sending -> waiting(retryAt) -> sending        (a retryable failure, with the outbox's backoff; or at once
///                                                when the connection opens)
/// sending -> needsCredentials -> sending        (an authorization failure, until a fresh credential)
/// sending -> refused                            (a permanent error: not sent again until they change)
/// ```
public enum ContactUploadState: Hashable, Sendable, Codable {
  /// Nothing to send: none were given, or the backend has the latest.
  case idle
  /// On their way, as `request`.
  case sending(RequestID)
  /// The last attempt failed in a way that can pass; they go again at `retryAt` (the client runtime's local
  /// clock), or when the connection opens.
  case waiting(attempt: Int, retryAt: Date)
  /// The server refused the credential; they go once the host refreshes it.
  case needsCredentials
  /// The backend cannot take them (`UNSUPPORTED`) or refused them (`INVALID_CONTACT`, …): not sent again
  /// until the host gives other details.
  case refused(ChatError)

  /// The request in flight, if any.
  public var requestID: RequestID? {
    if case .sending(let request) = self { return request }
    return nil
  }
}
