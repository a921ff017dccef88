public import ConversationState
import Foundation

/// Operations of the host's own, through the chat's durable outbox.
extension ChatClient {
  /// Queues `operation` (an analytics event, a profile property) in the scope's durable outbox, for
  /// `conversation` when it is about one, and returns its ID once it is on disk. It goes out in the same
  /// ordered batches as the chat's own operations, whenever the backend is reachable, through
  /// `ChatBackend.uploadOutbox` (the HTTP protocol's `"kind": "host"`), and counts against the same bounds
  /// (`ChatClientOptions.outboxLimits`; by default 2,000 operations, 2 MiB, 7 days, oldest evicted first). `ChatClientOptions.onHostOperation` hears
  /// whether the server accepted or refused it, once.
  ///
  /// ```swift
  /// let id = try await client.enqueue(HostOperation(kind: "profile.set", payload: ["plan": "pro"]))
  /// ```
  ///
  /// Throws, with nothing queued: `INVALID_ACTION` for a `kind` outside 1 to 64 letters, digits, `.`, `_`
  /// and `-`; `OPERATION_TOO_LARGE` for a payload over `ChatPolicy.maximumHostOperationBytes`;
  /// `UNSUPPORTED` for a client without storage (nothing could be kept); `STORAGE_FAILED` when the disk
  /// could not keep it.
  public func enqueue(_ operation: HostOperation, in conversation: ConversationID? = nil) async throws(ChatError)
    -> OutboxOperationID
  {
    if let refusal = operation.refusal(under: options.policy) { throw refusal }
    guard options.storage != nil else {
      throw ChatError.unsupported("host operations without storage (ChatClientOptions.storage)")
    }
    let id = OutboxOperationID(rawValue: "host-" + environment.makeID())
    let queued = OutboxOperation(
      id: id, conversationID: conversation, kind: .host(operation), enqueuedAt: environment.clock.now())
    let failure: ChatError? = await withCheckedContinuation { done in record(queued) { done.resume(returning: $0) } }
    if let failure { throw failure }
    return id
  }
}
