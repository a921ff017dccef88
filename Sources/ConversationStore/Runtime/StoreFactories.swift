public import ConversationState
import Foundation
public import Reducers

/// A store for one conversation.
public typealias ChatStore = Store<ConversationReducer>
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
  /// let store = ChatStore(backend: MyServer())
  /// store.send(.connect)
  /// store.sendMessage("Where is my order?")
  /// ```
  ///
  /// `policy` sets the limits and timings (`ChatPolicy`); `credentials` refreshes an expired credential;
  /// `tools` are the app-side tools the agent may call, by name:
  ///
  /// ```swift
  /// let store = ChatStore(
  ///   backend: MyServer(),
  ///   tools: [
  ///     "lookupOrder": { arguments in try await orders.lookup(arguments["id"]) }
  ///   ])
  /// ```
  public convenience init(
    _ state: ConversationState = ConversationState(), policy: ChatPolicy = ChatPolicy(), backend: any ChatBackend,
    environment: StoreEnvironment = .live, credentials: ConversationRuntime<R>.CredentialProvider? = nil,
    tools: [String: ConversationRuntime<R>.ToolHandler] = [:], storedHistory: StoredHistoryReader? = nil
  ) {
    self.init(
      state, reducer: ConversationReducer(policy: policy.following(backend)), backend: backend,
      environment: environment,
      credentials: credentials, tools: tools, storedHistory: storedHistory)
  }
}

extension ChatPolicy {
  /// This policy, with what the backend's protocol decides in place of the host's choice: an
  /// `AgentBackend`'s tool-result delivery.
  public func following(_ backend: any ChatBackend) -> ChatPolicy {
    guard let agent = backend as? any AgentBackend else { return self }
    var policy = self
    policy.toolResultDelivery = agent.toolResultDelivery
    return policy
  }
}

extension Store where R: ConversationReducing {
  /// A conversation store running `reducer` (for example a recording wrapper) against `backend`.
  ///
  /// `credentials`, when given, is called for a fresh credential after an authorization failure (once per
  /// failure) before the state shows `needsCredentials`. `storedHistory` reads older pages of a
  /// conversation restored at its newest page (`ConversationFile.historyReader`); without it such pages
  /// come from the server, from its newest page again.
  public convenience init(
    _ state: ConversationState = ConversationState(), reducer: R, backend: any ChatBackend,
    environment: StoreEnvironment = .live, credentials: ConversationRuntime<R>.CredentialProvider? = nil,
    tools: [String: ConversationRuntime<R>.ToolHandler] = [:], storedHistory: StoredHistoryReader? = nil
  ) {
    self.init(
      initialState: state, reducer: reducer, environment: environment,
      runtime: ConversationRuntime<R>(
        backend: backend, credentials: credentials, tools: tools, storedHistory: storedHistory))
  }

  /// Sends a message, with a new client ID and the current time from the store's environment.
  /// Returns the client ID, which identifies the message for its whole life (retries included).
  @discardableResult
  public func sendMessage(_ text: String, attachments: [MessageAttachment] = []) -> ClientMessageID {
    send(text, attachments, as: ConversationAction.send)
  }

  /// Sends guidance for the turn the agent is answering, as `sendMessage` sends a message: it goes next,
  /// ahead of follow-ups queued before it (`ConversationAction.steer`). Returns its client ID.
  ///
  /// ```swift
  /// chat.steer("Use the EU store, not the US one")  // sent once the running answer completed
  /// ```
  @discardableResult
  public func steer(_ text: String, attachments: [MessageAttachment] = []) -> ClientMessageID {
    send(text, attachments, as: ConversationAction.steer)
  }

  /// Sends the suggestion at `index` of `state.shownSuggestions` (a starter prompt, or a follow-up offered
  /// with the last answer) as a message, with a new client ID and the environment's time. Returns the client
  /// ID; an index with no suggestion is refused with `INVALID_ACTION` in `userError`.
  ///
  /// ```swift
  /// chat.send(.setStarterPrompts(["Where is my order?", "Change my address"]))
  /// chat.sendSuggestion(0)  // sends "Where is my order?"
  /// ```
  @discardableResult
  public func sendSuggestion(_ index: Int) -> ClientMessageID {
    let clientID = ClientMessageID(environment.makeID())
    send(.sendSuggestion(index, clientID: clientID, at: environment.clock.now()))
    return clientID
  }

  /// `text` as a message with a new client ID and the environment's time, sent as `action` makes it.
  private func send(
    _ text: String, _ attachments: [MessageAttachment], as action: (OutgoingMessage) -> ConversationAction
  ) -> ClientMessageID {
    let clientID = ClientMessageID(environment.makeID())
    send(
      action(
        OutgoingMessage(clientID: clientID, text: text, attachments: attachments, createdAt: environment.clock.now())))
    return clientID
  }
}

extension Store where R == ConversationListReducer {
  /// A conversation-list store whose pages come from `backend`, and to which the user's changes and
  /// deletions go. `local` is the device's side (`ChatClient` passes its own): stored pages for a backend
  /// that keeps no list, and the deletion of a deleted conversation's data. `policy` gives the page sizes,
  /// the undo window and the retry backoff.
  ///
  /// ```swift
  /// let list = ConversationListStore(backend: MyServer())
  /// list.send(.load(pageSize: 30))
  /// list.send(.change(id, .title("Refund for order 1042")))
  /// ```
  public convenience init(
    _ state: ConversationListState = ConversationListState(), backend: any ChatBackend,
    environment: StoreEnvironment = .live, policy: ChatPolicy = ChatPolicy(),
    local: LocalConversationList? = nil
  ) {
    self.init(
      initialState: state, reducer: ConversationListReducer(policy: policy), environment: environment,
      runtime: ConversationListRuntime(backend: backend, local: local))
  }
}
