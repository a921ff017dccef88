import ConversationState
import Persistence
import Reducers

/// An open conversation: its store and what follows it.
struct OpenConversation: Sendable {
  var store: ChatStore
  let follower: ConversationFollower
}

/// What a `ChatClient` guards with its one lock: its state, the effects reduced but not yet performed (and
/// the diagnostics not yet handed on), and the stores its state names by handle. Nothing under this lock does I/O or calls host code.
struct ClientCore: Sendable {
  var state: ClientState
  var queued: [ClientEffect] = []
  /// With diagnostics on: the events of the steps reduced so far that the worker has not handed on yet.
  var diagnosed: [ClientDiagnostic] = []
  var isPerforming = false
  var stores: [ConversationHandle: OpenConversation] = [:]
  /// Without storage: the last state of conversations closed for being idle, most recent last, at most
  /// `parkedLimit` (the oldest is forgotten, as a cache would).
  var parked: [(ConversationID, ConversationState)] = []
  static let parkedLimit = 64
  /// Who watches the state (`ChatClient.snapshots()`), by subscription.
  var watchers: [UInt64: AsyncStream<ClientState>.Continuation] = [:]
  var nextWatcher: UInt64 = 0

  init(state: ClientState) { self.state = state }

  /// The open conversation stores that may close for being idle: nobody outside the client holds them and
  /// nothing of theirs is in flight (a send, a reply, a load, a hand-over to the outbox), so a screen that
  /// went away never cuts off what it started. The limit is exceeded until they settle. One still reading
  /// its file may close when nothing was done in it meanwhile (no message, no draft): its file is as it was,
  /// and a host that opens conversations faster than files are read keeps no more stores than it holds.
  mutating func unheldHandles() -> Set<ConversationHandle> {
    var unheld = Set<ConversationHandle>()
    for handle in state.conversations.values where stores[handle] != nil {
      guard isKnownUniquelyReferenced(&stores[handle]!.store) else { continue }
      let conversation = stores[handle]!.store.state
      guard conversation.isSettled && conversation.outboxRecording.isEmpty else { continue }
      if !conversation.isRestoring || (conversation.messages.outgoing.isEmpty && conversation.draft.isEmpty) {
        unheld.insert(handle)
      }
    }
    return unheld
  }

  mutating func park(_ id: ConversationID, _ conversation: ConversationState) {
    parked.removeAll { $0.0 == id }
    parked.append((id, conversation))
    if parked.count > Self.parkedLimit { parked.removeFirst(parked.count - Self.parkedLimit) }
  }

  mutating func unpark(_ id: ConversationID) -> ConversationState? {
    guard let index = parked.firstIndex(where: { $0.0 == id }) else { return nil }
    return parked.remove(at: index).1
  }
}
