import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Stories that run through a real `ChatStore`, its runtime and a backend the test answers.
@Suite("Conversation store runtime", .hangGuard)
struct StoreRuntimeTests {
  static func makeStore(_ state: ConversationState = ConversationState(conversationID: "conv-1"))
    -> (ChatStore, ControlledBackend, AsyncStream<ControlledBackend.Call>.AsyncIterator)
  {
    let backend = ControlledBackend()
    let store = ChatStore(state, backend: backend, environment: .deterministic())
    return (store, backend, backend.calls.makeAsyncIterator())
  }

  @Test("a send streams a reply with a tool call through the backend and lands as one answer")
  func sendWithStreamedReply() async throws {
    var (store, _, calls) = Self.makeStore()
    let clientID = store.sendMessage("Where is order 42?")
    #expect(clientID == "id-1")

    guard case .send(let payload, let reply) = await calls.next() else {
      Issue.record("expected a send call")
      return
    }
    #expect(
      payload == SendPayload(conversationID: "conv-1", clientID: "id-1", text: "Where is order 42?", attachments: []))
    let confirmed = Message(
      clientID: "id-1", serverID: "s1", role: .user, text: "Where is order 42?", createdAt: Date())
    reply.yield(.accepted(confirmed, conversationID: "conv-1"))
    reply.yield(.started(agent: AgentInfo(id: "bot", name: "Fin")))
    reply.yield(.delta("Checking"))
    reply.yield(.toolCall(ToolCall(id: "t1", name: "orders.lookup", input: ["id": 42], execution: .server)))
    reply.yield(.toolResult("t1", .succeeded(["status": "shipped"])))
    reply.yield(.delta("… it shipped."))
    reply.yield(
      .finished(
        Message(clientID: "x", serverID: "s2", role: .assistant, text: "Checking… it shipped.", createdAt: Date())))
    reply.finish()

    let state = await store.state { $0.messages.count == 2 && $0.requests.isEmpty }
    #expect(state?.messages.map(\.text) == ["Where is order 42?", "Checking… it shipped."])
    #expect(state?.messages.last?.toolCalls.first?.outcome == .succeeded(["status": "shipped"]))
    #expect(state?.streamingReply == nil)
    #expect(state?.invariantViolations() == [])
  }

  @Test("a reply in parts through the backend: reasoning beside text, a source, then the answer keeps them all")
  func sendWithParts() async throws {
    // Given a store whose backend streams a reply as an agent protocol shapes it
    var (store, _, calls) = Self.makeStore()
    store.sendMessage("Where is order 42?")
    guard case .send(_, let reply) = await calls.next() else {
      Issue.record("expected a send call")
      return
    }
    let confirmed = Message(
      clientID: "id-1", serverID: "s1", role: .user, text: "Where is order 42?", createdAt: Date())
    reply.yield(.accepted(confirmed, conversationID: "conv-1"))
    reply.yield(.partStarted("think", .reasoning))
    reply.yield(.partStarted("say", .text))
    reply.yield(.partDelta("think", "Look it up."))
    reply.yield(.partDelta("say", "It shipped"))
    reply.yield(.partEnded("think", encryptedValue: "enc"))

    // When the store has applied them, the streaming reply shows both parts open or ended as they are
    let streaming = await store.state {
      $0.streamingReply?.parts.count == 2 && $0.streamingReply?.parts[0].isOpen == false
    }
    #expect(streaming?.streamingReply?.parts.map(\.text.string) == ["Look it up.", "It shipped"])
    #expect(streaming?.streamingReply?.text.string == "It shipped")

    // Then once finished, the answer holds the parts in order with the cited source
    reply.yield(.partDelta("say", "."))
    reply.yield(.part(MessagePart(id: "kb", .source(KnowledgeSource(id: "kb-1", title: "Shipping")))))
    reply.yield(.finished(Message(clientID: "x", serverID: "s2", role: .assistant, text: "", createdAt: Date())))
    reply.finish()
    let state = await store.state { $0.messages.count == 2 && $0.requests.isEmpty }
    let answer = state?.messages.last
    #expect(answer?.text == "It shipped.")
    #expect(answer?.parts.map(\.id) == ["think", "say", "kb"])
    #expect(answer?.parts.first?.content == .reasoning(ReasoningPart(text: "Look it up.", encryptedValue: "enc")))
    #expect(answer?.sources.map(\.title) == ["Shipping"])
    #expect(state?.invariantViolations() == [])
  }

  @Test("a backend's reply carries the agent's shared state: a snapshot, then a patch applied to it")
  func agentStateThroughReply() async throws {
    var (store, _, calls) = Self.makeStore()
    store.sendMessage("Plan my trip")
    guard case .send(_, let reply) = await calls.next() else {
      Issue.record("expected a send call")
      return
    }

    reply.yield(.agentState(["steps": []]))
    reply.yield(.agentStateDelta([.add(at: try JSONPointer(parsing: "/steps/-"), value: "book flight")]))

    let state = await store.state { $0.agentState == ["steps": ["book flight"]] }
    #expect(state?.agentState == ["steps": ["book flight"]])
    reply.finish()
  }

  @Test("a backend that resumes its stream and replays numbered events: each is applied once")
  func resumedStreamReplays() async throws {
    // Given a reply whose protocol numbers its events
    var (store, _, calls) = Self.makeStore()
    store.sendMessage("Plan my trip")
    guard case .send(_, let reply) = await calls.next() else {
      Issue.record("expected a send call")
      return
    }
    reply.yield(.positioned(.sequence(1), .started(agent: nil)))
    reply.yield(.positioned(.sequence(2), .agentState(["steps": []])))
    reply.yield(.positioned(.sequence(3), .delta("Booking")))
    reply.yield(
      .positioned(.sequence(4), .agentStateDelta([.add(at: try JSONPointer(parsing: "/steps/-"), value: "flight")])))
    _ = await store.state { $0.streamingReply?.resumePosition == .sequence(4) }

    // When the backend resumes after a drop and the server replays from 3
    reply.yield(.positioned(.sequence(3), .delta("Booking")))
    reply.yield(
      .positioned(.sequence(4), .agentStateDelta([.add(at: try JSONPointer(parsing: "/steps/-"), value: "flight")])))
    reply.yield(.positioned(.sequence(5), .delta(" done.")))
    reply.yield(
      .positioned(.sequence(6), .finished(Message(clientID: "x", role: .assistant, text: "", createdAt: Date()))))

    // Then the answer and the agent's state hold each event once
    let state = await store.state { $0.streamingReply == nil && $0.messages.count == 2 }
    #expect(state?.messages.last?.text == "Booking done.")
    #expect(state?.agentState == ["steps": ["flight"]])
    reply.finish()
  }

  @Test("stopping a reply cancels its stream; later events from it land nowhere")
  func cancelStream() async throws {
    var (store, _, calls) = Self.makeStore()
    store.sendMessage("Tell me a story")
    guard case .send(_, let reply) = await calls.next() else { return }
    let confirmed = Message(clientID: "id-1", serverID: "s1", role: .user, text: "Tell me a story", createdAt: Date())
    reply.yield(.accepted(confirmed, conversationID: "conv-1"))
    reply.yield(.started(agent: nil))
    reply.yield(.delta("Once upon"))
    _ = await store.state { $0.streamingReply?.text.string == "Once upon" }

    let terminated = StateLock<Bool>(false)
    reply.onTermination = { _ in terminated.withLock { $0 = true } }
    store.send(.stopReply)
    reply.yield(.delta(" a time"))
    reply.yield(.finished(Message(clientID: "x", serverID: "s2", role: .assistant, text: "late", createdAt: Date())))

    let state = store.state
    #expect(state.messages.last?.text == "Once upon")
    #expect(state.messages.last?.reply == .cancelled)
    #expect(state.messages.count == 2)
    _ = await store.state { _ in terminated.withLock { $0 } }
    #expect(terminated.withLock { $0 }, "the runtime cancelled the stream's consumer")
  }

  @Test("signing out mid-stream: nothing of the old epoch lands afterwards")
  func signOutMidStream() async throws {
    var (store, _, calls) = Self.makeStore()
    store.sendMessage("private question")
    guard case .send(_, let reply) = await calls.next() else { return }
    reply.yield(
      .accepted(
        Message(clientID: "id-1", serverID: "s1", role: .user, text: "private question", createdAt: Date()),
        conversationID: "conv-1"))
    reply.yield(.started(agent: nil))
    reply.yield(.delta("The answer is"))
    _ = await store.state { $0.streamingReply != nil }

    store.send(.signOut)
    let afterSignOut = store.state
    reply.yield(.delta(" secret"))
    reply.yield(
      .finished(
        Message(clientID: "x", serverID: "s2", role: .assistant, text: "The answer is secret", createdAt: Date())))
    reply.finish()
    // Anything the old stream still delivers arrives as ordinary actions; make sure they were all applied.
    store.send(.setDraft("after"))

    var expected = afterSignOut
    expected.draft = "after"
    #expect(store.state == expected)
    #expect(store.state.messages.isEmpty)
    #expect(store.state.epoch == IdentityEpoch(1))
  }

  @Test("a backend that throws leaves a typed error and the message kept for retry")
  func backendThrows() async throws {
    var (store, _, calls) = Self.makeStore()
    store.sendMessage("hello")
    guard case .send(_, let reply) = await calls.next() else { return }
    reply.finish(throwing: URLError(.notConnectedToInternet))

    let state = await store.state { $0.userError != nil }
    #expect(state?.userError?.code == .network)
    guard case .failed(let error) = state?.messages[clientID: "id-1"]?.delivery else {
      Issue.record("the message should be failed and kept")
      return
    }
    #expect(error.retryable)
  }

  @Test("a backend that hangs does not block the store, and cancelling still works")
  func backendHangs() async throws {
    var (store, _, calls) = Self.makeStore()
    store.send(.loadHistory(pageSize: 20))
    guard case .history(_, _, _, let hanging) = await calls.next() else { return }
    #expect(store.state.history.isLoadingHistory)

    store.send(.clear)
    store.sendMessage("still works")
    guard case .send(let payload, let reply) = await calls.next() else { return }
    #expect(payload.text == "still works")
    reply.finish()

    // The hung request finally answers, long after it was cancelled: ignored.
    hanging.resume(
      returning: HistoryPage(
        messages: [.init(clientID: "h", serverID: "h1", role: .assistant, text: "stale", createdAt: Date())],
        nextCursor: nil, hasMore: false))
    store.send(.setDraft("sync point"))
    #expect(!store.state.messages.contains { $0.text == "stale" })
  }

  @Test("a stream that finishes twice yields one answer")
  func streamFinishesTwice() async throws {
    var (store, _, calls) = Self.makeStore()
    store.sendMessage("Q")
    guard case .send(_, let reply) = await calls.next() else { return }
    reply.yield(
      .accepted(
        Message(clientID: "id-1", serverID: "s1", role: .user, text: "Q", createdAt: Date()), conversationID: "conv-1"))
    reply.yield(.started(agent: nil))
    reply.yield(.finished(Message(clientID: "a", serverID: "s2", role: .assistant, text: "A", createdAt: Date())))
    reply.yield(.finished(Message(clientID: "b", serverID: "s3", role: .assistant, text: "A again", createdAt: Date())))
    reply.finish()
    let state = await store.state { $0.requests.isEmpty && $0.messages.count >= 2 }
    store.send(.setDraft("sync point"))
    #expect(store.state.messages.map(\.text) == ["Q", "A"])
    #expect(state?.invariantViolations() == [])
  }

  @Test("realtime events for another conversation are a typed background error, not a message")
  func realtimeForAnotherConversation() async throws {
    var (store, _, calls) = Self.makeStore()
    store.send(.connect)
    guard case .realtime(let conversationID, let connection) = await calls.next() else { return }
    #expect(conversationID == "conv-1")
    connection.yield(.opened)
    connection.yield(
      .event(
        "conv-2",
        .messageCreated(Message(clientID: "x", serverID: "s9", role: .assistant, text: "wrong", createdAt: Date()))))
    let state = await store.state { $0.backgroundError != nil }
    #expect(state?.backgroundError?.code == .eventForOtherConversation)
    #expect(state?.messages.isEmpty == true)
    #expect(state?.connection == .connected)
  }

  @Test("a dropped realtime connection reconnects after the jittered backoff and syncs")
  func reconnectThroughRuntime() async throws {
    let clock = TestClock()
    let backend = ControlledBackend()
    var state = ConversationState(conversationID: "conv-1")
    state.messages.commit(Message(clientID: "a", serverID: "s1", role: .assistant, text: "hi", createdAt: Date()))
    state.unreadCount = 1
    let store = ChatStore(state, backend: backend, environment: .deterministic(clock: clock, jitter: 0.5))
    var calls = backend.calls.makeAsyncIterator()

    store.send(.connect)
    guard case .realtime(_, let first) = await calls.next() else { return }
    first.yield(.opened)
    guard case .messagesAfter(_, let after, let sync) = await calls.next() else { return }
    #expect(after == "s1")
    sync.resume(returning: [])
    _ = await store.state { $0.connection == .connected }

    first.finish(throwing: ChatError(.network, "reset"))
    _ = await store.state { if case .reconnecting = $0.connection { true } else { false } }
    #expect(store.state.connection == .reconnecting(attempt: 1, retryAt: clock.now().addingTimeInterval(0.5)))
    while clock.pendingCount == 0 { await Task.yield() }
    clock.advance(by: 0.5)

    guard case .realtime(_, let second) = await calls.next() else { return }
    second.yield(.opened)
    guard case .messagesAfter(_, _, let resync) = await calls.next() else { return }
    #expect(store.state.connection == .syncing)
    resync.resume(returning: [
      Message(clientID: "b", serverID: "s2", role: .assistant, text: "missed", createdAt: Date().addingTimeInterval(60))
    ])
    let synced = await store.state { $0.connection == .connected }
    #expect(synced?.messages.map(\.text) == ["hi", "missed"])
  }
}
