public import ConversationState
import Foundation
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
///   backend: MyServer(),
///   options: ChatClientOptions(
///     workspace: "acme", storage: try ChatStorage(root: ChatStorage.defaultRoot(app: "acme-chat"))))
/// client.list.send(.load(pageSize: 30))
/// let chat = client.conversation("c42")  // at once: read from disk on the worker, then connected
/// chat.sendMessage("Where is my order?")  // its row moves to the top of client.list
/// client.identify(UserIdentity(userID: "u-1042"), keepingGuestConversation: true)
/// await client.close()  // everything stopped and written
/// ```
///
/// It is built like a store: a `ClientState` value changed by the pure `ClientReducer`, whose effects a
/// serial worker performs in the order they were reduced. Disk and network work never runs under the
/// client's lock nor, except where said, on the caller's thread; host callbacks (`onStorageError`, storage
/// events) arrive asynchronously, in order, and may call back into the client. Dropping the last reference
/// closes the client, as `close()` does (without waiting for the last writes).
///
/// What it does for every conversation store: restores it from the scope's storage (as after `.relaunched`),
/// connects it, persists its snapshots, and tells the list about its messages, its reading, its title and
/// status. What stays with the host: loading history (`.loadHistory`), loading the list (`.load`), and what
/// the user does.
public final class ChatClient: Sendable {
  /// The user's conversations. It is live: messages in any conversation move its row, reading clears its
  /// unread count, events of conversations that are not open arrive over the client's connection.
  public let list: ConversationListStore

  let options: ChatClientOptions
  let environment: StoreEnvironment
  let backend: any ChatBackend
  let hub: RealtimeHub
  /// The host's provider, called once at a time for the client and all its stores.
  let credentials: SharedCredentialRefresh?
  let tools: [String: ConversationRuntime<ConversationReducer>.ToolHandler]
  let reducer: ClientReducer
  let conversationReducer: ConversationReducer
  let core: StateLock<ClientCore>
  let storage: StateLock<ClientStorage>
  let worker = ClientWorker()
  let requests = CancellableRegistry<RequestID>()
  let timers = CancellableRegistry<ClientTimer>()
  let storageErrors: StorageHealthReporter
  let hostOperations: HostCallbacks<HostOperationOutcome>?
  let diagnostics: ClientDiagnostic.Sink?
  private let listTask: StateLock<Task<Void, Never>?>
  /// Forwards the list's new titles to the open conversations (`ListBridge.forwardTitles`).
  private let titleTask: StateLock<Task<Void, Never>?>

  /// A client for `identity` (nil: the anonymous user of this installation) talking to `backend`.
  /// `credentials` is called when the server says the credential expired: once per failure, and once at a
  /// time for the shared connection, the outbox and every store. When the credential it provides is refused
  /// at once, it is not called again: `state.needsCredentials` and each store's `credentials` show `needed`
  /// until the host calls `credentialsRefreshed()`, and nothing is retried meanwhile except on its backoff;
  /// `tools` are the app-side tools the agent may call, by name.
  ///
  /// The scope's list and outbox are read here, on the calling thread (once, at launch).
  public init(
    backend: any ChatBackend, identity: UserIdentity? = nil, options: ChatClientOptions = ChatClientOptions(),
    environment: StoreEnvironment = .live,
    credentials: ConversationRuntime<ConversationReducer>.CredentialProvider? = nil,
    tools: [String: ConversationRuntime<ConversationReducer>.ToolHandler] = [:]
  ) {
    self.options = options
    storageErrors = StorageHealthReporter(onError: options.onStorageError, onRecovered: options.onStorageRecovered)
    hostOperations = options.onHostOperation.map { HostCallbacks($0) }
    diagnostics = options.diagnostics
    var policy = options.policy
    // With storage, what is written offline waits in the durable outbox and goes out in ordered batches.
    if options.storage != nil { policy.offlineDelivery = .outbox }
    policy = policy.following(backend)
    self.environment = environment
    self.backend = backend
    self.credentials = credentials.map(SharedCredentialRefresh.init)
    self.tools = tools
    hub = RealtimeHub()
    reducer = ClientReducer(
      policy: policy, maximumIdleConversations: options.maximumIdleConversations,
      refreshesCredentials: credentials != nil, idleCheckInterval: options.idleCheckInterval)
    conversationReducer = ConversationReducer(policy: policy, storesBeforeContinuing: options.storage != nil)
    core = StateLock(ClientCore(state: ClientState(identity: identity)))
    storage = StateLock(ClientStorage())
    listTask = StateLock(nil)
    titleTask = StateLock(nil)
    let errors = storageErrors
    var opened = ClientStorage(userID: identity?.userID)
    var restoredList: ConversationListState?
    Self.openScope(&opened, options) { errors.deliver($0) }
    // Every request of a protocol that carries it names the epoch its outbox numbers in.
    if let outbox = opened.outbox { backend.outboxEpochChanged(outbox.sequencing.epoch) }
    if let scope = opened.scope {
      do throws(PersistenceError) {
        restoredList = try scope.conversationList.load()
      } catch {
        errors.deliver(error)
      }
    }
    // The list reaches the client through a relay: the client does not exist yet while its list is made.
    let forgetting = StateLock<(@Sendable (ConversationID) -> Void)?>(nil)
    let slot = storage
    let worker = worker
    let local = LocalConversationList(
      page: { cursor, limit in
        try await worker.run { () -> Result<ConversationPage, ChatError> in
          guard let scope = slot.withLock({ $0.scope }) else { return .failure(.unsupported("a conversation list")) }
          do throws(PersistenceError) {
            return .success(try scope.storedConversations(after: cursor, limit: limit))
          } catch {
            return .failure(ChatError(.storageFailed, "The stored conversations could not be read: \(error)"))
          }
        }.get()
      },
      forget: { id in forgetting.withLock { $0 }?(id) })
    list = ConversationListStore(
      restoredList ?? ConversationListState(), backend: backend, environment: environment, policy: policy,
      local: options.storage == nil ? nil : local)
    opened.listEpoch = list.state.epoch
    storage.withLock { $0 = opened }
    listTask.withLock {
      $0 = ListBridge.persist(
        list: list, worker: worker,
        target: { epoch in slot.withLock { $0.listEpoch == epoch ? $0.scope : nil } },
        onStorageError: { errors.deliver($0) }, onWritten: { errors.wrote() })
    }
    forgetting.withLock { $0 = { [weak self] id in self?.send(.forgetConversation(id)) } }
    titleTask.withLock {
      $0 = ListBridge.forwardTitles(from: list) { [weak self] titles in self?.retitleOpenStores(titles) }
    }
    send(.outboxCounted(opened.outbox?.count))
    send(.start)
    if let restoredList, !restoredList.edits.isEmpty || !restoredList.deleting.isEmpty { list.send(.resumeEdits) }
  }

  deinit {
    // Dropped without `close()`: everything stops now; the worker finishes what it was handed.
    let stores = core.withLock { core -> [ChatStore] in
      core.state.isClosed = true
      defer { core.stores = [:] }
      return core.stores.values.map(\.store)
    }
    for store in stores { store.close() }
    requests.cancelAll(closing: true)
    timers.cancelAll(closing: true)
    hub.close()
    list.close()
    listTask.withLock { $0 }?.cancel()
    titleTask.withLock { $0 }?.cancel()
    diagnostics?.finish()
    finishWatchers()
  }

  /// The client's state: identity, open stores, the shared connection, the outbox uploader.
  public var state: ClientState { core.withLock { $0.state } }

  /// Who is signed in; nil for the anonymous user of this installation.
  public var identity: UserIdentity? { core.withLock { $0.state.identity } }

  /// The unread badge: unread messages over the listed conversations.
  public var unreadBadge: Int { list.state.unreadTotal }

  /// How many times the backend's realtime connection was opened (one per client, again after it dropped).
  var realtimeConnectionsOpened: Int { hub.connectionsOpened }

  /// The outbox's epoch and next sequence number.
  var outboxSequencing: (epoch: UInt64, nextSequence: Int)? { storage.withLock { $0.outbox }?.sequencing }

  /// The IDs of the conversation stores open now (for diagnostics and tests).
  public var openConversationIDs: Set<ConversationID> { core.withLock { Set($0.state.conversations.keys) } }

  /// Returns once every effect and storage write handed to the client's worker so far is done, and each
  /// open conversation's state as of the call is written to storage and reported to the list (tests, and
  /// hosts that want the disk up to date before they go on, say before the app is suspended). What happens
  /// after the call (a reply still streaming) is not waited for. Replies the backend is still sending are not
  /// waited for either: that would not return while a reply streams.
  public func settled() async {
    await worker.run {}
    await worker.run {}
    let open = core.withLock { $0.stores.values.map { ($0.store, $0.follower) } }
    for (store, follower) in open { await follower.handled(through: store.version, of: store) }
    await worker.run {}
  }

  /// Whether every open conversation's current state has been written and reported to the list. The demo's
  /// script runner polls it before it draws a frame; it compares states, so it is not for a hot path.
  package var isCaughtUp: Bool {
    core.withLock { $0.stores.values.map { ($0.store, $0.follower) } }.allSatisfy { $1.isCaughtUp(with: $0) }
  }

  /// Applies `action` to the client's state now and hands its effects to the worker, behind those of every
  /// action applied before it.
  func send(_ action: ClientAction) {
    let now = diagnosticTime
    let schedules = core.withLock { core in Self.enqueue(reduce(action, &core, at: now), &core) }
    if schedules { schedulePerforming() }
  }

  /// Queues `effects` behind those reduced before them; true when the caller must start the worker on them
  /// or on the diagnostics waiting to be handed on (nobody is performing).
  static func enqueue(_ effects: [ClientEffect], _ core: inout ClientCore) -> Bool {
    guard !effects.isEmpty || !core.diagnosed.isEmpty else { return false }
    core.queued += effects
    guard !core.isPerforming else { return false }
    core.isPerforming = true
    return true
  }

  func schedulePerforming() { worker.async { [weak self] in self?.performQueued() } }

  private func performQueued() {
    while true {
      let (effects, diagnosed) = core.withLock { core -> ([ClientEffect], [ClientDiagnostic]) in
        if core.queued.isEmpty && core.diagnosed.isEmpty {
          core.isPerforming = false
          return ([], [])
        }
        defer {
          core.queued = []
          core.diagnosed = []
        }
        return (core.queued, core.diagnosed)
      }
      if effects.isEmpty && diagnosed.isEmpty { return }
      // Handed on before the effects of the same steps run: in the order the steps were reduced.
      for event in diagnosed { diagnostics?.yield(event) }
      for effect in effects { perform(effect) }
    }
  }

  // MARK: - Conversations

  /// The store of conversation `id`: the open one if there is one, otherwise opened now, without waiting
  /// for the disk. With storage its state `isRestoring` until the client's worker has read the stored copy
  /// (then `.restored` brings it, under anything the user did meanwhile); then it connects, and every
  /// snapshot is persisted.
  ///
  /// ```swift
  /// let chat = client.conversation("c42")  // at once; chat.state.isRestoring while the file is read
  /// for await snapshot in chat.snapshots() where !snapshot.state.isRestoring { render(snapshot.state) }
  /// ```
  ///
  /// An empty `id` names no conversation: the store returned is closed (it refuses every action) and its
  /// `userError` is `INVALID_ACTION`; nothing is sent to the server.
  public func conversation(_ id: ConversationID) -> ChatStore {
    guard !id.rawValue.isEmpty else {
      var refused = ConversationState()
      refused.userError = ChatError(.invalidAction, "A conversation ID cannot be empty.")
      return closedStore(refused)
    }
    if let store = openStore(id) { return store }
    return makeStore(for: .open(id, adopting: nil, unheld: []), parked: parked(id), id: id)
  }

  /// The store of the conversation the user is starting, which the server creates on its first message;
  /// once it has an ID, `conversation(id)` returns the same store. There is one such store at a time.
  public func newConversation() -> ChatStore {
    let pending = core.withLock { core in core.state.newConversation.flatMap { core.stores[$0]?.store } }
    if let pending { return pending }
    return makeStore(for: .startNewConversation, parked: nil, id: nil)
  }

  /// The open store of `id`, marked as just used; the new conversation's when it already shows `id`.
  private func openStore(_ id: ConversationID) -> ChatStore? {
    let now = diagnosticTime
    let (store, schedules) = core.withLock { core -> (ChatStore?, Bool) in
      var adopting: ConversationHandle?
      if core.state.conversations[id] == nil {
        guard let pending = core.state.newConversation, let store = core.stores[pending]?.store,
          store.state.conversationID == id
        else { return (nil, false) }
        adopting = pending
      }
      // Open already (or the new conversation's): the reducer only marks it used.
      let effects = reduce(.open(id, adopting: adopting, unheld: []), &core, at: now)
      return (core.state.conversations[id].flatMap { core.stores[$0]?.store }, Self.enqueue(effects, &core))
    }
    if schedules { schedulePerforming() }
    return store
  }

  /// Gives the open stores of these conversations their list rows' new titles; a store closed or not open
  /// is left alone (it reads its title again when opened).
  private func retitleOpenStores(_ titles: [(ConversationID, String)]) {
    let open = core.withLock { core in
      titles.compactMap { id, title in
        core.state.conversations[id].flatMap { core.stores[$0]?.store }.map { (store: $0, id: id, title: title) }
      }
    }
    for (store, id, title) in open where store.state.title != title {
      store.send(.realtime(id, .titleChanged(title)))
    }
  }

  /// Without storage: the state kept in memory of `id`, closed for being idle.
  private func parked(_ id: ConversationID) -> ConversationState? {
    guard options.storage == nil else { return nil }
    return core.withLock { $0.unpark(id) }
  }

  /// Reduces `action` (an open or a new conversation) and, when the reducer opens a store, makes it (from
  /// `parked`, or restoring): memory only under the lock; reading its file, connecting it and following it
  /// happen on the worker.
  private func makeStore(for action: ClientAction, parked: ConversationState?, id: ConversationID?) -> ChatStore {
    let now = diagnosticTime
    let (store, schedules) = core.withLock { core -> (ChatStore?, Bool) in
      let requested: ClientAction
      if case .open(let id, _, _) = action {
        requested = .open(id, adopting: nil, unheld: core.unheldHandles())
      } else {
        requested = action
      }
      let effects = reduce(requested, &core, at: now)
      for case .openConversation(let handle, _) in effects {
        core.stores[handle] = makeConversation(parked, id: id, identity: core.state.identity, handle: handle)
      }
      parkClosing(effects, &core)
      let handle = id.flatMap { core.state.conversations[$0] } ?? (id == nil ? core.state.newConversation : nil)
      return (handle.flatMap { core.stores[$0]?.store }, Self.enqueue(effects, &core))
    }
    if schedules { schedulePerforming() }
    if let store { return store }
    // Closed: a store that refuses actions, as the stores of a closed client do.
    return closedStore(ConversationState(conversationID: id))
  }

  /// A store showing `state` that refuses every action (`send` returns false).
  private func closedStore(_ state: ConversationState) -> ChatStore {
    let closed = ChatStore(initialState: state, reducer: conversationReducer)
    closed.close()
    return closed
  }

  /// The idle check: the open stores nobody outside the client holds and that have settled go to the
  /// reducer, which closes those beyond `maximumIdleConversations` (and checks again later while more stay).
  func releaseIdle() {
    let now = diagnosticTime
    let schedules = core.withLock { core -> Bool in
      let effects = reduce(.releaseIdle(unheld: core.unheldHandles()), &core, at: now)
      parkClosing(effects, &core)
      return Self.enqueue(effects, &core)
    }
    if schedules { schedulePerforming() }
  }

  /// Without storage an idle store's state is kept in memory: parked when the reducer decides to close it,
  /// so asking for it again at once (before the worker closes it) finds it. Memory only.
  private func parkClosing(_ effects: [ClientEffect], _ core: inout ClientCore) {
    guard options.storage == nil else { return }
    for case .closeConversations(let handles) in effects {
      for handle in handles {
        if let closing = core.stores[handle]?.store.state, let closingID = closing.conversationID {
          core.park(closingID, closing)
        }
      }
    }
  }

  /// A store and its follower (memory only: no I/O, no host code): from `parked` without storage, else
  /// restoring until the worker has read the file (`restoreIfNeeded`).
  private func makeConversation(
    _ parked: ConversationState?, id: ConversationID?, identity: UserIdentity?, handle: ConversationHandle
  ) -> OpenConversation {
    var initial = ConversationState(conversationID: id, identity: identity)
    initial.standingApprovals = standingApprovals(for: identity)
    if let parked {
      // Closed with what it had in flight: as after a relaunch, nothing of it is in flight now.
      initial = conversationReducer.settledForThisRun(parked)
    } else if options.storage != nil {
      initial.isRestoring = true
    }
    let file = StateLock<ConversationFile?>(nil)
    let worker = worker
    let storeCredentials = storeCredentialProvider()
    let runtime = ConversationRuntime<ConversationReducer>(
      backend: backend, credentials: storeCredentials, tools: tools,
      outbox: { [weak self] operation, done in
        guard let self else { return done(ChatError(.storageFailed, "The client is gone.")) }
        self.record(operation, done)
      },
      storedHistory: { _, query, limit in
        // On the worker, behind the writes queued before it: the page is read from what is on disk now.
        try await worker.run { () -> Result<(messages: [Message], hasMore: Bool), ChatError> in
          guard let stored = file.withLock({ $0 }) else { return .success(([], false)) }
          do throws(PersistenceError) {
            return .success(try stored.storedMessages(query, limit: limit))
          } catch {
            return .failure(ChatError(.storageFailed, "Stored history could not be read: \(error)"))
          }
        }.get()
      },
      realtime: { [hub] in hub.subscribe($0) },
      standingApprovals: { [weak self] change in self?.changeStandingApprovals(change) })
    let store = ChatStore(
      initialState: initial, reducer: conversationReducer, environment: environment, runtime: runtime)
    let errors = storageErrors
    let follower = ConversationFollower(
      store: store, file: file, awaitsFile: initial.isRestoring, list: list, clock: environment.clock, worker: worker,
      diagnostics: diagnostics.map {
        ConversationFollower.Diagnostics(
          sink: $0, conversation: handle, mode: conversationReducer.policy.connectionMode)
      },
      onStorageError: { errors.deliver($0) }, onWritten: { errors.wrote() },
      onCreated: { [weak self] id in self?.send(.conversationCreated(handle, id)) })
    return OpenConversation(store: store, follower: follower)
  }

  /// What a store asks when its credential is refused: the client's one provider call under way or a new
  /// one, and none while the client waits for the host (its own fresh credential was refused already, and
  /// asking again would loop).
  private func storeCredentialProvider() -> ConversationRuntime<ConversationReducer>.CredentialProvider? {
    guard let credentials else { return nil }
    let core = core
    return {
      if core.withLock({ $0.state.awaitsHostCredentials }) {
        throw ChatError(.unauthorized, "The credential was refused; the app has to sign in again.")
      }
      try await credentials.refresh()
    }
  }

  // MARK: - Identity

  /// Signs `identity` in. A guest (anonymous) who signs in keeps what they wrote, as the SDKs this library
  /// backs do: with `keepingGuestConversation` (the default) the open conversations go on under the account
  /// and the guest's data (files, list, outbox) moves to the account's scope; the connection is opened again
  /// with the account's credential. With `false` the guest's conversations are cleared and closed and the
  /// guest's stored data is deleted. Either way nothing of the guest stays behind in the anonymous scope, to
  /// reappear after a sign-out. From another person it is always a change of person: their stores are
  /// cleared and closed (ask the client for stores again), the list is dropped, and nothing more is written
  /// to their scope (it stays on the device for when they sign in again).
  ///
  /// Identifying the person already signed in (`UserIdentity.isSamePerson`) changes nothing else: call it
  /// on every launch if that is simpler. A new display name is taken; stores, list, connection and outbox
  /// stay as they are.
  public func identify(_ identity: UserIdentity, keepingGuestConversation: Bool = true) {
    send(.identify(identity, keepingGuestConversation: keepingGuestConversation))
  }

  /// Signs out: conversations cleared and closed, the list dropped, the anonymous scope in use again. The
  /// outbox of the signed-out user is emptied (its epoch ends); what it held is not sent.
  public func signOut() { send(.signOut) }

  /// The host has a fresh credential (after the UI asked the user to sign in again): every open
  /// conversation, the shared connection and the outbox resume what was waiting for it.
  public func credentialsRefreshed() { send(.credentialsRefreshed) }

  /// Closes every store, the connection and the list, and returns once every snapshot has been written:
  /// each conversation's file, and the list's, with every conversation the client showed (a new one the
  /// server created included). Nothing runs afterwards; the stores the host still holds refuse actions.
  public func close() async {
    let followers = core.withLock { $0.stores.values.map(\.follower) }
    send(.close)
    await settled()
    for follower in followers { await follower.finished() }
    // Only now: a follower may still have been telling the list about its store's last steps (a
    // conversation the server just created), and the list's file is written from what it was told.
    list.close()
    await listTask.withLock { $0 }?.value
    await settled()
    diagnostics?.finish()
    finishWatchers()
  }
}
