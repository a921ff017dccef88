public import ConversationState
import Foundation

/// Performs a conversation store's effects against a `ChatBackend`, and feeds results back as actions.
///
/// Each request runs in its own task, keyed by its `RequestID`, so `.cancel` stops exactly that work.
/// A cancelled task reports nothing; anything it reports anyway is stale and ignored by the reducer.
public final class ConversationRuntime: Sendable {

  private let backend: any ChatBackend
  private let requests = CancellableRegistry<RequestID>()
  private let timers = CancellableRegistry<TimerID>()
  private let connection = CancellableRegistry<String>()
  private let signals = CancellableRegistry<String>()

  public init(backend: any ChatBackend) { self.backend = backend }

  /// Tasks still running: requests, timers and the realtime connection.
  public var runningTaskCount: Int { requests.count + timers.count + connection.count }

  /// Cancels everything this runtime started.
  public func cancelAll() {
    requests.cancelAll()
    timers.cancelAll()
    connection.cancelAll()
    signals.cancelAll()
  }

  public func perform<R: ConversationReducing>(_ effects: [ConversationEffect], on store: Store<R>) {
    for effect in effects { perform(effect, on: store) }
  }

  private func perform<R: ConversationReducing>(_ effect: ConversationEffect, on store: Store<R>) {
    let backend = backend
    let clock = store.environment.clock
    switch effect {
    case .sendMessage(let requestID, let payload):
      requests.run(requestID) { await Self.stream(backend.send(payload), requestID, into: store) }
    case .regenerate(let requestID, let conversationID, let prompt):
      requests.run(requestID) {
        await Self.stream(backend.regenerate(in: conversationID, replyTo: prompt), requestID, into: store)
      }
    case .cancel(let requestID):
      requests.cancel(requestID)
    case .fetchHistory(let requestID, let conversationID, let cursor, let limit):
      requests.run(requestID) {
        await Self.request(requestID, store) {
          .historyLoaded(requestID, try await backend.history(of: conversationID, before: cursor, limit: limit))
        }
      }
    case .fetchMessagesAfter(let requestID, let conversationID, let after):
      requests.run(requestID) {
        await Self.request(requestID, store) {
          .syncLoaded(requestID, try await backend.messages(in: conversationID, after: after))
        }
      }
    case .submitRating(let requestID, let conversationID, let messageID, let rating):
      requests.run(requestID) {
        await Self.request(requestID, store) {
          try await backend.rate(messageID, in: conversationID, as: rating)
          return .requestSucceeded(requestID)
        }
      }
    case .submitFeedback(let requestID, let conversationID, let rating, let comment):
      requests.run(requestID) {
        await Self.request(requestID, store) {
          try await backend.submitFeedback(rating, comment: comment, in: conversationID)
          return .requestSucceeded(requestID)
        }
      }
    case .createTicket(let requestID, let conversationID, let draft):
      requests.run(requestID) {
        await Self.request(requestID, store) {
          .ticketCreated(requestID, try await backend.createTicket(draft, from: conversationID))
        }
      }
    case .sendTypingSignal(let conversationID, let isTyping, _):
      // Best effort: a lost typing signal is not worth an error banner. The latest one replaces the last.
      signals.run("typing") { try? await backend.sendTyping(isTyping, in: conversationID) }
    case .startTimer(let timer, let seconds):
      timers.start(timer, after: seconds, on: clock) { store.send(.timerFired(timer, at: clock.now())) }
    case .cancelTimer(let timer):
      timers.cancel(timer)
    case .connectRealtime(let requestID, let conversationID):
      connection.run("realtime") {
        await Self.listen(backend.realtime(conversation: conversationID), requestID, store)
      }
    case .disconnectRealtime:
      connection.cancel("realtime")
    }
  }

  private static func stream<R: ConversationReducing>(
    _ events: AsyncThrowingStream<ReplyEvent, any Error>, _ requestID: RequestID, into store: Store<R>
  ) async {
    do {
      for try await event in events {
        if Task.isCancelled { return }
        switch event {
        case .accepted(let message, let conversationID):
          store.send(.sendAccepted(requestID, confirmed: message, conversationID: conversationID))
        case .started(let agent):
          store.send(.replyStarted(requestID, agent: agent, at: store.environment.clock.now()))
        case .delta(let text):
          store.send(.replyDelta(requestID, text))
        case .toolCall(let call):
          store.send(.toolCallStarted(requestID, call))
        case .toolResult(let callID, let outcome):
          store.send(.toolCallFinished(requestID, callID, outcome))
        case .finished(let message):
          store.send(.replyFinished(requestID, message: message))
        }
      }
      if !Task.isCancelled { store.send(.replyEnded(requestID)) }
    } catch {
      if let error = chatError(error) { store.send(.requestFailed(requestID, error)) }
    }
  }

  private static func request<R: ConversationReducing>(
    _ requestID: RequestID, _ store: Store<R>, _ operation: () async throws -> ConversationAction
  ) async {
    do {
      let result = try await operation()
      if !Task.isCancelled { store.send(result) }
    } catch {
      if let error = chatError(error) { store.send(.requestFailed(requestID, error)) }
    }
  }

  private static func listen<R: ConversationReducing>(
    _ updates: AsyncThrowingStream<RealtimeUpdate, any Error>, _ requestID: RequestID, _ store: Store<R>
  ) async {
    var failure = ChatError(.network, "The realtime connection closed.")
    do {
      for try await update in updates {
        if Task.isCancelled { return }
        switch update {
        case .opened: store.send(.connectionOpened(requestID))
        case .event(let conversationID, let event): store.send(.realtime(conversationID, event))
        }
      }
    } catch {
      guard let error = chatError(error) else { return }
      failure = error
    }
    guard !Task.isCancelled else { return }
    let environment = store.environment
    store.send(.connectionLost(failure, at: environment.clock.now(), jitter: environment.jitter()))
  }
}

/// The typed error a backend failure becomes; nil for cancellation, which is not a failure to report.
func chatError(_ error: any Error) -> ChatError? {
  if error is CancellationError || Task.isCancelled { return nil }
  if let error = error as? ChatError { return error }
  return ChatError(.network, String(describing: error))
}
