import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// What an agent is sent is the conversation the user sees: the messages in memory, then older ones read
/// from storage, cut by the backend's `AgentContextPolicy`, built fresh for every request.
@Suite("The context an agent request carries", .hangGuard)
struct AgentContextTests {
  /// A stored exchange of `count` messages (user and answer in turn), oldest first, a second apart.
  static func exchange(_ count: Int) -> [Message] {
    (0..<count).map { index in
      Message(
        clientID: ClientMessageID(rawValue: "m\(index)"), serverID: ServerMessageID(rawValue: "s\(index)"),
        role: index.isMultiple(of: 2) ? .user : .assistant, text: "message \(index)",
        createdAt: Date(timeIntervalSince1970: 1_000 + Double(index)),
        reply: index.isMultiple(of: 2) ? nil : .completed)
    }
  }

  /// A store restored at the newest `window` of `stored`, whose storage serves the rest.
  static func restored(
    _ stored: [Message], window: Int, agent: RecordingAgent, reads: StateLock<Int> = StateLock(0),
    failing: Bool = false
  ) -> ChatStore {
    var state = ConversationState(conversationID: "conv-1")
    state.messages = MessageList(stored.suffix(window))
    state.history.hasStoredHistory = stored.count > window
    state.history.hasMoreHistory = false
    let reader: StoredHistoryReader = { _, query, limit in
      reads.withLock { $0 += 1 }
      if failing { throw ChatError(.storageFailed, "The disk is gone.") }
      guard case .before(let key) = query else { return ([], false) }
      let older = stored.filter { $0.orderKey < key }
      return (Array(older.suffix(limit)), older.count > limit)
    }
    return ChatStore(state, backend: agent, environment: .deterministic(), storedHistory: reader)
  }

  static func texts(_ context: AgentContext) -> [String] { context.messages.map(\.text) }

  @Test(
    "a send carries the newest messages the policy asks for, reading from storage what memory does not hold",
    arguments: [(window: 50, limit: 120), (window: 200, limit: 120), (window: 10, limit: 300)])
  func sendReadsStorage(window: Int, limit: Int) async throws {
    // Given a conversation of 300 stored messages restored with only its newest page in memory
    let stored = Self.exchange(300)
    let agent = RecordingAgent(.newest(limit))
    let reads = StateLock(0)
    let store = Self.restored(stored, window: window, agent: agent, reads: reads)
    defer { store.close() }

    // When the user sends
    store.sendMessage("and now?")
    _ = await store.state(where: { $0.messages.last?.reply == .completed })

    // Then the agent was sent the newest `limit` messages before it, oldest first, in order
    let context = try #require(agent.requests.first?.context)
    #expect(Self.texts(context) == stored.suffix(limit).map(\.text))
    #expect(reads.withLock { $0 } == (window >= limit ? 0 : 1), "storage is read only for what memory lacks")
  }

  @Test("a message sent while the store still reads its stored copy carries that copy once it is read")
  func sentWhileRestoring() async throws {
    // Given a store opened after a relaunch, its stored copy not read yet
    let agent = RecordingAgent(.newest(100))
    var opening = ConversationState(conversationID: "conv-1")
    opening.isRestoring = true
    let store = ChatStore(opening, backend: agent, environment: .deterministic())
    defer { store.close() }

    // When the user sends at once, and the copy arrives after
    store.sendMessage("What is my name?")
    try await Task.sleep(for: .milliseconds(50))
    #expect(agent.requests.isEmpty, "nothing goes before the conversation is known")
    store.send(.restored(ConversationState.existing(Self.exchange(4), id: "conv-1")))
    _ = await store.state(where: { $0.messages.last?.reply == .completed })

    // Then the agent was sent the stored exchange before the question
    let context = try #require(agent.requests.first?.context)
    #expect(Self.texts(context) == ["message 0", "message 1", "message 2", "message 3"])
  }

  @Test("a store dropped while it still read its stored copy goes, and its waiting send never reaches the agent")
  func droppedWhileRestoring() async throws {
    let agent = RecordingAgent(.newest(100))
    weak var dropped: ChatStore?
    do {
      var opening = ConversationState(conversationID: "conv-1")
      opening.isRestoring = true
      let store = ChatStore(opening, backend: agent, environment: .deterministic())
      dropped = store
      store.sendMessage("hello?")
      try await Task.sleep(for: .milliseconds(20))
    }
    let deadline = Date().addingTimeInterval(5)
    while dropped != nil, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
    #expect(dropped == nil, "the waiting request kept the store alive")
    try await Task.sleep(for: .milliseconds(50))
    #expect(agent.requests.isEmpty)
  }

  @Test(
    "a host's backend whose policy has a limit below one fails its requests INVALID_CONFIGURATION, sending nothing")
  func invalidPolicyOfAHostBackend() async throws {
    let agent = RecordingAgent(AgentContextPolicy(maximumMessages: -3))
    let store = Self.restored(Self.exchange(4), window: 4, agent: agent)
    defer { store.close() }
    store.sendMessage("hi")
    let failed = await store.state(where: { state in
      if case .failed(let error)? = state.messages.last?.delivery { return error.code == .invalidConfiguration }
      return false
    })
    #expect(failed != nil)
    #expect(agent.requests.isEmpty)
    #expect(AgentContextPolicy(maximumMessages: -3).apply(to: Self.exchange(4)).count == 1, "never a trap")
  }

  @Test("a text budget keeps the newest messages that fit, and always the newest one")
  func textBudget() async throws {
    var policy = AgentContextPolicy.wholeConversation
    policy.maximumTextBytes = 25  // "message 9" is 9 bytes: two fit, a third does not
    #expect(Self.texts(AgentContext(messages: policy.apply(to: Self.exchange(10)))) == ["message 8", "message 9"])
    policy.maximumTextBytes = 1
    #expect(Self.texts(AgentContext(messages: policy.apply(to: Self.exchange(10)))) == ["message 9"])
  }

  @Test("the host's transform has the last say over what is sent")
  func transform() async throws {
    let agent = RecordingAgent(
      AgentContextPolicy(maximumMessages: 10) { messages in messages.filter { $0.role == .user } })
    let store = Self.restored(Self.exchange(10), window: 10, agent: agent)
    defer { store.close() }
    store.sendMessage("next")
    _ = await store.state(where: { $0.messages.last?.reply == .completed })
    let context = try #require(agent.requests.first?.context)
    #expect(context.messages.allSatisfy { $0.role == .user })
    #expect(context.messages.count == 5)
  }

  @Test("a regeneration carries the conversation through its prompt, and not the answer it replaces")
  func regenerationEndsAtItsPrompt() async throws {
    let agent = RecordingAgent(.newest(100))
    let store = Self.restored(Self.exchange(6), window: 6, agent: agent)
    defer { store.close() }
    store.send(.regenerate("m5"))
    _ = await store.state(where: { $0.requests.isEmpty && $0.messages.last?.text == "ok" })
    let request = try #require(agent.requests.first)
    #expect(request.kind == "regenerate")
    #expect(Self.texts(request.context) == ["message 0", "message 1", "message 2", "message 3", "message 4"])
  }

  @Test("a transform that drops a regeneration's prompt is INVALID_CONFIGURATION, and nothing is sent")
  func transformWithoutPrompt() async throws {
    let agent = RecordingAgent(AgentContextPolicy(maximumMessages: 10) { _ in [] })
    let store = Self.restored(Self.exchange(6), window: 6, agent: agent)
    defer { store.close() }
    store.send(.regenerate("m5"))
    let failed = await store.state(where: { $0.requests.isEmpty && $0.userError != nil })
    #expect(failed?.userError?.code == .invalidConfiguration)
    #expect(agent.requests.isEmpty)
    #expect(failed?.messages.last?.text == "message 5", "the answer it was to replace stays")
  }

  @Test("a storage read that fails fails the send, retryable, and the agent is never asked")
  func storageFailure() async throws {
    let agent = RecordingAgent(.newest(100))
    let store = Self.restored(Self.exchange(300), window: 20, agent: agent, failing: true)
    defer { store.close() }
    store.sendMessage("and now?")
    let failed = await store.state(where: { state in
      if case .failed(let error)? = state.messages.last?.delivery { return error.code == .storageFailed }
      return false
    })
    #expect(failed != nil)
    #expect(agent.requests.isEmpty)
  }

  @Test(
    "a context limit below one is INVALID_CONFIGURATION when the policy is checked",
    arguments: [AgentContextPolicy(maximumMessages: 0), AgentContextPolicy(maximumMessages: 5, maximumTextBytes: 0)])
  func invalidLimits(policy: AgentContextPolicy) {
    #expect(throws: ChatError.self) { try policy.validate() }
  }

  @Test("what an agent is not sent: messages the server has not taken, and an answer that failed with nothing")
  func leftOut() {
    let pending = Message(clientID: "p", role: .user, text: "later", createdAt: Date(), delivery: .pending)
    let empty = Message(
      clientID: "e", role: .assistant, text: "", createdAt: Date(), reply: .failed(ChatError(.network, "lost")))
    let cut = Message(clientID: "c", role: .assistant, text: "half an", createdAt: Date(), reply: .truncated)
    #expect(!AgentContext.carries(pending))
    #expect(!AgentContext.carries(empty))
    #expect(AgentContext.carries(cut), "what the user saw of a cut answer is sent")
  }

  @Test("an agent backend decides how tool results go back, whatever the host's policy says")
  func deliveryFollowsTheBackend() {
    var policy = ChatPolicy()
    policy.toolResultDelivery = .duringReply
    #expect(policy.following(RecordingAgent()).toolResultDelivery == .nextRun)
  }
}
