public import ConversationState
import Persistence
public import Reducers

/// The one object a host keeps for the app's life: the signed-in identity (or the anonymous installation),
/// the conversation list, the conversation stores it opened, one realtime connection for all of them, and
/// their storage.
///
/// Screens come and go; the client stays. Asking twice for a conversation gives the same store, so a second
/// screen subscribes to it instead of making another; a store nobody outside the client holds is closed once
/// more than `maximumIdleConversations` are open, its state kept in storage, and reopened on demand.
///
/// ```swift
/// let client = ChatClient(
///   backend: MyServer(), options: ChatClientOptions(
///     workspace: "acme", storage: try ChatStorage(root: ChatStorage.defaultRoot(app: "acme-chat"))))
/// client.list.send(.load(pageSize: 30))
/// let chat = client.conversation("c42")      // restored from disk, connected, persisted as it changes
/// chat.sendMessage("Where is my order?")     // its row moves to the top of client.list
/// client.identify(UserIdentity(userID: "u-1042"), keepingGuestConversation: true)
/// await client.close()                       // everything stopped and written
/// ```
///
/// What it does for every conversation store: restores it from the scope's storage (then sends
/// `.relaunched`), connects it, persists its snapshots, and tells the list about its messages, its reading,
/// its title and status. What stays with the host: loading history (`.loadHistory`), loading the list
/// (`.load`), and what the user does.
public final class ChatClient: Sendable {
  /// The user's conversations. It is live: messages in any conversation move its row, reading clears its
  /// unread count, events of conversations that are not open arrive over the client's connection.
  public let list: ConversationListStore

  private let options: ChatClientOptions
  private let environment: StoreEnvironment
  private let backend: SharedRealtimeBackend
  private let hub: RealtimeHub
  private let credentials: ConversationRuntime<ConversationReducer>.CredentialProvider?
  private let tools: [String: ConversationRuntime<ConversationReducer>.ToolHandler]
  private let registry: StateLock<ClientRegistry>
  private let listTasks: StateLock<[Task<Void, Never>]>
  /// The durable outbox of the scope in use (nil without storage).
  private let outbox: StateLock<Outbox?>
  private let uploader: StateLock<OutboxUploader?>
  private let policy: ChatPolicy

  /// A client for `identity` (nil: the anonymous user of this installation) talking to `backend`.
  /// `credentials` is called when the server says the credential expired (see `ConversationRuntime`);
  /// `tools` are the app-side tools the agent may call, by name.
  public init(
    backend: any ChatBackend, identity: UserIdentity? = nil, options: ChatClientOptions = ChatClientOptions(),
    environment: StoreEnvironment = .live,
    credentials: ConversationRuntime<ConversationReducer>.CredentialProvider? = nil,
    tools: [String: ConversationRuntime<ConversationReducer>.ToolHandler] = [:]
  ) {
    var options = options
    if let handler = options.onStorageError {
      // Storage fails where the client holds its lock; the host hears of it after, in order, and may call
      // back into the client from the handler.
      let callbacks = HostCallbacks(handler)
      options.onStorageError = { callbacks.deliver($0) }
    }
    self.options = options
    var policy = options.policy
    // With storage, what is written offline waits in the durable outbox and goes out in ordered batches.
    if options.storage != nil { policy.offlineDelivery = .outbox }
    self.policy = policy
    self.environment = environment
    self.credentials = credentials
    self.tools = tools
    hub = RealtimeHub(backend: backend)
    self.backend = SharedRealtimeBackend(backend: backend, hub: hub)
    var registry = ClientRegistry(identity: identity)
    registry.scope = Self.openScope(identity, options)
    var restoredList: ConversationListState?
    do {
      restoredList = try registry.scope?.conversationList.load()
    } catch {
      options.onStorageError?(error)
    }
    list = ConversationListStore(
      restoredList ?? ConversationListState(), backend: self.backend, environment: environment)
    registry.listEpoch = list.state.epoch
    outbox = StateLock(Self.openOutbox(registry.scope, options))
    uploader = StateLock(nil)
    self.registry = StateLock(registry)
    listTasks = StateLock([])
    let lock = self.registry
    let tasks = [
      ListBridge.routeRealtime(
        hub: hub, list: list, policy: options.policy, environment: environment,
        isOpen: { id in lock.withLock { $0.open[id] != nil } },
        onOpened: { [weak self] in self?.kickUploader() }),
      ListBridge.persist(
        list: list,
        target: { epoch in lock.withLock { $0.listEpoch == epoch ? $0.scope?.conversationList : nil } },
        onStorageError: options.onStorageError),
    ]
    listTasks.withLock { $0 = tasks }
    let hub = hub
    let outbox = outbox
    let started = OutboxUploader(
      backend: self.backend, environment: environment, outbox: { outbox.withLock { $0 } },
      isOnline: { hub.isOpen },
      refused: { [weak self] from, operation, error in self?.refused(operation, error, from: from) },
      onStorageError: options.onStorageError)
    uploader.withLock { $0 = started }
    started.kick()
  }

  /// Who is signed in; nil for the anonymous user of this installation.
  public var identity: UserIdentity? { registry.withLock { $0.identity } }

  /// The unread badge: unread messages over the listed conversations.
  public var unreadBadge: Int { list.state.unreadTotal }

  /// How many times the backend's realtime connection was opened (one per client, again after it dropped).
  var realtimeConnectionsOpened: Int { hub.connectionsOpened }

  /// How many operations wait in the outbox of the scope in use.
  var outboxOperationCount: Int { outbox.withLock { $0 }?.operations.count ?? 0 }

  /// The outbox's epoch and next sequence number.
  var outboxSequencing: (epoch: UInt64, nextSequence: Int)? { outbox.withLock { $0 }?.sequencing }

  /// The IDs of the conversation stores open now (for diagnostics and tests).
  public var openConversationIDs: Set<ConversationID> { registry.withLock { Set($0.open.keys) } }

  /// The store of conversation `id`: the open one if there is one, otherwise opened now (restored from
  /// storage, connected, followed). Reading storage happens on the calling thread.
  public func conversation(_ id: ConversationID) -> ChatStore {
    let (store, evicted) = registry.withLock { registry -> (ChatStore, [ChatStore]) in
      if let store = registry.use(id) { return (store, []) }
      let opened = open(id, &registry)
      registry.open[id] = opened
      registry.touch(id)
      return (opened.store, registry.evictIdle(keeping: options.maximumIdleConversations))
    }
    for store in evicted { store.close() }
    return store
  }

  /// The store of the conversation the user is starting, which the server creates on its first message;
  /// once it has an ID, `conversation(id)` returns the same store. There is one such store at a time.
  public func newConversation() -> ChatStore {
    registry.withLock { registry in
      if let pending = registry.pendingNew { return pending.store }
      let opened = open(nil, &registry)
      registry.pendingNew = opened
      return opened.store
    }
  }

  /// Signs `identity` in. With `keepingGuestConversation` (from anonymous only) the open conversations go
  /// on under the account and move to its storage; otherwise they are cleared and closed (ask the client
  /// for stores again), the list is dropped, and nothing more is written to the previous user's scope.
  ///
  /// Identifying the person already signed in (`UserIdentity.isSamePerson`) changes nothing else: call it
  /// on every launch if that is simpler. A new display name is taken; stores, list, connection and outbox
  /// stay as they are.
  public func identify(_ identity: UserIdentity, keepingGuestConversation: Bool = false) {
    let stores = registry.withLock { registry -> [ChatStore]? in
      guard let current = registry.identity, identity.isSamePerson(as: current) else { return nil }
      registry.identity = identity
      return registry.allStores
    }
    guard let stores else { return switchIdentity(to: identity, keeping: keepingGuestConversation) }
    for store in stores { store.send(.identify(identity)) }
  }

  /// Signs out: conversations cleared and closed, the list dropped, the anonymous scope in use again.
  public func signOut() { switchIdentity(to: nil, keeping: false) }

  /// The host has a fresh credential (after the UI asked the user to sign in again): every open
  /// conversation resumes what was waiting for it.
  public func credentialsRefreshed() {
    for store in registry.withLock({ $0.allStores }) { store.send(.credentialsRefreshed) }
    kickUploader()
  }

  /// Closes every store, the connection and the list, and returns once every snapshot has been written.
  /// Nothing runs afterwards; the stores the host still holds refuse actions.
  public func close() async {
    let (opened, tasks) = registry.withLock { registry -> ([OpenConversation], [Task<Void, Never>]) in
      registry.isClosed = true
      defer {
        registry.open = [:]
        registry.pendingNew = nil
      }
      return (registry.allOpen, listTasks.withLock { $0 })
    }
    for conversation in opened { conversation.store.close() }
    await uploader.withLock { $0 }?.stop()
    hub.close()
    list.close()
    for task in tasks { task.cancel() }
    for conversation in opened { await conversation.follower.finished() }
    for task in tasks { await task.value }
  }

  // MARK: -

  private func kickUploader() { uploader.withLock { $0 }?.kick() }

  /// The server refused an operation of `from` (still the outbox in use): its conversation undoes it and
  /// shows the reason (a message fails; a rating or feedback answer goes back).
  private func refused(_ operation: OutboxOperation, _ error: ChatError, from: Outbox) {
    guard outbox.withLock({ $0 === from }), let id = operation.conversationID else { return }
    conversation(id).send(.outboxRejected(operation.kind, error))
  }

  private static func openOutbox(_ scope: ScopeStorage?, _ options: ChatClientOptions) -> Outbox? {
    guard let scope else { return nil }
    do {
      let outbox = try scope.outbox()
      if let error = outbox.restoreError { options.onStorageError?(error) }
      return outbox
    } catch {
      options.onStorageError?(error)
      return nil
    }
  }

  /// Stores an operation the reducer handed to the outbox; durable when it returns.
  private func record(_ operation: OutboxOperation) throws {
    guard let outbox = outbox.withLock({ $0 }) else {
      throw ChatError(.storageFailed, "There is no outbox to keep this in.")
    }
    var stamped = operation
    stamped.enqueuedAt = environment.clock.now()
    try outbox.enqueue(stamped, at: stamped.enqueuedAt)
    kickUploader()
  }

  private static func openScope(_ identity: UserIdentity?, _ options: ChatClientOptions) -> ScopeStorage? {
    guard let storage = options.storage else { return nil }
    do {
      return try storage.scope(StorageScope(workspace: options.workspace, userID: identity?.userID))
    } catch {
      options.onStorageError?(error)
      return nil
    }
  }

  /// Builds a store for `id` (nil: a new conversation) from what storage or memory kept of it.
  private func open(_ id: ConversationID?, _ registry: inout ClientRegistry) -> OpenConversation {
    var file: ConversationFile?
    var restored: ConversationState?
    if let scope = registry.scope {
      do {
        let opened = try scope.conversation(id)
        if let error = opened.restoreError { options.onStorageError?(error) }
        file = opened
        restored = opened.restored
      } catch {
        options.onStorageError?(error)
      }
    } else if let id {
      restored = registry.parked.removeValue(forKey: id)
    }
    let runtime = ConversationRuntime<ConversationReducer>(
      backend: backend, credentials: credentials, tools: tools,
      outbox: { [weak self] operation in
        guard let self else { throw ChatError(.storageFailed, "The client is gone.") }
        try self.record(operation)
      })
    let store = ChatStore(
      initialState: restored ?? ConversationState(conversationID: id, identity: registry.identity),
      reducer: ConversationReducer(policy: policy), environment: environment, runtime: runtime)
    if restored != nil { store.send(.relaunched) }
    if registry.isClosed { store.close() }
    let lock = self.registry
    let follower = ConversationFollower(
      store: store, file: file, list: list, clock: environment.clock, onStorageError: options.onStorageError,
      onCreated: { id in lock.withLock { $0.adoptNewConversation(as: id) } })
    store.send(.connect)
    return OpenConversation(store: store, follower: follower)
  }

  private func switchIdentity(to identity: UserIdentity?, keeping: Bool) {
    let (stores, kept) = registry.withLock { registry -> ([ChatStore], Bool) in
      let upgrading = keeping && registry.identity == nil && identity != nil
      registry.identity = identity
      registry.scope = Self.openScope(identity, options)
      registry.parked = [:]
      if upgrading {
        // The guest's conversations go on under the account: their files move to the account's scope.
        // Each is written whole at once: the account's file may be new, or hold an older copy.
        let now = environment.clock.now()
        for conversation in registry.allOpen {
          let state = conversation.store.state
          let file = try? registry.scope?.conversation(state.conversationID)
          try? file?.persist(state, changes: .reset, at: now)
          conversation.follower.file.withLock { $0 = file }
        }
        return (registry.allOpen.map(\.store), true)
      }
      // Nothing more of the previous user reaches storage: empty the file slots before the stores clear, and
      // no list snapshot is saved until the new identity's list exists (one of the old user's may be pending).
      registry.listEpoch = nil
      let all = registry.allOpen
      for conversation in all { conversation.follower.file.withLock { $0 = nil } }
      registry.open = [:]
      registry.pendingNew = nil
      return (all.map(\.store), false)
    }
    for store in stores {
      if kept {
        store.send(.identify(identity!, keepingGuestConversation: true))
      } else {
        store.send(identity.map { .identify($0) } ?? .signOut)
        store.close()
      }
    }
    switchOutbox(to: registry.withLock { $0.scope }, carryingOver: kept)
    if !kept {
      list.send(.identityChanged)
      let epoch = list.state.epoch
      registry.withLock { $0.listEpoch = epoch }
      hub.reset()
    }
    kickUploader()
  }

  /// The new scope's outbox replaces the old one. A sign-out or switch drops the old queue (its epoch ends;
  /// the next starts at sequence 1); an upgrade carries the guest's queue over to the account.
  private func switchOutbox(to scope: ScopeStorage?, carryingOver: Bool) {
    let next = Self.openOutbox(scope, options)
    let previous = outbox.withLock { current in
      defer { current = next }
      return current
    }
    guard let previous, previous !== next else { return }
    do throws(PersistenceError) {
      if carryingOver, let next {
        for operation in previous.operations { try next.enqueue(operation, at: environment.clock.now()) }
      }
      try previous.clear()
    } catch {
      options.onStorageError?(error)
    }
  }
}
