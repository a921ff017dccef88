import ConversationState
import Persistence
import Reducers

/// An open conversation: its store and what follows it.
struct OpenConversation: Sendable {
  var store: ChatStore
  let follower: ConversationFollower
}

/// What a `ChatClient` keeps under its lock: who is signed in, where their data goes, and the open stores.
struct ClientRegistry: Sendable {
  var identity: UserIdentity?
  var scope: ScopeStorage?
  /// The list's epoch whose snapshots belong to `scope`; others are never written there. nil while the
  /// identity is changing: nothing is written until the new identity's list epoch is known.
  var listEpoch: IdentityEpoch? = IdentityEpoch()
  var open: [ConversationID: OpenConversation] = [:]
  /// The store of the conversation being started, until the server gives it an ID.
  var pendingNew: OpenConversation?
  /// Without storage: the last state of conversations closed for being idle.
  var parked: [ConversationID: ConversationState] = [:]
  /// When each open conversation was last asked for, in asks.
  var lastUse: [ConversationID: UInt64] = [:]
  var uses: UInt64 = 0
  var isClosed = false

  init(identity: UserIdentity?) { self.identity = identity }

  var allOpen: [OpenConversation] { Array(open.values) + (pendingNew.map { [$0] } ?? []) }
  var allStores: [ChatStore] { allOpen.map(\.store) }

  mutating func use(_ id: ConversationID) -> ChatStore? {
    guard let store = open[id]?.store else { return nil }
    touch(id)
    return store
  }

  mutating func touch(_ id: ConversationID) {
    uses += 1
    lastUse[id] = uses
  }

  /// The new conversation got its ID from the server: from now on it is that conversation.
  mutating func adoptNewConversation(as id: ConversationID) {
    guard let pending = pendingNew, pending.store.state.conversationID == id else { return }
    pendingNew = nil
    if open[id] == nil {
      open[id] = pending
      touch(id)
    }
  }

  /// Closes the least recently asked-for stores that nobody outside the client holds, until at most
  /// `limit` are open; returns them for the caller to close outside the lock.
  mutating func evictIdle(keeping limit: Int) -> [ChatStore] {
    guard open.count > limit else { return [] }
    var evicted: [ChatStore] = []
    for id in open.keys.sorted(by: { lastUse[$0, default: 0] < lastUse[$1, default: 0] }) where open.count > limit {
      // Held only here: no screen shows it. A store a host still holds is never closed under it.
      guard isKnownUniquelyReferenced(&open[id]!.store) else { continue }
      let conversation = open.removeValue(forKey: id)!
      lastUse[id] = nil
      if scope == nil { parked[id] = conversation.store.state }
      evicted.append(conversation.store)
    }
    return evicted
  }
}
