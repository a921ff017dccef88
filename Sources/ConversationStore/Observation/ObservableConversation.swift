public import ConversationState
public import Foundation
public import Observation

/// A conversation store as an `@Observable` model on the main actor, observed area by area: a view that
/// reads `messages` is not invalidated by a streamed delta (which changes only `streamingReply`), and a
/// composer that reads `draft` is not invalidated by new messages.
///
/// What `send` changes is visible on return; everything else arrives through the store's snapshots.
///
/// ```swift
/// let chat = ObservableConversation(store)  // on the main actor, as the UI it drives
/// chat.send(.setDraft("Hi"))  // chat.draft == "Hi" now
/// // a message list view reads chat.messages, the reply bubble chat.streamingReply, a banner chat.connection
/// ```
@MainActor
@Observable
public final class ObservableConversation {
  /// Committed and outgoing messages.
  public private(set) var messages: MessageList
  /// The reply being streamed (the newest, when several are); every delta of it changes only this.
  public private(set) var streamingReply: StreamingReply?
  /// Older replies still streaming beside the newest (`ConversationState.overlappingReplies`); almost
  /// always empty.
  public private(set) var overlappingReplies: [StreamingReply]
  /// The realtime connection's state, for a "reconnecting…" banner.
  public private(set) var connection: ConnectionState
  /// Who is typing, with when their indicator expires (local device clock).
  public private(set) var typing: [ParticipantID: Date]
  /// What the AI agent is doing, for a "thinking…" or "running tool…" indicator.
  public private(set) var agentActivity: AgentActivity
  /// The text in the composer.
  public private(set) var draft: String
  /// The failure of the last thing the user asked for.
  public private(set) var userError: ChatError?
  /// The last failure of background work (sync, realtime, connection).
  public private(set) var backgroundError: ChatError?
  /// The whole state, for what has no area of its own; reading it tracks every change.
  public private(set) var state: ConversationState
  /// The store version the model is at.
  public private(set) var version: UInt64
  /// Which message rows changed in the last update.
  public private(set) var changes: ChangeSet<ClientMessageID>

  @ObservationIgnored private let follower: StoreFollower<ConversationReducer>

  /// A model at `store`'s current state, following its snapshots from now on. Holds the store for as long as the
  /// model lives.
  public init(_ store: ChatStore) {
    let (version, state) = store.current
    messages = state.messages
    streamingReply = state.streamingReply
    overlappingReplies = state.overlappingReplies
    connection = state.connection
    typing = state.typing
    agentActivity = state.agentActivity
    draft = state.draft
    userError = state.userError
    backgroundError = state.backgroundError
    self.state = state
    self.version = version
    changes = .reset
    follower = StoreFollower(store)
    follower.start { [weak self] version, state in self?.apply(version, state) }
  }

  /// Sends `action` to the store; its effect is visible when this returns.
  public func send(_ action: ConversationAction) {
    follower.send(action) { version, state in apply(version, state) }
  }

  private func apply(_ version: UInt64, _ new: ConversationState) {
    guard version > self.version else { return }
    // Each area is written only when it changed: a write, even of an equal value, is a change to
    // Observation, and would invalidate every view that reads that area.
    changes = new.changes(since: state)
    if new.messages != messages { messages = new.messages }
    if new.streamingReply != streamingReply { streamingReply = new.streamingReply }
    if new.overlappingReplies != overlappingReplies { overlappingReplies = new.overlappingReplies }
    if new.connection != connection { connection = new.connection }
    if new.typing != typing { typing = new.typing }
    if new.agentActivity != agentActivity { agentActivity = new.agentActivity }
    if new.draft != draft { draft = new.draft }
    if new.userError != userError { userError = new.userError }
    if new.backgroundError != backgroundError { backgroundError = new.backgroundError }
    state = new
    self.version = version
  }
}
