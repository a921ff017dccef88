public import Foundation

/// The conversation as an agent request carries it (`AgentBackend`): the stored conversation's messages
/// before the request's own, oldest first, cut by the backend's `AgentContextPolicy`.
///
/// Built by the store from the conversation it shows: the messages in memory, and older ones read from this
/// device's storage when memory holds fewer than the policy asks for. A protocol encodes it into its own
/// history field (AG-UI `messages`, the AI SDK's `messages`, OpenAI's `messages` or `input`); no backend
/// keeps a copy of its own, so the agent is sent what the user sees, after a relaunch too.
///
/// Which messages it holds: those the server took (`delivery == .sent`), answers that ended (never the reply
/// streaming now) and said something (text, parts or tool calls); an answer that failed before it said
/// anything is left out. System notes are carried (sent in the protocol's `system` role), and so are a human
/// agent's messages (sent as `assistant`); `AgentContextPolicy.transform` drops what the agent should not see.
public struct AgentContext: Hashable, Sendable {
  /// The messages, oldest first.
  public var messages: [Message]
  /// The agent's shared state as the conversation holds it (`ConversationState.agentState`), for
  /// protocols that send it back (AG-UI `state`); nil before the agent sent any.
  public var agentState: JSONValue?

  /// A context of `messages`, oldest first, and the agent's shared state.
  public init(messages: [Message] = [], agentState: JSONValue? = nil) {
    self.messages = messages
    self.agentState = agentState
  }

  /// Whether `message` belongs in an agent's history (see the type's notes).
  public static func carries(_ message: Message) -> Bool {
    guard message.delivery == .sent else { return false }
    guard message.role == .assistant || message.role == .humanAgent else { return true }
    if message.reply == .streaming { return false }
    return !message.text.isEmpty || !message.parts.isEmpty || !message.toolCalls.isEmpty
  }
}

/// Where an agent request's context ends in the conversation: the request's own message is never part of
/// its context, except a regeneration's prompt, which is its last message.
public enum AgentContextEnd: Hashable, Sendable {
  /// Before the message with this client ID (a send: the user's new message; a continuation: its answer).
  case before(ClientMessageID)
  /// Through the message with this server ID (a regeneration's prompt).
  case through(ServerMessageID)
  /// Everything the conversation holds (a resumed reply, which is not a committed message yet).
  case everything
}

/// What memory holds of an agent request's context, and where storage must be read for more: the pure
/// half of building an `AgentContext` (the runtime reads storage and applies the host's transform).
public struct AgentContextWindow: Hashable, Sendable {
  /// The newest messages of the context memory holds, oldest first (at most the limit asked).
  public var messages: [Message]
  /// How many more the context may take, read from storage before `olderThan`; 0 when none are needed
  /// or storage has none.
  public var storedNeeded: Int
  /// The position storage is read before: the oldest message in memory, or nil for the newest stored.
  public var olderThan: MessageOrderKey?
  /// The agent's shared state.
  public var agentState: JSONValue?

  /// A window of `messages`, needing `storedNeeded` more from storage before `olderThan`.
  public init(messages: [Message], storedNeeded: Int, olderThan: MessageOrderKey? = nil) {
    self.messages = messages
    self.storedNeeded = storedNeeded
    self.olderThan = olderThan
  }
}

extension ConversationState {
  /// The newest `limit` messages an agent request ending at `end` carries from memory, and how many more
  /// to read from storage: O(limit), whatever the conversation's length.
  ///
  /// A conversation reading older pages while newer ones wait in storage (`HistoryPaging.newerGap`) does not
  /// hold its newest messages, so the context of a request that ends at them (a send) is read from storage.
  public func agentContextWindow(ending end: AgentContextEnd, limit: Int) -> AgentContextWindow {
    let limit = max(0, limit)
    var endIndex = messages.endIndex
    // Whether the context ends at the newest messages, which memory may not hold (a newer gap).
    var endsAtNewest = true
    switch end {
    case .before(let clientID):
      if let index = messages.index(of: clientID) {
        endIndex = index
        endsAtNewest = messages.containsOutgoing(clientID)
      }
    case .through(let serverID):
      if let clientID = messages.clientID(ofServerID: serverID), let index = messages.index(of: clientID) {
        endIndex = index + 1
        endsAtNewest = false
      }
    case .everything: break
    }
    if endsAtNewest, history.newerGap != nil {
      var window = AgentContextWindow(messages: [], storedNeeded: limit, olderThan: nil)
      window.agentState = agentState
      return window
    }
    var newestFirst: [Message] = []
    var index = endIndex - 1
    var oldestVisited: Message?
    while index >= 0, newestFirst.count < limit {
      let message = messages[index]
      if message.isCommitted { oldestVisited = message }
      if AgentContext.carries(message) { newestFirst.append(message) }
      index -= 1
    }
    let reachedStart = index < 0
    let more = reachedStart && history.hasStoredHistory ? limit - newestFirst.count : 0
    var window = AgentContextWindow(
      messages: newestFirst.reversed(), storedNeeded: more,
      olderThan: more > 0 ? (messages.firstCommitted ?? oldestVisited)?.orderKey : nil)
    window.agentState = agentState
    return window
  }
}

extension AgentContext {
  /// The user's message a send carries, as every agent protocol sends it: the payload's client ID, text and
  /// attachments, at `now` (the device's clock: the protocols send no time).
  public static func userMessage(_ payload: SendPayload, at now: Date) -> Message {
    Message(
      clientID: payload.clientID, role: .user, text: payload.text, createdAt: now, delivery: .sent,
      attachments: payload.attachments)
  }

  /// Checks that a regeneration's context ends with its prompt: `UNKNOWN_MESSAGE` when it does not (the
  /// conversation does not hold it, or holds it without the server ID the request names).
  public func checkEnds(with prompt: ServerMessageID) throws(ChatError) {
    guard messages.last?.serverID == prompt else {
      throw ChatError(.unknownMessage, "The conversation does not hold message \(prompt.rawValue).")
    }
  }
}

extension ToolCall {
  /// This call as an agent is sent it when the conversation went on without its outcome (the user wrote
  /// again while it ran or waited): failed `CANCELLED`, saying so. Protocols that need every call answered
  /// before the conversation goes on (AG-UI, OpenAI's APIs) send it.
  public var abandoned: ToolCall {
    var call = self
    call.outcome = .failed(ChatError(.cancelled, "The user went on without this call's result."))
    return call
  }
}
