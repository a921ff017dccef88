import ConversationState
import Foundation

/// The routing half of a client's one realtime connection: the client's reducer decides when the backend's
/// connection opens and closes (`open`, `cancel`); the hub feeds what it carries to the subscribed stores,
/// the list, and back to the client as actions.
///
/// A store's subscription never opens a connection: it is told `.opened` when the shared connection is
/// live (at once, if it is), and ends with the connection's error when it drops, so the store shows
/// `reconnecting` and catches up once the client's connection is back. A store that subscribes while the
/// connection is down (lost, and no new attempt under way) is told so at once, with a network error: it
/// shows `reconnecting`, so what the user writes meanwhile goes to the durable outbox instead of being sent
/// into a connection that is not there.
final class RealtimeHub: Sendable {
  typealias Updates = AsyncThrowingStream<RealtimeUpdate, any Error>

  private struct Subscriber {
    let conversation: ConversationID?
    let continuation: Updates.Continuation
  }

  private struct Routing {
    var subscribers: [UInt64: Subscriber] = [:]
    var nextID: UInt64 = 0
    /// The connection being read, and the request it belongs to.
    var request: RequestID?
    var task: Task<Void, Never>?
    var isOpen = false
    var isClosed = false
    var connectionsOpened = 0
    /// Why the connection is down, from its loss until the next attempt.
    var lastLoss: ChatError?
  }

  private let routing = StateLock(Routing())

  /// Whether the shared connection is live now.
  var isOpen: Bool { routing.withLock { $0.isOpen } }

  /// How many times the backend's connection was opened.
  var connectionsOpened: Int { routing.withLock { $0.connectionsOpened } }

  /// A subscription to `conversation`'s events (nil: all of them).
  func subscribe(_ conversation: ConversationID?) -> Updates {
    let (updates, continuation) = Updates.makeStream()
    let subscriberID: UInt64? = routing.withLock { state in
      guard !state.isClosed else { return nil }
      let id = state.nextID
      state.nextID += 1
      if !state.isOpen, state.request == nil, state.lastLoss != nil { return nil }
      state.subscribers[id] = Subscriber(conversation: conversation, continuation: continuation)
      if state.isOpen { continuation.yield(.opened) }
      return id
    }
    guard let subscriberID else {
      let loss = routing.withLock { $0.isClosed ? nil : $0.lastLoss }
      // A network error whatever the loss was: the client's connection deals with credentials, once.
      continuation.finish(
        throwing: ChatError(
          .network, loss.map { "The shared connection is down: \($0.message)" } ?? "The client is closed."))
      return updates
    }
    continuation.onTermination = { [weak self] _ in
      self?.routing.withLock { _ = $0.subscribers.removeValue(forKey: subscriberID) }
    }
    return updates
  }

  /// Reads `updates` as the connection of `request`: each update goes to its subscribers (and `toList`
  /// for the list), and `report` hears that it opened, delivered, or ended.
  func open(
    _ request: RequestID, _ updates: Updates,
    toList: @escaping @Sendable (ConversationID, RealtimeEvent, _ storeHasIt: Bool) -> Void,
    report: @escaping @Sendable (ClientAction) -> Void, clock: any ChatClock, jitter: @escaping @Sendable () -> Double
  ) {
    // The request is the current one before its task can report anything, so `.opened` is never dropped
    // for arriving first.
    let previous = routing.withLock { state -> Task<Void, Never>? in
      defer {
        state.request = request
        state.task = nil
        state.isOpen = false
        state.lastLoss = nil
        state.connectionsOpened += 1
      }
      return state.task
    }
    previous?.cancel()
    let task = Task { [weak self] in
      var failure: ChatError = ChatError(.network, "The realtime connection ended.")
      var delivered = false
      do {
        for try await update in updates {
          guard let self, !Task.isCancelled else { return }
          switch update {
          case .opened:
            self.opened(request)
            report(.connectionOpened(request))
          case .rejected(let error):
            report(.frameRejected(request, error))
          case .event(let conversation, let event):
            let storeHasIt = self.route(update, of: conversation)
            toList(conversation, event, storeHasIt)
            if !delivered {
              delivered = true
              report(.connectionDelivered(request))
            }
          }
        }
      } catch {
        failure = chatError(error) ?? ChatError(.cancelled, "Cancelled.")
      }
      if Task.isCancelled { return }
      self?.ended(request, failure)
      report(.connectionLost(request, failure, at: clock.now(), jitter: jitter()))
    }
    let started = task
    let stale = routing.withLock { state -> Bool in
      // Cancelled (or replaced) before the task could be attached: it must not run on.
      guard state.request == request else { return true }
      state.task = started
      return false
    }
    if stale { task.cancel() }
  }

  /// Stops reading the connection of `request`. The client cancels its connection only to open the next
  /// one at once (a change of identity), so the subscriptions stay and hear `.opened` from that one: a store
  /// the change closes ends its own, and one that goes on under the new identity subscribes again itself
  /// (ending them here raced that, and showed a store `reconnecting` for a backoff after a guest signed up).
  func cancel(_ request: RequestID) {
    let task = routing.withLock { state -> Task<Void, Never>? in
      guard state.request == request else { return nil }
      state.request = nil
      state.isOpen = false
      defer { state.task = nil }
      return state.task
    }
    task?.cancel()
  }

  /// Ends every subscription and the connection; later subscriptions fail at once.
  func close() {
    let (task, subscribers) = routing.withLock { state -> (Task<Void, Never>?, [Subscriber]) in
      state.isClosed = true
      state.isOpen = false
      state.request = nil
      defer {
        state.task = nil
        state.subscribers = [:]
      }
      return (state.task, Array(state.subscribers.values))
    }
    task?.cancel()
    for subscriber in subscribers { subscriber.continuation.finish() }
  }

  private func opened(_ request: RequestID) {
    let subscribers = routing.withLock { state -> [Subscriber] in
      guard state.request == request else { return [] }
      state.isOpen = true
      return Array(state.subscribers.values)
    }
    for subscriber in subscribers { subscriber.continuation.yield(.opened) }
  }

  /// Hands `update` to its subscribers; true when a store of `conversation` is among them (its follower then
  /// tells the list), decided under the same lock as the hand-over, so a store that subscribes a moment
  /// later never leaves an event to nobody.
  private func route(_ update: RealtimeUpdate, of conversation: ConversationID) -> Bool {
    let subscribers = routing.withLock { state in
      state.subscribers.values.filter { $0.conversation == nil || $0.conversation == conversation }
    }
    for subscriber in subscribers { subscriber.continuation.yield(update) }
    return subscribers.contains { $0.conversation == conversation }
  }

  private func ended(_ request: RequestID, _ error: ChatError) {
    let subscribers = routing.withLock { state -> [Subscriber] in
      guard state.request == request else { return [] }
      state.request = nil
      state.task = nil
      state.isOpen = false
      state.lastLoss = error
      defer { state.subscribers = [:] }
      return Array(state.subscribers.values)
    }
    for subscriber in subscribers { subscriber.continuation.finish(throwing: error) }
  }
}
