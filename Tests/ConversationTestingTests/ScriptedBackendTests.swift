import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

@Suite("Scripted backend", .hangGuard)
struct ScriptedBackendTests {
  @Test(
    "the reply notation reads deltas and directives",
    arguments: [
      ("Hel|lo |wor|ld.|<finish>", [.delta("Hel"), .delta("lo "), .delta("wor"), .delta("ld."), .finish]),
      ("Hi", [.delta("Hi"), .finish]),
      ("Part|<drop>", [.delta("Part"), .drop]),
      ("a|<wait 2.5>|b|<end>", [.delta("a"), .wait(2.5), .delta("b"), .end]),
      (
        #"<tool lookup>|<result lookup {"ok":true}>|Done|<finish>"#,
        [
          .toolCall(name: "lookup", execution: .server), .toolResult(name: "lookup", ["ok": true]), .delta("Done"),
          .finish,
        ]
      ),
      ("<tool calc client>|<end>", [.toolCall(name: "calc", execution: .client), .end]),
    ] as [(String, [ReplyScript.Step])])
  func notation(_ text: String, _ steps: [ReplyScript.Step]) throws {
    #expect(try ReplyScript(text).steps == steps)
  }

  @Test("failures parse with status, code and retry-after")
  func failures() throws {
    let limited = try ReplyScript("<error 429 RATE_LIMITED retry-after=2>")
    guard case .fail(let error) = limited.steps.first else {
      Issue.record("expected a failure step")
      return
    }
    #expect(error.code == .rateLimited)
    #expect(error.status == 429)
    #expect(error.retryAfter == 2)
    #expect(error.retryable)
    #expect(limited.steps.count == 1)
  }

  @Test(
    "malformed notation is a typed error naming the piece",
    arguments: [
      "<wait>", "<wait soon>", "<tool>", "<result x {bad json}>", "Hi|<error 500 X>", "<dance>",
      "<error 429 RATE_LIMITED retry=2>",
    ])
  func malformed(_ text: String) {
    #expect(throws: ReplyScript.SyntaxError.self) { try ReplyScript(text) }
  }

  static func make(_ replies: [String], historyDelay: Double = 0, historyPages: [HistoryPage] = [])
    throws -> (ChatStore, TestClock)
  {
    let clock = TestClock()
    let backend = try ScriptedBackend(
      clock: clock, replies: replies, interval: 0.1, historyPages: historyPages, historyDelay: historyDelay)
    let store = ChatStore(
      ConversationState(conversationID: "conv-1"), backend: backend, environment: .deterministic(clock: clock))
    return (store, clock)
  }

  @Test("a scripted reply streams in piece by piece on virtual time, then finishes")
  func streamsOnVirtualTime() async throws {
    let (store, clock) = try Self.make(["Hel|lo |wor|ld.|<finish>"])
    store.sendMessage("Hi")
    #expect(await clock.run { store.state.streamingReply?.text.string == "Hel" })
    #expect(await clock.run { store.state.streamingReply?.text.string == "Hello wor" })
    #expect(await clock.run { store.state.isSettled })
    #expect(store.state.messages.map(\.text) == ["Hi", "Hello world."])
    #expect(store.state.messages.last?.reply == .completed)
  }

  @Test("a reply dropped mid-stream is kept, cut off, with a retryable error that names the drop")
  func droppedMidReply() async throws {
    let (store, clock) = try Self.make(["Partial |answer|<drop>"])
    store.sendMessage("Hi")
    #expect(await clock.run { store.state.isSettled })
    let reply = store.state.messages.last
    #expect(reply?.text == "Partial answer")
    #expect(reply?.reply == .truncated, "a dropped stream is a cut-off answer, never a success")
    let error = try #require(store.state.userError)
    #expect(error.code == .incompleteStream)
    #expect(error.message.contains("dropped"))
    #expect(error.retryable)
  }

  @Test("a scripted rate limit fails the message, retryable, and holds sends until retry-after has passed")
  func rateLimited() async throws {
    let (store, clock) = try Self.make(["<error 429 RATE_LIMITED retry-after=2>", "OK.|<finish>"])
    let clientID = store.sendMessage("Hi")
    #expect(await clock.run { store.state.userError != nil })
    guard case .failed(let error) = store.state.messages[clientID: clientID]?.delivery else {
      Issue.record("expected a failed message")
      return
    }
    #expect(error.code == .rateLimited && error.retryable)
    #expect(store.state.retryableAt != nil)
    store.send(.retry(clientID))
    #expect(store.state.messages[clientID: clientID]?.delivery == .pending, "held until retry-after has passed")
    #expect(await clock.run { store.state.messages[clientID: clientID]?.delivery == .sent })
    #expect(store.state.retryableAt == nil)
  }

  @Test("a scripted 401 holds the message and, with no credential provider, shows that sign-in is needed")
  func unauthorized() async throws {
    let (store, clock) = try Self.make(["<error 401 INVALID_IDENTITY>"])
    let clientID = store.sendMessage("Hi")
    #expect(await clock.run { store.state.needsCredentials })
    #expect(store.state.messages[clientID: clientID]?.delivery == .pending, "waiting, not failed")
    #expect(
      store.state.credentials
        == .needed(ChatError(.unauthorized, "The server refused the credential and no credential provider is set.")))
  }

  @Test("a slow history page keeps the load in flight until its time has passed")
  func slowHistoryPage() async throws {
    let page = HistoryPage(
      messages: [
        Message(
          clientID: "h1", serverID: "h1", role: .assistant, text: "old", createdAt: Date(timeIntervalSince1970: 0))
      ],
      nextCursor: nil, hasMore: false)
    let (store, clock) = try Self.make([], historyDelay: 5, historyPages: [page])
    store.send(.loadHistory(pageSize: 20))
    while clock.pendingCount == 0 { await Task.yield() }
    clock.advance(by: 4.9)
    #expect(store.state.history.isLoadingHistory)
    clock.advance(by: 0.1)
    _ = await store.state { !$0.history.isLoadingHistory }
    #expect(store.state.messages.map(\.text) == ["old"])
  }
}

@Suite("Scripted backend: replies over realtime")
struct ScriptedRealtimeReplyTests {
  @Test("a <realtime> reply streams over the open connection and lands as one answer")
  func realtimeReply() async throws {
    let clock = TestClock()
    let backend = try ScriptedBackend(clock: clock, replies: ["<realtime>|Hel|lo |there.|<finish>"], interval: 0.1)
    let store = ChatStore(
      ConversationState(conversationID: "conv-1"), backend: backend, environment: .deterministic(clock: clock))
    store.send(.connect)
    #expect(await clock.run { store.state.connection == .connected })
    store.sendMessage("Hi")
    #expect(await clock.run { store.state.streamingReply?.text.string == "Hello " })
    #expect(store.state.streamingReply?.serverID == "s-1-a", "keyed by the reply's server ID")
    #expect(await clock.run { store.state.isSettled && store.state.streamingReply == nil })
    #expect(store.state.messages.map(\.text) == ["Hi", "Hello there."])
    #expect(store.state.messages.last?.reply == .completed)
    store.close()
  }

  @Test("<realtime> must come first")
  func notation() {
    #expect(throws: ReplyScript.SyntaxError.self) { try ReplyScript("Hi|<realtime>") }
  }
}
