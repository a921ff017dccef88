public import Foundation

/// What a client's outbox uploader is doing. Operations wait in the durable outbox of the identity's
/// scope; the uploader sends them in ordered batches whenever the backend is reachable.
///
/// ```
/// idle -> preparing -> uploading -> preparing (the next batch) -> idle (nothing waits)
/// uploading -> waiting(retryAt) -> preparing      (a retryable failure, with backoff)
/// uploading -> needsCredentials -> preparing      (an authorization failure, until a fresh credential)
/// ```
public enum OutboxUploadState: Hashable, Sendable, Codable {
  /// Nothing is being uploaded; the next queued operation starts a batch.
  case idle
  /// The outbox is reading (or resuming) the next batch from disk.
  case preparing(RequestID)
  /// `batch` is on its way to the server.
  case uploading(RequestID, OutboxBatch)
  /// The last upload failed with a retryable error; the same batch is sent again at `retryAt` (the client
  /// runtime's local clock).
  case waiting(attempt: Int, retryAt: Date)
  /// The server refused the credential; nothing is sent until the host refreshes it
  /// (`ChatClient.credentialsRefreshed()`) or the identity changes.
  case needsCredentials

  /// The request whose result the uploader waits for, if any.
  public var requestID: RequestID? {
    switch self {
    case .preparing(let id), .uploading(let id, _): return id
    case .idle, .waiting, .needsCredentials: return nil
    }
  }
}
