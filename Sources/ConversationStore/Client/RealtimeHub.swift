import ConversationState

/// One realtime connection shared by every store of a `ChatClient`, routed by conversation.
///
/// Each store still runs its own connection state machine (connect, backoff, catch-up); what it connects to
/// is a subscription here. The backend's connection (`realtime(conversation: nil)`, all of the user's
/// conversations) is opened by the first subscriber, shared by the rest (a late one is told `.opened` at once
/// if the connection is live), and closed when the last one leaves. When it drops, every subscription ends
/// with its error, so every store reconnects; the first to come back opens it again, once.
final class RealtimeHub: Sendable {
  typealias Updates = AsyncThrowingStream<RealtimeUpdate, any Error>

  private struct Subscriber {
    /// nil: every conversation's events (the list); otherwise one conversation's.
    let conversation: ConversationID?
    let continuation: Updates.Continuation
  }

  private struct Connection {
    var subscribers: [UInt64: Subscriber] = [:]
    var nextID: UInt64 = 0
    var task: Task<Void, Never>?
    /// Distinguishes connections, so a task that ended cannot tear down its successor.
    var generation: UInt64 = 0
    var isOpen = false
    var isClosed = false
  }

  private let backend: any ChatBackend
  private let connection = StateLock(Connection())

  init(backend: any ChatBackend) { self.backend = backend }

  /// Whether the backend's connection is live now.
  var isOpen: Bool { connection.withLock { $0.isOpen } }

  /// How many times the backend's connection was opened (for tests: reconnects are once per client).
  var connectionsOpened: Int { connection.withLock { Int($0.generation) } }

  /// A subscription to `conversation`'s events (nil: all of them), opening the shared connection if needed.
  func subscribe(_ conversation: ConversationID?) -> Updates {
    let (updates, continuation) = Updates.makeStream()
    let subscriberID: UInt64? = connection.withLock { state in
      guard !state.isClosed else { return nil }
      let id = state.nextID
      state.nextID += 1
      state.subscribers[id] = Subscriber(conversation: conversation, continuation: continuation)
      if state.isOpen { continuation.yield(.opened) }
      if state.task == nil { startConnection(&state) }
      return id
    }
    guard let subscriberID else {
      continuation.finish(throwing: ChatError(.network, "The client is closed."))
      return updates
    }
    continuation.onTermination = { [weak self] _ in self?.unsubscribe(subscriberID) }
    return updates
  }

  /// Ends every subscription and the connection; later subscriptions fail at once.
  func close() {
    let subscribers = connection.withLock { state in
      state.isClosed = true
      state.task?.cancel()
      state.task = nil
      defer { state.subscribers = [:] }
      return Array(state.subscribers.values)
    }
    for subscriber in subscribers { subscriber.continuation.finish() }
  }

  /// Drops the connection (the identity changed: the old one carried the old credential). Every
  /// subscription ends with a retryable error, so every store reconnects, with the new credential.
  func reset() {
    let subscribers = connection.withLock { state -> [Subscriber] in
      state.task?.cancel()
      state.task = nil
      state.isOpen = false
      defer { state.subscribers = [:] }
      return Array(state.subscribers.values)
    }
    for subscriber in subscribers {
      subscriber.continuation.finish(throwing: ChatError(.network, "Reconnecting as the new user."))
    }
  }

  private func unsubscribe(_ id: UInt64) {
    connection.withLock { state in
      state.subscribers[id] = nil
      // Nobody listens: close the backend's connection rather than keep a socket open for no one.
      if state.subscribers.isEmpty {
        state.task?.cancel()
        state.task = nil
        state.isOpen = false
      }
    }
  }

  private func startConnection(_ state: inout Connection) {
    state.generation += 1
    let generation = state.generation
    let updates = backend.realtime(conversation: nil)
    state.task = Task { [weak self] in
      var failure: (any Error)?
      do {
        for try await update in updates {
          guard let self, !Task.isCancelled else { return }
          self.route(update)
        }
      } catch {
        failure = error
      }
      self?.connectionEnded(generation, failure)
    }
  }

  private func route(_ update: RealtimeUpdate) {
    connection.withLock { state in
      switch update {
      case .opened:
        state.isOpen = true
        for subscriber in state.subscribers.values { subscriber.continuation.yield(.opened) }
      case .event(let conversation, _):
        for subscriber in state.subscribers.values
        where subscriber.conversation == nil || subscriber.conversation == conversation {
          subscriber.continuation.yield(update)
        }
      }
    }
  }

  private func connectionEnded(_ generation: UInt64, _ failure: (any Error)?) {
    let subscribers = connection.withLock { state -> [Subscriber] in
      guard state.generation == generation, state.task != nil else { return [] }
      state.task = nil
      state.isOpen = false
      defer { state.subscribers = [:] }
      return Array(state.subscribers.values)
    }
    for subscriber in subscribers {
      if let failure { subscriber.continuation.finish(throwing: failure) } else { subscriber.continuation.finish() }
    }
  }
}
