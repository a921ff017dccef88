import ChatHTTP
public import ConversationState

/// One run's view of a conversation, as AG-UI carries it: the message history in wire form (the protocol
/// has no side channel for earlier turns, so every run sends it), the shared state, and what a run's stream
/// left open. Built for each run from the stored conversation (`init(context:)`); the backend keeps none
/// between runs. A reasoning message's `encryptedValue` goes back as it was stored.
public struct AGUIThread: Hashable, Sendable {
  /// The history, oldest first: AG-UI message objects (`{"id", "role", …}`). Activity messages never
  /// go back to the agent and are not kept here.
  public private(set) var messages: [JSONValue] = []
  /// The agent's shared state as the conversation holds it (`{}` before any).
  public var state: JSONValue = .object([:])
  /// The IDs of every tool call the thread holds, so a later run's result for one is known.
  public private(set) var toolCallIDs: Set<String> = []
  private var positions: [String: Int] = [:]

  public init(messages: [JSONValue] = [], state: JSONValue = .object([:])) {
    self.state = state
    for message in messages { upsert(message) }
  }

  /// Adds `message`, or replaces the message with its ID in place (keeping its position).
  public mutating func upsert(_ message: JSONValue) {
    guard let id = message.field("id")?.stringValue else { return }
    if message.field("role")?.stringValue == "activity" { return }
    noteToolCalls(of: message)
    if let index = positions[id] {
      messages[index] = message
    } else {
      positions[id] = messages.count
      messages.append(message)
    }
  }

  /// The message with this ID, as kept.
  public func message(_ id: String) -> JSONValue? { positions[id].map { messages[$0] } }

  /// Reconciles the producer's `MESSAGES_SNAPSHOT`: a message with a known ID is replaced in place, new ones
  /// are appended in the snapshot's order, and a message the snapshot leaves out is dropped, except
  /// reasoning messages when the snapshot holds none (a snapshot that holds any declares the whole set), and
  /// the messages `pending` names (the one the request carries, which the producer may not have seen yet),
  /// which go after the snapshot's.
  public mutating func reconcile(snapshot: [JSONValue], keeping pending: Set<String> = []) {
    let snapshotIDs = Set(snapshot.compactMap { $0.field("id")?.stringValue })
    let declaresReasoning = snapshot.contains { $0.field("role")?.stringValue == "reasoning" }
    let kept = messages.filter { message in
      guard let id = message.field("id")?.stringValue else { return false }
      if snapshotIDs.contains(id) { return true }
      return !declaresReasoning && message.field("role")?.stringValue == "reasoning"
    }
    var rebuilt = AGUIThread(messages: kept, state: state)
    for message in snapshot { rebuilt.upsert(message) }
    for message in messages {
      guard let id = message.field("id")?.stringValue, pending.contains(id), rebuilt.message(id) == nil else {
        continue
      }
      rebuilt.upsert(message)
    }
    rebuilt.toolCallIDs.formUnion(toolCallIDs)
    self = rebuilt
  }

  private mutating func noteToolCalls(of message: JSONValue) {
    if let id = message.field("toolCallId")?.stringValue { toolCallIDs.insert(id) }
    guard case .array(let calls)? = message.field("toolCalls") else { return }
    for call in calls { if let id = call.field("id")?.stringValue { toolCallIDs.insert(id) } }
  }
}
