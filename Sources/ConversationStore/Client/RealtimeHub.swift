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

  /// The connection the hub reads, as the hub has seen it go. The client's reducer decides when a
  /// connection opens and closes (`ClientState.connection`); this is only where the hub's routing stands, kept
  /// under the same lock as the subscribers so that a store subscribing as the connection opens or drops is
  /// never left out:
  ///
  /// ```text
  /// idle -> opening        (`open`: the reducer asked for a connection)
  /// opening -> open        (its stream said it opened: subscribers hear `.opened`)
  /// opening, open -> lost  (its stream ended: subscribers end with its error)
  /// opening, open -> idle  (`cancel`: the reducer is replacing it)
  /// lost -> opening        (`open`: the reducer's next attempt)
  /// any -> closed          (`close`: the client closed; final)
  /// ```
  private enum Link {
    case idle
    /// The connection of `request` is being read and has not opened; its task, once attached.
    case opening(RequestID, Task<Void, Never>?)
    /// The connection of `request` is live.
    case open(RequestID, Task<Void, Never>?)
    /// The last connection ended with this error and no other is being read: a store that subscribes now is
    /// told at once, so it shows `reconnecting` instead of waiting on a connection that is not there.
    case lost(ChatError)
    case closed

    /// The request of the connection being read, if one is.
    var request: RequestID? {
      switch self {
      case .opening(let request, _), .open(let request, _): request
      case .idle, .lost, .closed: nil
      }
    }

    var task: Task<Void, Never>? {
      switch self {
      case .opening(_, let task), .open(_, let task): task
      case .idle, .lost, .closed: nil
      }
    }
  }

  private struct Routing {
    var subscribers: [UInt64: Subscriber] = [:]
    var nextID: UInt64 = 0
    var link = Link.idle
    var connectionsOpened = 0
  }

  private let routing = StateLock(Routing())

  /// How many times the backend's connection was opened.
  var connectionsOpened: Int { routing.withLock { $0.connectionsOpened } }

  /// A subscription to `conversation`'s events (nil: all of them).
  func subscribe(_ conversation: ConversationID?) -> Updates {
    let (updates, continuation) = Updates.makeStream()
    var subscriberID: UInt64 = 0
    let refusal: ChatError? = routing.withLock { state in
      switch state.link {
      case .closed: return ChatError(.network, "The client is closed.")
      // A network error whatever the loss was: the client's connection deals with credentials, once.
      case .lost(let loss): return ChatError(.network, "The shared connection is down: \(loss.message)")
      case .idle, .opening, .open:
        let id = state.nextID
        state.nextID += 1
        state.subscribers[id] = Subscriber(conversation: conversation, continuation: continuation)
        if case .open = state.link { continuation.yield(.opened) }
        subscriberID = id
        return nil
      }
    }
    if let refusal {
      continuation.finish(throwing: refusal)
      return updates
    }
    continuation.onTermination = { [weak self, subscriberID] _ in
      self?.routing.withLock { _ = $0.subscribers.removeValue(forKey: subscriberID) }
    }
    return updates
  }

  /// Reads `updates` as the connection of `request`: each update goes to its subscribers (and `toList`
  /// for the list; an event of the list alone goes to `listEvent`), and `report` hears that it opened,
  /// delivered, or ended.
  func open(
    _ request: RequestID, _ updates: Updates,
    toList: @escaping @Sendable (ConversationID, RealtimeEvent, _ storeHasIt: Bool) -> Void,
    listEvent: @escaping @Sendable (ConversationListEvent) -> Void,
    report: @escaping @Sendable (ClientAction) -> Void, clock: any ChatClock, jitter: @escaping @Sendable () -> Double
  ) {
    // The request is the current one before its task can report anything, so `.opened` is never dropped
    // for arriving first.
    let previous = routing.withLock { state -> Task<Void, Never>?? in
      if case .closed = state.link { return .none }
      defer {
        state.link = .opening(request, nil)
        state.connectionsOpened += 1
      }
      return .some(state.link.task)
    }
    // After `close` nothing more is read.
    guard let previous else { return }
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
          case .list(let event):
            listEvent(event)
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
      switch state.link {
      case .opening(request, nil): state.link = .opening(request, started)
      case .open(request, nil): state.link = .open(request, started)
      default: return true
      }
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
      guard state.link.request == request else { return nil }
      defer { state.link = .idle }
      return state.link.task
    }
    task?.cancel()
  }

  /// Ends every subscription and the connection; later subscriptions fail at once.
  func close() {
    let (task, subscribers) = routing.withLock { state -> (Task<Void, Never>?, [Subscriber]) in
      defer {
        state.link = .closed
        state.subscribers = [:]
      }
      return (state.link.task, Array(state.subscribers.values))
    }
    task?.cancel()
    for subscriber in subscribers { subscriber.continuation.finish() }
  }

  private func opened(_ request: RequestID) {
    let subscribers = routing.withLock { state -> [Subscriber] in
      guard case .opening(request, let task) = state.link else { return [] }
      state.link = .open(request, task)
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
      guard state.link.request == request else { return [] }
      state.link = .lost(error)
      defer { state.subscribers = [:] }
      return Array(state.subscribers.values)
    }
    for subscriber in subscribers { subscriber.continuation.finish(throwing: error) }
  }
}
