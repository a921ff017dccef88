import Dispatch

/// The one serial queue a client does its I/O on: its effects, every write to storage (snapshots, the
/// list, the outbox) and every move between scopes, in the order they were handed over. Being one queue is
/// what orders a snapshot's write against a sign-out that must not let it reach the old scope, without a
/// lock held across the write.
final class ClientWorker: Sendable {
  private let queue = DispatchQueue(label: "ConversationStore.ChatClient.worker")

  /// Runs `job` after everything handed over before it; returns at once.
  func async(_ job: @escaping @Sendable () -> Void) { queue.async(execute: job) }

  /// Runs `job` after everything handed over before it and returns its result.
  func run<T: Sendable>(_ job: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in queue.async { continuation.resume(returning: job()) } }
  }
}
