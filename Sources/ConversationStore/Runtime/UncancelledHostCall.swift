import ConversationState

/// Runs a host's callback (a credential or token provider) in a task of its own that the caller's
/// cancellation never reaches, and returns its result; when the caller is cancelled first, it throws
/// `CancellationError` at once and the callback's result, when it comes, is dropped.
///
/// Why not cancel the callback: on Linux, cancelling a task that awaits FoundationNetworking's async
/// `URLSession.data(for:)` while its response completes deadlocks the session's work queue against the
/// task's status lock (swift-corelibs-foundation#5412, seen here with a credential provider that asked its
/// token server), and a provider is exactly such a call. The callback is bounded by its own timeouts.
package func uncancelledHostCall<T: Sendable>(_ call: @escaping @Sendable () async throws -> T) async throws -> T {
  let slot = HostCallSlot<T>()
  return try await withTaskCancellationHandler {
    try await withCheckedThrowingContinuation { continuation in
      guard slot.install(continuation) else { return }
      Task.detached {
        let result: Result<T, any Error>
        do { result = .success(try await call()) } catch { result = .failure(error) }
        slot.resume(with: result)
      }
    }
  } onCancel: {
    slot.resume(with: .failure(CancellationError()))
  }
}

/// The caller's continuation, resumed once by whichever comes first: the callback's result or the caller's
/// cancellation. Resumed outside the lock.
private final class HostCallSlot<T: Sendable>: Sendable {
  private let state = StateLock<(continuation: CheckedContinuation<T, any Error>?, early: Result<T, any Error>?)>(
    (nil, nil))

  /// Keeps `continuation` until a result comes; false when one came first (a cancellation before the
  /// continuation existed), which then resumes it at once.
  func install(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
    let early = state.withLock { state -> Result<T, any Error>? in
      if let early = state.early { return early }
      state.continuation = continuation
      return nil
    }
    guard let early else { return true }
    continuation.resume(with: early)
    return false
  }

  func resume(with result: Result<T, any Error>) {
    let continuation = state.withLock { state -> CheckedContinuation<T, any Error>? in
      defer { state.continuation = nil }
      if state.continuation == nil, state.early == nil { state.early = result }
      return state.continuation
    }
    continuation?.resume(with: result)
  }
}
