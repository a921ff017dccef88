import ConversationState
import Foundation
import Reducers
import Testing

@Suite("Answers that wait: approvals, questions and runs that continue after the app's tools")
struct AwaitingReplyTests {
  static let refund = ToolCall(id: "call-1", name: "refund", input: ["amount": 20], execution: .server)
  static let approval = InputRequest(id: "int-1", kind: .toolApproval("call-1"), message: "Refund $20?")

  /// The continuation run an effect list starts, with its request.
  static func continuation(in effects: [ConversationEffect]) -> (RequestID, RunContinuation)? {
    for effect in effects {
      if case .continueRun(let requestID, _, let continuation) = effect { return (requestID, continuation) }
    }
    return nil
  }

  /// A reply that said something, called a server tool that needs the user's approval, and finished.
  static func waitingForApproval() -> (Chat, RequestID) {
    let (chat, request) = StreamingTests.replying()
    chat.send([
      .replyDelta(request, "I can refund that."), .toolCallStarted(request, refund),
      .inputRequested(request, approval),
      .replyFinished(
        request, message: Message(clientID: "x", serverID: "s2", role: .assistant, text: "", createdAt: time(3))),
    ])
    return (chat, request)
  }

  @Test("an approval stops the answer awaiting input; approving continues the same answer in its row")
  func approvalContinuesTheAnswer() throws {
    // Given an answer that waits for the user to approve a refund
    let (chat, _) = Self.waitingForApproval()
    let answer = try #require(chat.state.messages.last)
    #expect(answer.reply == .awaitingInput([Self.approval]))
    #expect(answer.toolCalls.map(\.outcome) == [.awaitingApproval])
    #expect(chat.state.agentActivity == .idle)

    // When the user approves
    let effects = chat.send(.answerInput("int-1", .approved))

    // Then the run continues, carrying the approval
    let (run, continuation) = try #require(Self.continuation(in: effects))
    #expect(continuation.answer == "s2")
    #expect(continuation.inputAnswers.map(\.answer) == [.approved])
    #expect(chat.state.messages.last?.toolCalls.map(\.outcome) == [.running])

    // When the continuation streams the rest and finishes with no copy of the text
    chat.send([
      .replyStarted(run, agent: nil, at: time(4)),
      .toolCallFinished(run, "call-1", .succeeded(["refunded": true])),
      .replyDelta(run, " Done: refunded."),
    ])
    #expect(chat.state.streamingReply?.clientID == answer.clientID, "the answer streams on in its row")
    #expect(!chat.state.messages.contains(answer.clientID))
    #expect(chat.state.streamingReply?.text.string == "I can refund that. Done: refunded.")
    chat.send(.replyFinished(run, message: Message(clientID: "y", role: .assistant, text: "", createdAt: time(5))))

    // Then one answer holds both runs, completed
    let finished = try #require(chat.state.messages.last)
    #expect(finished.clientID == answer.clientID)
    #expect(finished.serverID == "s2")
    #expect(finished.text == "I can refund that. Done: refunded.")
    #expect(finished.reply == .completed)
    #expect(finished.toolCalls.map(\.outcome) == [.succeeded(["refunded": true])])
    #expect(chat.texts == ["Question", "I can refund that. Done: refunded."])
  }

  @Test("denying a call marks it denied, with the reason, and the continuation tells the agent")
  func denialGoesBack() throws {
    let (chat, _) = Self.waitingForApproval()

    let effects = chat.send(.answerInput("int-1", .denied(reason: "Too much")))

    let (_, continuation) = try #require(Self.continuation(in: effects))
    #expect(continuation.inputAnswers.first?.answer == .denied(reason: "Too much"))
    #expect(chat.state.messages.last?.toolCalls.first?.outcome == .denied(reason: "Too much"))
  }

  @Test("a denied call stays denied when the continuation echoes the denial as the call's result")
  func denialEchoedAsResult() throws {
    // Given a denied refund, and a continuation (Pydantic AI's shape) whose result for it is the denial
    let (chat, _) = Self.waitingForApproval()
    let effects = chat.send(.answerInput("int-1", .denied(reason: "Too much")))
    let (run, _) = try #require(Self.continuation(in: effects))
    chat.send([
      .replyStarted(run, agent: nil, at: time(4)), .toolCallFinished(run, "call-1", .succeeded("Too much")),
      .replyDelta(run, " I did not refund it."),
      .replyFinished(run, message: Message(clientID: "y", role: .assistant, text: "", createdAt: time(5))),
    ])
    // Then the call never ran: it stays denied, with the user's reason
    #expect(chat.state.messages.last?.toolCalls.map(\.outcome) == [.denied(reason: "Too much")])
    #expect(chat.state.messages.last?.reply == .completed)
  }

  static let wrongAnswers: [(String, InputRequestID, InputAnswer, ChatError.Code)] = [
    ("an answer to no open request", "int-9", .approved, .unknownMessage),
    ("a value for an approval", "int-1", .answered("yes"), .invalidAction),
    ("declining an approval", "int-1", .declined, .invalidAction),
  ]

  @Test("a wrong answer is refused with a typed error and changes nothing else", arguments: wrongAnswers)
  func wrongAnswerRefused(story: String, id: InputRequestID, answer: InputAnswer, code: ChatError.Code) {
    let (chat, _) = Self.waitingForApproval()
    var before = chat.state

    let effects = chat.send(.answerInput(id, answer))

    #expect(effects == [], "\(story)")
    #expect(chat.state.userError?.code == code)
    before.userError = chat.state.userError
    #expect(chat.state == before)
  }

  @Test("a question takes a JSON answer once; the second answer is refused")
  func questionAnsweredOnce() throws {
    // Given a run that ends asking which colour
    let (chat, request) = StreamingTests.replying()
    let question = InputRequest(id: "q1", kind: .question(["type": "string"]), message: "Which colour?")
    chat.send([
      .inputRequested(request, question),
      .replyFinished(request, message: Message(clientID: "x", role: .assistant, text: "", createdAt: time(3))),
    ])
    #expect(chat.state.messages.last?.reply == .awaitingInput([question]))

    // When the user answers
    let effects = chat.send(.answerInput("q1", .answered("blue")))

    // Then the run continues with the answer; answering again is refused
    let (_, continuation) = try #require(Self.continuation(in: effects))
    #expect(continuation.inputAnswers.map(\.answer) == [.answered("blue")])
    #expect(chat.send(.answerInput("q1", .answered("red"))) == [])
    #expect(chat.state.userError?.code == .invalidAction)
  }

  @Test("a question answered while the reply still streams continues as soon as the run ends")
  func answeredBeforeTheEnd() throws {
    let (chat, request) = StreamingTests.replying()
    chat.send(.inputRequested(request, InputRequest(id: "q1", kind: .question(.null))))

    #expect(chat.send(.answerInput("q1", .declined)) == [])
    let effects = chat.send(
      .replyFinished(request, message: Message(clientID: "x", role: .assistant, text: "", createdAt: time(3))))

    #expect(Self.continuation(in: effects)?.1.inputAnswers.map(\.answer) == [.declined])
  }

  static let brokenRequests: [(String, [InputRequest])] = [
    ("the same ID twice", [approval, InputRequest(id: "int-1", kind: .question(.null))]),
    ("an approval of no call of the reply", [InputRequest(id: "int-2", kind: .toolApproval("call-9"))]),
  ]

  @Test("a request that breaks the rules is refused as INVALID_EVENT, the reply unchanged", arguments: brokenRequests)
  func brokenRequestRefused(story: String, requests: [InputRequest]) {
    let (chat, request) = StreamingTests.replying()
    chat.send(.toolCallStarted(request, Self.refund))
    for asked in requests.dropLast() { chat.send(.inputRequested(request, asked)) }
    let before = chat.state.streamingReply

    chat.send(.inputRequested(request, requests.last!))

    #expect(chat.state.streamingReply == before, "\(story)")
    #expect(chat.state.backgroundError?.code == .invalidEvent)
  }

  /// A conversation whose protocol ends a run with the app's calls pending (AG-UI, the AI SDK).
  static func nextRunChat(clientToolCallLimit: Int = 10) -> (Chat, RequestID) {
    var policy = ChatPolicy(clientToolCallLimit: clientToolCallLimit)
    policy.toolResultDelivery = .nextRun
    let chat = Chat(.existing([]), policy: policy)
    let request = chat.userSends("Where is my order?", id: "c1")
    chat.send(
      .sendAccepted(
        request, confirmed: .confirmed("Where is my order?", clientID: "c1", serverID: "s1", at: 1),
        conversationID: "conv-1"))
    chat.send(.replyStarted(request, agent: nil, at: time(2)))
    return (chat, request)
  }

  static let lookup = ToolCall(id: "call-1", name: "lookupOrder", input: ["order": "42"], execution: .client)

  /// The request of the `runTool` effect among `effects`.
  static func toolRun(in effects: [ConversationEffect]) -> RequestID? {
    for effect in effects { if case .runTool(let requestID, _, _) = effect { return requestID } }
    return nil
  }

  @Test("under nextRun a run that ends with the app's call pending waits; its result starts the continuation")
  func appToolResultContinues() throws {
    // Given a run that called the app's tool and ended
    let (chat, request) = Self.nextRunChat()
    chat.send(.replyDelta(request, "Checking. "))
    let tool = try #require(Self.toolRun(in: chat.send(.toolCallStarted(request, Self.lookup))))
    let end = Message(clientID: "x", role: .assistant, text: "", createdAt: time(3), finishReason: .toolCalls)
    #expect(chat.send(.replyFinished(request, message: end)) == [], "the tool keeps running")
    #expect(chat.state.messages.last?.reply == .awaitingToolResults(["call-1"]))
    #expect(chat.state.requests[tool] != nil)

    // When the tool returns
    let effects = chat.send(.toolRan(tool, .succeeded(["status": "shipped"])))

    // Then no result is posted on its own: the continuation carries it
    #expect(!effects.contains { if case .submitToolResult = $0 { true } else { false } })
    let (run, continuation) = try #require(Self.continuation(in: effects))
    #expect(continuation.toolResults.map(\.outcome) == [.succeeded(["status": "shipped"])])

    // And the continuation's text continues the same answer
    chat.send([
      .replyDelta(run, "It shipped."),
      .replyFinished(run, message: Message(clientID: "y", role: .assistant, text: "", createdAt: time(4))),
    ])
    #expect(chat.texts == ["Where is my order?", "Checking. It shipped."])
    #expect(chat.state.messages.last?.reply == .completed)
  }

  @Test("a result that came while the run still streamed starts the continuation at the run's end")
  func resultBeforeTheEnd() throws {
    let (chat, request) = Self.nextRunChat()
    let tool = try #require(Self.toolRun(in: chat.send(.toolCallStarted(request, Self.lookup))))
    #expect(chat.send(.toolRan(tool, .failed(ChatError(.toolFailed, "no such order")))) == [])

    let effects = chat.send(
      .replyFinished(request, message: Message(clientID: "x", role: .assistant, text: "", createdAt: time(3))))

    #expect(Self.continuation(in: effects)?.1.toolResults.map(\.outcome.errorCode) == [.toolFailed])
  }

  @Test("the tool-call limit holds across the runs of one answer")
  func toolLoopLimitAcrossRuns() throws {
    // Given a limit of one app-run call, used by the first run
    let (chat, request) = Self.nextRunChat(clientToolCallLimit: 1)
    let tool = try #require(Self.toolRun(in: chat.send(.toolCallStarted(request, Self.lookup))))
    chat.send(.replyFinished(request, message: Message(clientID: "x", role: .assistant, text: "", createdAt: time(3))))
    let (run, _) = try #require(Self.continuation(in: chat.send(.toolRan(tool, .succeeded("ok")))))

    // When the continuation calls the app's tool again
    chat.send(.toolCallStarted(run, ToolCall(id: "call-2", name: "lookupOrder", execution: .client)))

    // Then the answer ends TOOL_LOOP_LIMIT, keeping both runs' calls
    #expect(chat.state.messages.last?.reply?.error?.code == .toolLoopLimit)
    #expect(chat.state.messages.last?.toolCalls.map(\.id) == ["call-1"])
  }

  @Test("usage adds up across the runs of one answer")
  func usageAddsUp() throws {
    let (chat, request) = Self.nextRunChat()
    let tool = try #require(Self.toolRun(in: chat.send(.toolCallStarted(request, Self.lookup))))
    chat.send(
      .replyFinished(
        request,
        message: Message(
          clientID: "x", role: .assistant, text: "", createdAt: time(3), usage: Usage(inputTokens: 10, outputTokens: 3))
      ))
    let (run, _) = try #require(Self.continuation(in: chat.send(.toolRan(tool, .succeeded("ok")))))

    chat.send([
      .replyDelta(run, "Done."),
      .replyFinished(
        run,
        message: Message(
          clientID: "y", role: .assistant, text: "", createdAt: time(4), usage: Usage(inputTokens: 20, outputTokens: 5))
      ),
    ])

    #expect(chat.state.messages.last?.usage == Usage(inputTokens: 30, outputTokens: 8))
    #expect(chat.state.tokenUsage.inputTokens == 30)
  }

  @Test("an app-run call the agent asks about stops running until approved, then runs for the answer")
  func approvedAppToolRuns() throws {
    // Given an app-run call that started, then the agent asked to approve it
    let (chat, request) = StreamingTests.replying()
    let tool = try #require(Self.toolRun(in: chat.send(.toolCallStarted(request, Self.lookup))))
    let asked = chat.send(.inputRequested(request, InputRequest(id: "int-1", kind: .toolApproval("call-1"))))
    #expect(asked == [.cancel(tool)], "it does not go on before the user says so")
    chat.send(.replyFinished(request, message: Message(clientID: "x", role: .assistant, text: "", createdAt: time(3))))

    // When the user approves: the tool runs, and its result continues the run
    let approved = try #require(Self.toolRun(in: chat.send(.answerInput("int-1", .approved))))
    let effects = chat.send(.toolRan(approved, .succeeded("ok")))

    let (_, continuation) = try #require(Self.continuation(in: effects))
    #expect(continuation.toolResults.map(\.outcome) == [.succeeded("ok")])
    #expect(continuation.inputAnswers.map(\.answer) == [.approved])
  }

  @Test("stopping an answer that waits for the app's tools cancels them; the answer is cancelled")
  func stopWhileWaiting() throws {
    let (chat, request) = Self.nextRunChat()
    let tool = try #require(Self.toolRun(in: chat.send(.toolCallStarted(request, Self.lookup))))
    chat.send(.replyFinished(request, message: Message(clientID: "x", role: .assistant, text: "", createdAt: time(3))))

    #expect(chat.send(.stopReply) == [.cancel(tool)])
    #expect(chat.state.messages.last?.reply == .cancelled)
    #expect(chat.send(.toolRan(tool, .succeeded("late"))) == [], "a late result lands nowhere")
  }

  @Test("writing instead of answering leaves the question behind, cancelled")
  func sendAbandons() {
    let (chat, _) = Self.waitingForApproval()

    chat.userSends("Never mind", id: "c2")

    #expect(chat.state.messages[serverID: "s2"]?.reply == .cancelled)
    #expect(chat.send(.answerInput("int-1", .approved)) == [])
    #expect(chat.state.userError?.code == .unknownMessage)
  }

  enum Supersession: String, CaseIterable, CustomTestStringConvertible {
    case newerAnswerLive, newerAnswerInCatchUp, waitingAnswerDeleted
    var testDescription: String { rawValue }
  }

  @Test(
    "a newer answer from the server, or the waiting answer's deletion, ends the wait: cancelled, its tool stopped",
    arguments: Supersession.allCases)
  func newerAnswerEndsTheWait(how: Supersession) throws {
    // Given an answer that waits for the app's tool (still running) and for the user's approval
    let (chat, request) = Self.nextRunChat()
    let tool = try #require(Self.toolRun(in: chat.send(.toolCallStarted(request, Self.lookup))))
    chat.send([
      .toolCallStarted(request, ToolCall(id: "call-2", name: "refund", input: ["amount": 20], execution: .server)),
      .inputRequested(request, InputRequest(id: "int-1", kind: .toolApproval("call-2"), message: "Refund $20?")),
      .replyFinished(
        request, message: Message(clientID: "x", serverID: "s2", role: .assistant, text: "", createdAt: time(3))),
    ])
    #expect(chat.state.awaitingRun == request)

    // When the agent moved on without it (another device answered) or the answer went away
    let effects: [ConversationEffect]
    let newer = Message.server("Handled on your phone.", id: "s3", at: 4)
    switch how {
    case .newerAnswerLive:
      let connection = chat.connected()
      effects = chat.send(.realtime("conv-1", .messageCreated(newer), connection: connection, receivedAt: time(4)))
    case .newerAnswerInCatchUp:
      let connection = chat.nextRequestID
      chat.send(.connect)
      let sync = chat.nextRequestID
      chat.send(.connectionOpened(connection))
      effects = chat.send(.syncLoaded(sync, [newer]))
    case .waitingAnswerDeleted:
      let connection = chat.connected()
      effects = chat.send(.realtime("conv-1", .messageDeleted("s2"), connection: connection, receivedAt: time(4)))
    }

    // Then nothing waits any more: the app's tool is cancelled, and a waiting answer still there is cancelled
    #expect(chat.state.awaitingRun == nil)
    #expect(effects.contains(.cancel(tool)))
    #expect(chat.state.messages[serverID: "s2"].map { $0.reply == .cancelled } ?? true)
    #expect(chat.send(.answerInput("int-1", .approved)).isEmpty, "the question is no longer open")
    #expect(chat.state.invariantViolations() == [])
  }

  @Test("a continuation the backend cannot start leaves the answer failed, with all it had")
  func continuationRefused() throws {
    let (chat, _) = Self.waitingForApproval()
    let (run, _) = try #require(Self.continuation(in: chat.send(.answerInput("int-1", .approved))))

    chat.send(.requestFailed(run, ChatError.unsupported("continuing runs")))

    #expect(chat.state.messages.last?.reply?.error?.code == .unsupported)
    #expect(chat.state.messages.last?.text == "I can refund that.")
    #expect(chat.state.userError?.code == .unsupported)
  }

  @Test("a continuation cut off mid-stream keeps both runs' text, truncated")
  func continuationTruncated() throws {
    let (chat, _) = Self.waitingForApproval()
    let (run, _) = try #require(Self.continuation(in: chat.send(.answerInput("int-1", .approved))))

    chat.send([.replyDelta(run, " Refund"), .replyEnded(run)])

    #expect(chat.state.messages.last?.text == "I can refund that. Refund")
    #expect(chat.state.messages.last?.reply == .truncated)
  }
}
