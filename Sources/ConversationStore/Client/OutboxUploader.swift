import ConversationState
import Foundation
import Persistence

/// Uploads a client's durable outbox: in order, in batches of 1 to 100 with contiguous sequence numbers, each
/// retried under its own ID until the server has it.
///
/// It works when kicked (something was queued, the connection opened, the credential was refreshed) and the
/// connection is live. A failed upload waits 30 s, doubling to 240 s, with full jitter, then retries the same
/// batch; an authorization failure is not retried (the next kick tries again). Operations the server refused
/// go back to their conversations as typed errors.
final class OutboxUploader: Sendable {
  /// Failed uploads wait this long, with full jitter: 30 s doubling to 240 s.
  static let backoff = Backoff(base: 30, cap: 240)

  private let kicks: AsyncStream<Void>.Continuation
  private let task: Task<Void, Never>

  /// - Parameters:
  ///   - outbox: the outbox of the scope in use now (nil without storage).
  ///   - isOnline: whether the client's realtime connection is live.
  ///   - refused: a refused operation of `outbox`, with the error its message or rating shows.
  init(
    backend: any ChatBackend, environment: StoreEnvironment, outbox: @escaping @Sendable () -> Outbox?,
    isOnline: @escaping @Sendable () -> Bool,
    refused: @escaping @Sendable (Outbox, OutboxOperation, ChatError) -> Void,
    onStorageError: (@Sendable (PersistenceError) -> Void)?
  ) {
    let (kicked, kicks) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    self.kicks = kicks
    task = Task {
      var failures = 0
      for await _ in kicked {
        while !Task.isCancelled, isOnline(), let current = outbox() {
          let batch: OutboxBatch?
          do throws(PersistenceError) {
            batch = try current.beginBatch(limit: 100, makeID: environment.makeID)
          } catch {
            onStorageError?(error)
            break
          }
          guard let batch, !batch.operations.isEmpty else { break }
          do {
            let receipt = try await backend.uploadOutbox(batch)
            failures = 0
            do throws(PersistenceError) {
              try current.finishBatch(batch.id)
            } catch {
              onStorageError?(error)
            }
            for rejection in receipt.rejections {
              guard let operation = batch.operations.first(where: { $0.id == rejection.operationID }) else { continue }
              refused(current, operation, rejection.error)
            }
          } catch {
            guard let error = chatError(error) else { return }  // cancelled: the client is closing
            if !error.retryable { break }  // an authorization failure: wait for the next kick
            failures += 1
            let delay = Self.backoff.delay(attempt: failures, jitter: environment.jitter())
            do { try await environment.clock.sleep(seconds: delay) } catch { return }
          }
        }
      }
    }
  }

  /// Something may be uploadable now.
  func kick() { kicks.yield() }

  /// Stops uploading; an upload in flight is cancelled (and retried unchanged by the next client).
  func stop() async {
    kicks.finish()
    task.cancel()
    await task.value
  }
}
