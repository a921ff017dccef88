import ConversationState
import Foundation
import Reducers
import Testing

@Suite("Streaming replies")
struct StreamingTests {
  /// A conversation where the user's "Question" was confirmed and the agent's reply stream has started.
  static func replying(policy: ChatPolicy = ChatPolicy()) -> (Chat, RequestID) {
    let chat = Chat.existing(policy: policy)
    let request = chat.userSends("Question", id: "c1")
    chat.send(
      .sendAccepted(
        request, confirmed: .confirmed("Question", clientID: "c1", serverID: "s1", at: 1), conversationID: "conv-1"))
    chat.send(.replyStarted(request, agent: AgentInfo(id: "bot", name: "Fin"), at: time(2)))
    return (chat, request)
  }

  @Test("a reply streams text and a tool call, then finish replaces it with the server's message")
  func streamWithToolCall() {
    let (chat, request) = Self.replying()
    chat.send([.replyDelta(request, "Let me "), .replyDelta(request, "check.")])
    #expect(chat.state.streamingReply?.text.string == "Let me check.")
    #expect(chat.state.agentActivity == .generating)

    let call = ToolCall(id: "t1", name: "lookupOrder", input: ["order": "42"], execution: .server)
    chat.send(.toolCallStarted(request, call))
    #expect(chat.state.agentActivity == .runningTool("lookupOrder"))
    chat.send(.toolCallFinished(request, "t1", .succeeded(["status": "shipped"])))
    chat.send(.replyDelta(request, " Shipped."))

    var final = Message.server("Let me check. Shipped.", id: "s2", at: 3)
    final.usage = Usage(credits: 1, inputTokens: 12, outputTokens: 5)
    final.finishReason = .stop
    let effects = chat.send(.replyFinished(request, message: final))

    #expect(effects == [])
    #expect(chat.state.streamingReply == nil)
    #expect(chat.state.agentActivity == .idle)
    #expect(chat.texts == ["Question", "Let me check. Shipped."])
    let answer = chat.state.messages[serverID: "s2"]
    #expect(answer?.toolCalls.map(\.outcome) == [.succeeded(["status": "shipped"])])
    #expect(answer?.agent?.name == "Fin")
    #expect(answer?.usage?.outputTokens == 5)
    #expect(answer?.reply == .completed)
    #expect(chat.state.requests.isEmpty)
  }

  @Test("a stream that ends without finish leaves the partial reply interrupted and retryable")
  func streamEndsWithoutFinish() {
    let (chat, request) = Self.replying()
    chat.send(.replyDelta(request, "Partial ans"))

    chat.send(.replyEnded(request))

    #expect(chat.state.streamingReply == nil)
    let reply = chat.state.messages.last
    #expect(reply?.text == "Partial ans")
    #expect(reply?.reply == .truncated, "a stream without a terminal event is never a success")
    #expect(chat.state.userError?.code == .incompleteStream)
    #expect(chat.state.userError?.retryable == true)
  }

  @Test("an interrupted reply sorts after its question even when the local clock is behind the server's")
  func clockSkew() {
    let chat = Chat.existing()
    let request = chat.userSends("Question", id: "c1", at: 100)
    chat.send(
      .sendAccepted(
        request, confirmed: .confirmed("Question", clientID: "c1", serverID: "s1", at: 100), conversationID: "conv-1"))
    chat.send([.replyStarted(request, agent: nil, at: time(40)), .replyDelta(request, "cut"), .replyEnded(request)])
    #expect(chat.texts == ["Question", "cut"])
  }

  @Test("an error mid-stream keeps the partial text under that error")
  func errorMidStream() {
    let (chat, request) = Self.replying()
    chat.send(.replyDelta(request, "Half"))
    let error = ChatError(.providerError, "model overloaded", status: 503)
    chat.send(.requestFailed(request, error))
    #expect(chat.state.messages.last?.reply == .failed(error))
    #expect(chat.state.messages.last?.text == "Half")
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .sent, "the question itself was delivered")
  }

  @Test("a finish or an end naming a request that streams no reply (a history page) changes nothing")
  func finishForAnotherKindOfRequest() {
    // Given older history on its way
    let chat = Chat.existing()
    let history = chat.nextRequestID
    chat.send(.loadHistory(pageSize: 20))
    let loading = chat.state

    // When a confused backend reports a reply's finish, then its end, under that request
    chat.send(.replyFinished(history, message: .server("Hello", id: "s9", at: 9)))
    chat.send(.replyEnded(history))

    // Then the page is still awaited and no answer appeared
    #expect(chat.state == loading)
    #expect(chat.state.history.loadingRequest == history)
  }

  @Test("a result the server gives for an app-run call settles it and cancels the app's run of it")
  func serverSettlesAnAppCall() throws {
    // Given a reply that asked the app to run its tool
    let (chat, request) = Self.replying()
    let call = ToolCall(id: "call-1", name: "lookupOrder", input: ["order": "42"], execution: .client)
    let effects = chat.send(.toolCallStarted(request, call))
    let tool = try #require(effects.compactMap { if case .runTool(let id, _, _) = $0 { id } else { nil } }.first)

    // When the server reports the call's result itself
    let settled = chat.send(.toolCallFinished(request, "call-1", .failed(ChatError(.timeout, "too slow"))))

    // Then the app's run is cancelled, and its late result lands nowhere
    #expect(settled == [.cancel(tool)])
    #expect(chat.state.streamingReply?.toolCalls.map(\.outcome) == [.failed(ChatError(.timeout, "too slow"))])
    #expect(chat.send(.toolRan(tool, .succeeded("late"))) == [])
  }

  @Test("deltas for a stopped or unknown request are ignored")
  func staleDeltasIgnored() {
    let (chat, request) = Self.replying()
    chat.send(.replyDelta(request, "Hel"))

    #expect(chat.send(.stopReply) == [.cancel(request)])
    let stopped = chat.state
    chat.send(.replyDelta(request, "lo"))
    chat.send(.replyDelta(RequestID(epoch: chat.state.epoch, sequence: 999), "ghost"))
    chat.send(.replyFinished(request, message: .server("Hello", id: "s9", at: 9)))

    #expect(chat.state == stopped)
    #expect(chat.state.messages.last?.text == "Hel")
    #expect(chat.state.messages.last?.reply == .cancelled)
  }

  @Test("an eleventh client tool call stops the reply with TOOL_LOOP_LIMIT")
  func toolLoopLimit() {
    let (chat, request) = Self.replying()
    for index in 1...ChatPolicy().clientToolCallLimit {
      chat.send(.toolCallStarted(request, ToolCall(id: ToolCallID("t\(index)"), name: "calc", execution: .client)))
    }
    #expect(chat.state.streamingReply?.toolCalls.count == 10)

    let runningTools = chat.state.requests.keys.filter { $0 != request }.sorted { $0.sequence < $1.sequence }
    #expect(runningTools.count == 10, "each client call runs its handler")
    let effects = chat.send(.toolCallStarted(request, ToolCall(id: "t11", name: "calc", execution: .client)))

    #expect(effects == [.cancel(request)] + runningTools.map(ConversationEffect.cancel), "the reply and its tools stop")
    #expect(chat.state.streamingReply == nil)
    #expect(chat.state.userError?.code == .toolLoopLimit)
    #expect(chat.state.messages.last?.toolCalls.count == 10, "the calls made so far are kept")
  }

  @Test("a tool result over 20,000 bytes is refused as TOOL_RESULT_TOO_LARGE; one at the limit passes")
  func oversizedToolResult() {
    let (chat, request) = Self.replying()
    chat.send(.toolCallStarted(request, ToolCall(id: "big", name: "search", execution: .server)))
    chat.send(.toolCallStarted(request, ToolCall(id: "fits", name: "search", execution: .server)))

    chat.send(.toolCallFinished(request, "big", .succeeded(.string(String(repeating: "x", count: 20_000)))))
    chat.send(.toolCallFinished(request, "fits", .succeeded(.string(String(repeating: "x", count: 19_998)))))

    let calls = chat.state.streamingReply?.toolCalls ?? []
    guard case .failed(let error) = calls.first?.outcome else {
      Issue.record("the oversized result should have been refused")
      return
    }
    #expect(error.code == .toolResultTooLarge)
    #expect(calls.last?.outcome == .succeeded(.string(String(repeating: "x", count: 19_998))))
  }

  @Test("a result for an unknown tool call is a typed background error")
  func unknownToolCall() {
    let (chat, request) = Self.replying()
    chat.send(.toolCallFinished(request, "nope", .succeeded(nil)))
    #expect(chat.state.backgroundError?.code == .invalidEvent)
  }

  /// A conversation: question s1, answer s2, follow-up s3, answer s4.
  static func answered() -> Chat {
    Chat.existing([
      .server("Q1", id: "s1", role: .user, at: 1), .server("A1", id: "s2", at: 2),
      .server("Q2", id: "s3", role: .user, at: 3), .server("A2", id: "s4", at: 4),
    ])
  }

  @Test("regenerating an answer replaces it and everything after it once the new answer finishes")
  func regenerateSucceeds() {
    let chat = Self.answered()
    let request = chat.nextRequestID

    let effects = chat.send(.regenerate("srv-s2"))
    #expect(effects == [.regenerate(request, "conv-1", replyTo: "s1", answer: "s2")])

    chat.send([.replyStarted(request, agent: nil, at: time(5)), .replyDelta(request, "A1 v2")])
    #expect(chat.texts == ["Q1", "A1", "Q2", "A2"], "nothing is replaced while the new answer streams")

    chat.send(.replyFinished(request, message: .server("A1 v2", id: "s5", at: 5)))
    #expect(chat.texts == ["Q1", "A1 v2"])
  }

  @Test("a regeneration that fails leaves the conversation as it was")
  func regenerateFails() {
    let chat = Self.answered()
    let before = chat.state.messages
    let request = chat.nextRequestID
    chat.send([.regenerate("srv-s2"), .replyStarted(request, agent: nil, at: time(5)), .replyDelta(request, "oops")])

    chat.send(.requestFailed(request, ChatError(.agentUnavailable, "busy", status: 503)))

    #expect(chat.state.messages == before)
    #expect(chat.state.streamingReply == nil)
    #expect(chat.state.userError?.code == .agentUnavailable)

    let ended = Self.answered()
    let second = ended.nextRequestID
    ended.send([.regenerate("srv-s2"), .replyStarted(second, agent: nil, at: time(5)), .replyEnded(second)])
    #expect(ended.state.messages == before, "a stream that ends without finish is a failed regeneration too")
  }

  static let refusedRegenerations: [(ConversationStatus, ClientMessageID, ChatError.Code)] = [
    (.takenOver, "srv-s2", .conversationNotOngoing),
    (.ended, "srv-s2", .conversationNotOngoing),
    (.ongoing, "srv-s1", .invalidAction),  // the question: edited, not regenerated
    (.ongoing, "missing", .unknownMessage),
  ]

  @Test("regeneration is refused with a typed error and no effect", arguments: refusedRegenerations)
  func regenerateRefused(_ status: ConversationStatus, _ answer: ClientMessageID, _ code: ChatError.Code) {
    let chat = Self.answered()
    chat.state.status = status
    #expect(chat.send(.regenerate(answer)) == [])
    #expect(chat.state.userError?.code == code)
  }

  @Test("an interrupted reply can be regenerated from its question")
  func regenerateInterrupted() {
    let (chat, request) = Self.replying()
    chat.send([.replyDelta(request, "cut"), .replyEnded(request)])
    let interrupted = chat.state.messages.last!.clientID
    let next = chat.nextRequestID
    #expect(chat.send(.regenerate(interrupted)) == [.regenerate(next, "conv-1", replyTo: "s1", answer: nil)])
  }

  @Test("a new reply starting while another streams leaves the old one streaming beside it")
  func overlappingReplies() {
    let (chat, first) = Self.replying(policy: .overlapping)
    chat.send(.replyDelta(first, "old"))
    let second = chat.userSends("Another", id: "c2", at: 3)
    chat.send(.replyStarted(second, agent: nil, at: time(4)))
    #expect(chat.state.streamingReply?.requestID == second)
    #expect(chat.state.overlappingReplies.map(\.text.string) == ["old"])
    #expect(!chat.state.messages.contains { $0.text == "old" })
  }
}

@Suite("Streaming replies: what a host relies on")
struct StreamingHostRulesTests {
  @Test(
    "a finished reply keeps the client ID of the row it streamed in, whatever client ID the server's copy has",
    arguments: ["over its send", "over realtime"])
  func finishedKeepsRowID(path: String) throws {
    // Given a reply streaming in a row of its own
    let (chat, request) = StreamingTests.replying()
    if path == "over realtime" {
      chat.send(.stopReply)
      chat.connected()
      chat.send(.realtime("conv-1", .replyStarted("s9", agent: nil, at: time(5))))
    }
    chat.send(path == "over realtime" ? .realtime("conv-1", .replyDelta("s9", "Hi")) : .replyDelta(request, "Hi"))
    let row = try #require(chat.state.streamingReply?.clientID)

    // When it finishes with a server copy that carries another client ID
    let copy = Message.server("Hi there", id: "s9", at: 6, clientID: "server-chosen")
    chat.send(
      path == "over realtime" ? .realtime("conv-1", .replyFinished("s9", copy)) : .replyFinished(request, message: copy)
    )

    // Then the committed message is that row, in place
    #expect(chat.state.messages[clientID: row]?.text == "Hi there")
    #expect(chat.state.messages[clientID: "server-chosen"] == nil)
  }

  @Test("while a human agent has the conversation, an accepted send shows no AI thinking; a takeover ends it")
  func noThinkingUnderAHuman() {
    // Given a conversation a human agent took over
    let chat = Chat.existing(policy: .overlapping)  // the second send goes while the first streams
    chat.send(.realtime("conv-1", .statusChanged(.takenOver)))

    // When the user's message is accepted
    let request = chat.userSends("Are you there?", id: "c1")
    chat.send(
      .sendAccepted(
        request, confirmed: .confirmed("Are you there?", clientID: "c1", serverID: "s1", at: 1),
        conversationID: "conv-1"))

    // Then nothing pretends an AI is about to answer
    #expect(chat.state.agentActivity == .idle)

    // And when the AI was thinking and a human takes over, it stops
    chat.send(.realtime("conv-1", .statusChanged(.ongoing)))
    let next = chat.userSends("Hello?", id: "c2")
    chat.send(
      .sendAccepted(
        next, confirmed: .confirmed("Hello?", clientID: "c2", serverID: "s2", at: 2), conversationID: "conv-1"))
    #expect(chat.state.agentActivity == .thinking)
    chat.send(.realtime("conv-1", .statusChanged(.takenOver)))
    #expect(chat.state.agentActivity == .idle)
  }
}
