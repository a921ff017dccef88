import ConversationState
import Foundation

/// The outbox uploader: ordered batches of 1 to 100 operations, one at a time, whenever the backend is
/// reachable (not only while the realtime connection is open). A retryable failure sends the same batch
/// again after 30 s doubling to 240 s with full jitter, or after the server's `Retry-After` when longer; an authorization failure waits for a fresh
/// credential; a batch refused whole ends each of its operations as failed with the server's error.
extension ClientReducer {
  /// Something was queued, or the backend proved reachable (`reachable`: the connection opened), which
  /// also ends a wait after a failed upload, and a wait for credentials (the connection opened with the
  /// credential there is now; if the outbox is refused again it waits again).
  func outboxChanged(reachable: Bool = false, _ state: inout ClientState) -> [ClientEffect] {
    switch state.outbox {
    case .idle: return prepareBatch(&state)
    case .waiting where reachable: return [.cancelTimer(.outboxRetry)] + prepareBatch(&state)
    case .needsCredentials where reachable: return prepareBatch(&state)
    case .preparing, .uploading:
      // Reachability adds nothing to read; a new operation does.
      if !reachable { state.outboxHasMore = true }
      return []
    case .waiting, .needsCredentials: return []
    }
  }

  func prepareBatch(_ state: inout ClientState) -> [ClientEffect] {
    let request = state.beginRequest()
    state.outbox = .preparing(request)
    state.outboxHasMore = false
    return [.prepareBatch(request)]
  }

  func batchPrepared(_ request: RequestID, _ batch: OutboxBatch?, _ state: inout ClientState) -> [ClientEffect] {
    guard state.outbox == .preparing(request) else { return [] }
    guard let batch, !batch.operations.isEmpty else {
      if state.outboxHasMore { return prepareBatch(&state) }
      state.outbox = .idle
      return []
    }
    state.outbox = .uploading(request, batch)
    return [.uploadBatch(request, batch)]
  }

  func batchUploaded(_ request: RequestID, _ receipt: OutboxReceipt, _ state: inout ClientState) -> [ClientEffect] {
    guard case .uploading(request, let batch) = state.outbox else { return [] }
    let recovering = state.outboxFailures > 0
    state.outboxFailures = 0
    state.credentialRenewal = nil
    clearRecoveredError(recovering: recovering, &state)
    var effects: [ClientEffect] = [.cancelTimer(.outboxRetry), .finishBatch(batch.id)]
    let refused = receipt.rejections.compactMap { rejection in
      batch.operations.first { $0.id == rejection.operationID }.map {
        RefusedOperation($0, rejection.error(for: $0.kind))
      }
    }
    effects += settle(batch, refused: refused)
    // More may wait behind this batch.
    return effects + prepareBatch(&state)
  }

  /// Where the answer to `batch` goes: the chat's refused operations back to their conversations, and the
  /// outcome of each host operation, in order (refused as `refused` says, else accepted), to the host.
  private func settle(_ batch: OutboxBatch, refused: [RefusedOperation]) -> [ClientEffect] {
    var effects: [ClientEffect] = []
    let chatRefused = refused.filter { !$0.operation.isHostOperation }
    if !chatRefused.isEmpty { effects.append(.returnRefused(chatRefused)) }
    let errors = Dictionary(refused.map { ($0.operation.id, $0.error) }, uniquingKeysWith: { first, _ in first })
    let outcomes = batch.operations.compactMap { operation in
      HostOperationOutcome(operation, errors[operation.id].map(HostOperationOutcome.Result.refused) ?? .accepted)
    }
    if !outcomes.isEmpty { effects.append(.reportHostOperations(outcomes)) }
    return effects
  }

  func batchFailed(
    _ request: RequestID, _ error: ChatError, at: Date, jitter: Double, _ state: inout ClientState
  ) -> [ClientEffect] {
    guard let current = state.outbox.requestID, current == request else { return [] }
    state.backgroundError = error
    if error.isAuthorizationFailure {
      state.outbox = .needsCredentials
      return credentialRefused(by: request, error, &state)
    }
    if case .uploading(_, let batch) = state.outbox, !error.retryable {
      // Refused whole: sending it again would be refused again. Each operation fails where it was made.
      return [.finishBatch(batch.id)] + settle(batch, refused: batch.operations.map { RefusedOperation($0, error) })
        + prepareBatch(&state)
    }
    return backOff(at: at, jitter: jitter, after: error, &state)
  }

  /// The server took nothing of the batch because it numbers the outbox elsewhere (a stale epoch, a gap):
  /// the outbox is numbered from where the server is and the same operations go again, renumbered, after
  /// the backoff, never sooner. A server that keeps answering so is met by a wait that grows as for any
  /// failure; nothing is lost.
  func batchOutOfSync(
    _ request: RequestID, _ sequencing: OutboxSequencing, at: Date, jitter: Double, _ state: inout ClientState
  ) -> [ClientEffect] {
    guard case .uploading(request, let batch) = state.outbox else { return [] }
    state.backgroundError = ChatError(
      .outboxOutOfSync,
      "The server numbers the outbox from epoch \(sequencing.epoch), sequence \(sequencing.nextSequence); its "
        + "operations go again, numbered from there.")
    return [.resynchronizeOutbox(batch.id, sequencing)] + backOff(at: at, jitter: jitter, &state)
  }

  /// Waits out the outbox's backoff for one more failed attempt before the next upload, or the server's
  /// `Retry-After` when `error` carries a longer one (`ChatPolicy.outboxRetryDelay`).
  private func backOff(at: Date, jitter: Double, after error: ChatError? = nil, _ state: inout ClientState)
    -> [ClientEffect]
  {
    state.outboxFailures += 1
    let failures = state.outboxFailures
    let delay = policy.outboxRetryDelay(attempt: failures, after: error, jitter: jitter)
    state.outbox = .waiting(attempt: failures, retryAt: finite(at).addingTimeInterval(delay))
    return [.startTimer(.outboxRetry, seconds: delay)]
  }
}
