public import ConversationState
import Foundation

/// A store for one conversation.
public typealias ConversationStore = Store<ConversationReducer>
/// A store for the user's conversation list.
public typealias ConversationListStore = Store<ConversationListReducer>

/// A reducer of conversations: `ConversationReducer`, or one that wraps it (recording, logging).
public protocol ConversationReducing: Reducer
where State == ConversationState, Action == ConversationAction, Effect == ConversationEffect {}

extension ConversationReducer: ConversationReducing {}

extension Store where R == ConversationReducer {
  /// A conversation store whose effects run against `backend`.
  ///
  /// ```swift
  /// let store = ConversationStore(backend: MyServer())
  /// store.send(.connect)
  /// store.sendMessage("Where is my order?")
  /// ```
  public convenience init(
    _ state: ConversationState = ConversationState(), backend: any ChatBackend, environment: StoreEnvironment = .live
  ) {
    self.init(state, reducer: ConversationReducer(), backend: backend, environment: environment)
  }
}

extension Store where R: ConversationReducing {
  /// A conversation store running `reducer` (for example a recording wrapper) against `backend`.
  public convenience init(
    _ state: ConversationState = ConversationState(), reducer: R, backend: any ChatBackend,
    environment: StoreEnvironment = .live
  ) {
    let runtime = ConversationRuntime(backend: backend)
    self.init(initialState: state, reducer: reducer, environment: environment) { effects, store in
      runtime.perform(effects, on: store)
    }
  }

  /// Sends a message, with a new client ID and the current time from the store's environment.
  /// Returns the client ID, which identifies the message for its whole life (retries included).
  @discardableResult
  public func sendMessage(_ text: String, attachments: [MessageAttachment] = []) -> ClientMessageID {
    let clientID = ClientMessageID(environment.makeID())
    send(
      .send(
        OutgoingMessage(clientID: clientID, text: text, attachments: attachments, createdAt: environment.clock.now())))
    return clientID
  }
}

extension Store where R == ConversationListReducer {
  /// A conversation-list store whose pages come from `backend`.
  public convenience init(
    _ state: ConversationListState = ConversationListState(), backend: any ChatBackend,
    environment: StoreEnvironment = .live
  ) {
    let requests = CancellableRegistry<RequestID>()
    self.init(initialState: state, reducer: ConversationListReducer(), environment: environment) { effects, store in
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
}
