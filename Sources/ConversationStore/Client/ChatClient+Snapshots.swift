public import ConversationState

/// The client's own state, watched as a store's is: for what no conversation shows (a sign-in banner, the
/// shared connection, the outbox uploader) on a screen with no conversation open.
extension ChatClient {
  /// The client's state now and after each change (`ClientState`: who is signed in, whether the app must
  /// sign in again (`awaitsHostCredentials`), the shared connection, the outbox uploader and how many changes
  /// wait in the outbox (`outboxCount`)). The first element is the state as it is; then each change, newest
  /// first: a slow reader skips states, never gets a stale one last. It ends when the client closes, or when
  /// the reading task is cancelled.
  ///
  /// ```swift
  /// for await state in client.snapshots() {
  ///   let waiting = state.outboxCount ?? 0
  ///   banner.isHidden = !state.awaitsHostCredentials && !state.connection.isOffline && waiting == 0
  ///   banner.text = waiting == 0 ? "Offline" : "\(waiting) changes waiting to be sent"
  /// }
  /// ```
  public func snapshots() -> AsyncStream<ClientState> {
    let (stream, continuation) = AsyncStream.makeStream(of: ClientState.self, bufferingPolicy: .bufferingNewest(1))
    let id = core.withLock { core in
      defer { core.nextWatcher += 1 }
      return core.nextWatcher
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.core.withLock { $0.watchers.removeValue(forKey: id) }
    }
    let closed = core.withLock { core -> Bool in
      continuation.yield(core.state)
      guard !core.state.isClosed else { return true }
      core.watchers[id] = continuation
      return false
    }
    if closed { continuation.finish() }
    return stream
  }

  /// Ends every watcher's stream (the client closed): taken out under the lock, finished outside it, as
  /// finishing runs each stream's termination handler, which takes the lock.
  func finishWatchers() {
    let watchers = core.withLock { core -> [AsyncStream<ClientState>.Continuation] in
      defer { core.watchers = [:] }
      return Array(core.watchers.values)
    }
    for watcher in watchers { watcher.finish() }
  }
}

extension ClientCore {
  /// Hands the state to every watcher. Under the client's lock, and safe there: a continuation's `yield`
  /// only puts the value in its stream's one-element buffer (under the stream's own lock) and resumes a
  /// waiting reader's continuation, which schedules that reader's task and runs none of its code; the
  /// stream's termination handler, which takes the client's lock, runs on `finish` or cancellation, never
  /// from `yield`.
  mutating func publish() {
    for (id, watcher) in watchers {
      // A reader that stopped between subscribing and being registered is let go here.
      if case .terminated = watcher.yield(state) { watchers[id] = nil }
    }
  }
}
