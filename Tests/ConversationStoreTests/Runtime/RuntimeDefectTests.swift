import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Defects 3–8 of the runtime, each as a story through a real store.
@Suite("Runtime: connections, cancellation, typing, snapshots")
struct RuntimeDefectTests {
  @Test("disconnect cancels the socket itself: the connect request's cancel reaches the connection")
  func disconnectClosesSocket() async {
    let backend = LedgerBackend()
    let store = ChatStore(ConversationState(conversationID: "c1"), backend: backend, environment: .deterministic())
    store.send(.connect)
    #expect(await backend.eventually { store.state.connection == .connected && backend.liveRealtime == 1 })
    store.send(.disconnect)
    #expect(await backend.eventually { backend.liveRealtime == 0 })
    #expect(store.state.connection == .closed)
  }

  @Test("a late loss reported by an old connection does not tear down the new one")
  func lateLossOfOldConnection() async {
    let backend = ControlledBackend()
    let clock = TestClock()
    let store = ChatStore(
      ConversationState(conversationID: "c1"), backend: backend, environment: .deterministic(clock: clock))
    var calls = backend.calls.makeAsyncIterator()
    store.send(.connect)
    guard case .realtime(_, let first) = await calls.next() else { return }
    first.yield(.opened)
    _ = await store.state { $0.connection == .connected }
    let oldConnection = store.state.requests.first { $0.value == .connect }!.key

    first.finish(throwing: ChatError(.network, "reset"))
    _ = await store.state { if case .reconnecting = $0.connection { true } else { false } }
    #expect(await clock.run { store.state.connection == .connecting })
    guard case .realtime(_, let second) = await calls.next() else { return }
    second.yield(.opened)
    _ = await store.state { $0.connection == .connected }

    // The old socket's loss, reported late (as a host adapter or a slow task might).
    store.send(.connectionLost(oldConnection, ChatError(.network, "late report"), at: clock.now(), jitter: 0.5))
    #expect(store.state.connection == .connected)
    second.yield(.event("c1", .titleChanged("still live")))
    #expect(await store.state { $0.title == "still live" } != nil)
    store.close()
  }

  @Test(
    "a CancellationError the backend throws on its own is a retryable network failure, not silence",
    arguments: ["send", "history"])
  func spuriousCancellation(_ request: String) async {
    struct TimingOut: ChatBackend {
      func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
        AsyncThrowingStream { $0.finish(throwing: CancellationError()) }
      }
      func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws
        -> HistoryPage
      { throw CancellationError() }
      func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] { [] }
      func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
        AsyncThrowingStream { _ in }
      }
    }
    let store = ChatStore(
      ConversationState(conversationID: "c1"), backend: TimingOut(), environment: .deterministic())
    if request == "send" {
      let clientID = store.sendMessage("Hi")
      let state = await store.state {
        if case .failed = $0.messages[clientID: clientID]?.delivery { true } else { false }
      }
      guard case .failed(let error) = state?.messages[clientID: clientID]?.delivery else { return }
      #expect(error.code == .network && error.retryable)
    } else {
      store.send(.loadHistory(pageSize: 20))
      let state = await store.state { !$0.history.isLoadingHistory && $0.userError != nil }
      #expect(state?.userError?.code == .network)
    }
    store.close()
  }

  @Test(
    "typing expires on the local clock even when the sender's clock is an hour ahead or behind",
    arguments: [3_600.0, -3_600.0])
  func typingWithSkew(_ skew: Double) async {
    let backend = ControlledBackend()
    let clock = TestClock()
    let store = ChatStore(
      ConversationState(conversationID: "c1"), backend: backend, environment: .deterministic(clock: clock))
    var calls = backend.calls.makeAsyncIterator()
    store.send(.connect)
    guard case .realtime(_, let socket) = await calls.next() else { return }
    socket.yield(.opened)
    socket.yield(.event("c1", .typingStarted("agent-ana", at: clock.now().addingTimeInterval(skew))))
    _ = await store.state { !$0.typing.isEmpty }
    while clock.pendingCount == 0 { await Task.yield() }  // the expiry timer is armed just after the state
    clock.advance(by: ConversationReducer.typingLifetime + 0.1)
    #expect(
      store.state.typing.isEmpty, "the indicator expired \(ConversationReducer.typingLifetime) s after it arrived")
    store.close()
  }

  @Test("one snapshot sequence iterated by two consumers: each is its own subscriber and both see the latest")
  func sharedSequence() async {
    let store = Store(initialState: ConversationState(conversationID: "c1"), reducer: ConversationReducer())
    let snapshots = store.snapshots()
    let consumers = (0..<2).map { _ in
      Task {
        for await snapshot in snapshots where snapshot.state.draft == "done" { return true }
        return false
      }
    }
    while store.subscriberCount < 2 { await Task.yield() }
    store.send(.setDraft("done"))
    for consumer in consumers { #expect(await consumer.value) }
  }

  @Test("NaN jitter never reaches the state: it stays equal to itself and encodable")
  func nanJitter() async throws {
    let backend = LedgerBackend()
    let store = ChatStore(
      ConversationState(conversationID: "c1"), backend: backend,
      environment: StoreEnvironment(clock: TestClock(), makeID: { "x" }, jitter: { .nan }))
    store.send(.connect)
    #expect(await backend.eventually { backend.liveRealtime == 1 })
    for work in backend.live { backend.finish(work, with: ChatError(.network, "drop")) }
    let state = await store.state { if case .reconnecting = $0.connection { true } else { false } }
    #expect(state == state, "equal to itself")
    #expect(throws: Never.self) { try JSONEncoder().encode(state) }
    #expect(state?.connection == .reconnecting(attempt: 1, retryAt: TestClock().now().addingTimeInterval(1)))
    store.close()
  }

  @Test("before the conversation exists the connection is the user's; the first send re-opens it for the conversation")
  func realtimeScope() async {
    let backend = ControlledBackend()
    let store = ChatStore(backend: backend, environment: .deterministic())
    var calls = backend.calls.makeAsyncIterator()
    store.send(.connect)
    guard case .realtime(nil, let userSocket) = await calls.next() else {
      Issue.record("expected a connection for the user's events")
      return
    }
    userSocket.yield(.opened)
    _ = await store.state { $0.connection == .connected }

    store.sendMessage("first question")
    guard case .send(let payload, let reply) = await calls.next() else { return }
    #expect(payload.conversationID == nil)
    // The early echo of the first message, for a conversation this store does not know yet.
    let echo = Message(clientID: "id-1", serverID: "s1", role: .user, text: "first question", createdAt: Date())
    userSocket.yield(.event("new-conv", .messageCreated(echo)))
    reply.yield(.accepted(echo, conversationID: "new-conv"))

    guard case .realtime("new-conv", let conversationSocket) = await calls.next() else {
      Issue.record("expected the connection to be re-opened for the new conversation")
      return
    }
    conversationSocket.yield(.opened)
    guard case .messagesAfter("new-conv", "s1", let sync) = await calls.next() else { return }
    sync.resume(returning: [])
    let state = await store.state { $0.connection == .connected && $0.conversationID == "new-conv" }
    #expect(state?.backgroundError == nil, "the early echo is not an error")
    #expect(state?.messages.count == 1)
    conversationSocket.yield(.event("new-conv", .titleChanged("Order help")))
    #expect(await store.state { $0.title == "Order help" } != nil, "the created conversation is live")
    store.close()
  }
}

@Suite("Runtime: credentials")
struct RuntimeCredentialTests {
  @Test("an expired credential: the provider is called once, the send goes out again and succeeds")
  func providerRefreshes() async {
    let backend = ControlledBackend()
    let calls = StateLock(0)
    let store = ChatStore(
      ConversationState(conversationID: "c1"), backend: backend, environment: .deterministic(),
      credentials: { calls.withLock { $0 += 1 } })
    var requests = backend.calls.makeAsyncIterator()
    let clientID = store.sendMessage("Hi")
    guard case .send(_, let first) = await requests.next() else { return }
    first.finish(throwing: ChatError(.invalidIdentity, "expired", status: 401))
    guard case .send(let payload, let second) = await requests.next() else {
      Issue.record("the send should go out again after the refresh")
      return
    }
    #expect(payload.clientID == clientID, "the same idempotency key")
    second.yield(.accepted(.confirmed("Hi", clientID: clientID, serverID: "s1", at: 1), conversationID: "c1"))
    let state = await store.state { $0.messages[clientID: clientID]?.delivery == .sent }
    #expect(state?.credentials == .valid)
    #expect(calls.withLock { $0 } == 1)
    store.close()
  }

  @Test("a provider that cannot help: the state shows needs-credentials and the send waits")
  func providerFails() async {
    let backend = ControlledBackend()
    let store = ChatStore(
      ConversationState(conversationID: "c1"), backend: backend, environment: .deterministic(),
      credentials: { throw ChatError(.unauthorized, "signed out") })
    var requests = backend.calls.makeAsyncIterator()
    let clientID = store.sendMessage("Hi")
    guard case .send(_, let first) = await requests.next() else { return }
    first.finish(throwing: ChatError(.network, "forbidden", status: 403))
    let state = await store.state { $0.needsCredentials }
    #expect(state?.messages[clientID: clientID]?.delivery == .pending)
    store.close()
  }
}
