public import ConversationState
public import Reducers

/// Performs a conversation-list store's effects (page fetches) against a `ChatBackend`, with the same
/// guarantees as `ConversationRuntime`: keyed by request, cancellable, holding the store weakly.
public final class ConversationListRuntime: EffectRunner {
  /// The reducer whose effects this runtime performs.
  public typealias Runs = ConversationListReducer

  private let backend: any ChatBackend
  private let requests = CancellableRegistry<RequestID>()

  /// A runtime that fetches pages from `backend`; the store it is given to calls `close()`.
  public init(backend: any ChatBackend) { self.backend = backend }

  /// Page fetches still running.
  public var runningTaskCount: Int { requests.count }

  /// Cancels every page fetch and refuses later ones; the store calls this when it closes.
  public func close() { requests.cancelAll(closing: true) }

  /// Starts or cancels page fetches, in order; called by the store on the thread of the sender performing effects.
  public func perform(_ effects: [ConversationListEffect], for store: Store<ConversationListReducer>) {
    let store = StoreSink(store)
    let backend = backend
    for effect in effects {
      switch effect {
      case .fetchConversations(let requestID, let cursor, let limit):
        requests.run(requestID) {
          do {
            let page = try await backend.conversations(after: cursor, limit: limit)
            if !Task.isCancelled { store.send(.pageLoaded(requestID, page)) }
          } catch {
            if let error = chatError(error) { store.send(.requestFailed(requestID, error)) }
          }
        }
      case .cancel(let requestID):
        requests.cancel(requestID)
      }
    }
  }
}
