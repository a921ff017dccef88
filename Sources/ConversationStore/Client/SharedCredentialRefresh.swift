import ConversationState

/// One call of the host's credential provider at a time for a whole client: its shared connection, its
/// outbox and every store it opened. A refresh asked for while one runs waits for that one's answer
/// instead of calling the provider again, so a token that expires under ten open conversations is renewed
/// once, not ten times.
///
/// It decides nothing: when to ask is the reducers' rule (once per failure, never for a fresh credential
/// refused at once), and a store's refresh is not asked at all while the client waits for the host
/// (`ClientState.awaitsHostCredentials`).
final class SharedCredentialRefresh: Sendable {
  private let provider: ConversationRuntime<ConversationReducer>.CredentialProvider
  /// The provider call under way, if any, and how many were started (the number tells a call's own slot
  /// from a later one's).
  private let calls = StateLock<(started: UInt64, running: (number: UInt64, task: Task<Void, any Error>)?)>((0, nil))

  init(_ provider: @escaping ConversationRuntime<ConversationReducer>.CredentialProvider) { self.provider = provider }

  /// Waits for the provider's answer: of the call under way, or of a new one. Cancelling the caller stops
  /// its wait, never the provider (see `uncancelledHostCall`).
  func refresh() async throws {
    let provider = provider
    let calls = calls
    let task = calls.withLock { slot -> Task<Void, any Error> in
      if let running = slot.running { return running.task }
      slot.started += 1
      let number = slot.started
      // Made under the lock so that two callers never start two calls. Making a task runs no host code
      // here: the provider runs on the task, which takes the lock again only once it has answered.
      let task = Task<Void, any Error> {
        defer { calls.withLock { if $0.running?.number == number { $0.running = nil } } }
        try await provider()
      }
      slot.running = (number, task)
      return task
    }
    try await uncancelledHostCall { try await task.value }
  }
}
