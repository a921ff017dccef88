public import ConversationState
public import Reducers

/// Performs a conversation-list store's effects (page fetches, the user's changes and deletions, timers)
/// against a `ChatBackend`, with the same guarantees as `ConversationRuntime`: keyed by request,
/// cancellable, holding the store weakly.
public final class ConversationListRuntime: EffectRunner {
  /// The reducer whose effects this runtime performs.
  public typealias Runs = ConversationListReducer
  private let backend: any ChatBackend
  private let local: LocalConversationList?
  private let requests = CancellableRegistry<RequestID>()
  private let timers = CancellableRegistry<ListTimer>()

  /// A runtime that fetches pages from `backend` and sends it the user's changes; `local`, when given, is
  /// the device's side of the list (`ChatClient` gives one): its pages when the backend keeps no list, and
  /// the deletion of a deleted conversation's data. The store it is given to calls `close()`.
  public init(backend: any ChatBackend, local: LocalConversationList? = nil) {
    self.backend = backend
    self.local = local
  }

  /// Requests and timers still running.
  public var runningTaskCount: Int { requests.count + timers.count }

  /// Cancels every request and timer and refuses later ones; the store calls this when it closes.
  public func close() {
    requests.cancelAll(closing: true)
    timers.cancelAll(closing: true)
  }

  /// Starts or cancels requests and timers, in order; called by the store on the thread of the sender
  /// performing effects.
  public func perform(_ effects: [ConversationListEffect], for store: Store<ConversationListReducer>) {
    let sink = StoreSink(store)
    let backend = backend
    let local = local
    for effect in effects {
      switch effect {
      case .fetchConversations(let requestID, let cursor, let limit):
        requests.run(requestID) {
          do {
            let page = try await Self.page(after: cursor, limit: limit, from: backend, or: local)
            if !Task.isCancelled { sink.send(.pageLoaded(requestID, page)) }
          } catch {
            if let error = chatError(error) { sink.send(.requestFailed(requestID, error)) }
          }
        }
      case .cancel(let requestID):
        requests.cancel(requestID)
      case .updateConversation(let requestID, let id, let change):
        run(requestID, sink) { try await backend.updateConversation(id, change) }
      case .deleteConversation(let requestID, let id):
        run(requestID, sink) { try await backend.deleteConversation(id) }
      case .startTimer(let timer, let seconds):
        timers.start(timer, after: seconds, on: sink.clock) { sink.send(.timerFired(timer)) }
      case .cancelTimer(let timer):
        timers.cancel(timer)
      case .forgetConversation(let id):
        guard let local else { continue }
        Task { await local.forget(id) }
      }
    }
  }

  /// The backend's page; when it keeps no list (`UNSUPPORTED`), the device's stored one.
  private static func page(
    after cursor: PageCursor?, limit: Int, from backend: any ChatBackend, or local: LocalConversationList?
  ) async throws -> ConversationPage {
    do {
      return try await backend.conversations(after: cursor, limit: limit)
    } catch let error as ChatError where error.code == .unsupported {
      guard let local else { throw error }
      return try await local.page(cursor, limit)
    }
  }

  /// Runs a change or a deletion and reports it saved or failed.
  private func run(
    _ requestID: RequestID, _ sink: StoreSink<ConversationListReducer>,
    _ operation: @escaping @Sendable () async throws -> Void
  ) {
    requests.run(requestID) {
      do {
        try await operation()
        if !Task.isCancelled { sink.send(.editSaved(requestID)) }
      } catch {
        if let error = chatError(error) { sink.send(.editFailed(requestID, error, jitter: sink.jitter())) }
      }
    }
  }
}

/// The device's side of a conversation list (`ConversationListRuntime(backend:local:)`): `ChatClient` makes
/// one over its storage; a host wiring a list to its own storage can too.
public struct LocalConversationList: Sendable {
  /// A page of the stored conversations (`ScopeDirectory.storedConversations(after:limit:)`), for a backend
  /// that keeps no list. Throw a `ChatError` (`STORAGE_FAILED`) when the disk cannot be read.
  public var page: @Sendable (_ after: PageCursor?, _ limit: Int) async throws -> ConversationPage
  /// Deletes what the device stores of a conversation the list deleted (`forgetConversation`); called on a
  /// task of its own, never under a lock.
  public var forget: @Sendable (ConversationID) async -> Void

  public init(
    page: @escaping @Sendable (_ after: PageCursor?, _ limit: Int) async throws -> ConversationPage,
    forget: @escaping @Sendable (ConversationID) async -> Void
  ) {
    self.page = page
    self.forget = forget
  }
}
