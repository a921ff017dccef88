import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// Approvals the user asks the conversation to remember: a later request to run the same tool is approved
/// without asking, marked as such, until the user revokes it.
@Suite("Remembered approvals")
struct ApprovalGrantTests {
  /// A second refund the agent asks to run in the continuation `run`, as `int-2` for call `call-2`.
  static func asksAgain(_ run: RequestID, in chat: Chat, tool: String = "refund") {
    chat.send([
      .replyStarted(run, agent: nil, at: time(4)),
      .toolCallStarted(run, ToolCall(id: "call-2", name: tool, input: ["amount": 5], execution: .server)),
      .inputRequested(run, InputRequest(id: "int-2", kind: .toolApproval("call-2"), message: "Refund $5?")),
    ])
  }

  /// The request `id` of the reply streaming.
  static func streamingRequest(_ id: InputRequestID, in chat: Chat) -> InputRequest? {
    chat.state.streamingReply?.inputRequests.first { $0.id == id }
  }

  @Test("approved for this conversation, the next request to run the tool is approved without asking, marked so")
  func rememberedForTheConversation() throws {
    // Given an answer waiting for the user to approve a refund
    let (chat, _) = AwaitingReplyTests.waitingForApproval()

    // When the user approves it for this conversation, and the agent asks to refund again
    let effects = chat.send(.approve("int-1", remembering: .conversation, at: time(3.5)))
    let (run, _) = try #require(AwaitingReplyTests.continuation(in: effects))
    Self.asksAgain(run, in: chat)

    // Then the grant is listed, the second request is approved on its own, and its call runs
    #expect(chat.state.approvalGrants == [ApprovalGrant(toolName: "refund", grantedAt: time(3.5))])
    let second = try #require(Self.streamingRequest("int-2", in: chat))
    #expect(second.answer == .approved && second.grantedBy == "refund")
    #expect(chat.state.streamingReply?.toolCalls.last?.outcome == .running)
    // And the first, which the user answered, is not marked
    #expect(
      chat.state.latestAnswer.flatMap { answer in
        if case .awaitingInput(let requests) = answer.reply { requests.first?.grantedBy } else { nil }
      } == nil)
  }

  @Test(
    "approved once, or for another tool, or revoked: the next request asks the user",
    arguments: ["once", "other tool", "revoked"])
  func asksAgainWithoutAGrant(case story: String) throws {
    // Given a refund approved once, or for the conversation and then revoked, or a grant for another tool
    let (chat, _) = AwaitingReplyTests.waitingForApproval()
    let memory: ApprovalMemory = story == "once" ? .once : .conversation
    let effects = chat.send(.approve("int-1", remembering: memory, at: time(3.5)))
    let (run, _) = try #require(AwaitingReplyTests.continuation(in: effects))
    if story == "revoked" { chat.send(.revokeApproval(toolName: "refund")) }

    // When the agent asks to run a tool again
    Self.asksAgain(run, in: chat, tool: story == "other tool" ? "delete_account" : "refund")

    // Then the user is asked
    let second = try #require(Self.streamingRequest("int-2", in: chat))
    #expect(second.answer == nil && second.grantedBy == nil)
    #expect(chat.state.streamingReply?.toolCalls.last?.outcome == .awaitingApproval)
    #expect(chat.state.approvalGrants.map(\.toolName) == (story == "other tool" ? ["refund"] : []))
  }

  @Test("remembering one approval approves the answer's other open requests to run the same tool")
  func approvesTheOthersOfTheSameTool() throws {
    // Given a reply asking to approve two refunds and a deletion
    let (chat, request) = StreamingTests.replying()
    chat.send([
      .toolCallStarted(request, ToolCall(id: "a", name: "refund", input: [:], execution: .server)),
      .toolCallStarted(request, ToolCall(id: "b", name: "refund", input: [:], execution: .server)),
      .toolCallStarted(request, ToolCall(id: "c", name: "delete_account", input: [:], execution: .server)),
      .inputRequested(request, InputRequest(id: "ia", kind: .toolApproval("a"))),
      .inputRequested(request, InputRequest(id: "ib", kind: .toolApproval("b"))),
      .inputRequested(request, InputRequest(id: "ic", kind: .toolApproval("c"))),
    ])

    // When the user approves the first refund for the conversation
    chat.send(.approve("ia", remembering: .conversation, at: time(3)))

    // Then the second refund is approved with it, marked; the deletion still asks
    let requests = try #require(chat.state.streamingReply?.inputRequests)
    #expect(requests.map(\.answer) == [.approved, .approved, nil])
    #expect(requests.map(\.grantedBy) == [nil, "refund", nil])
  }

  @Test(
    "what cannot be approved or revoked is refused and changes nothing",
    arguments: [
      (ConversationAction.approve("int-9", remembering: .conversation, at: time(4)), ChatError.Code.unknownMessage),
      (.revokeApproval(toolName: "refund"), .invalidAction),
    ])
  func refused(action: ConversationAction, code: ChatError.Code) {
    let (chat, _) = AwaitingReplyTests.waitingForApproval()
    let before = chat.state
    #expect(chat.send(action).isEmpty)
    #expect(chat.state.userError?.code == code)
    var expected = before
    expected.userError = chat.state.userError
    #expect(chat.state == expected)
  }

  @Test("a question cannot be approved, remembered or not")
  func questionRefused() {
    let (chat, request) = StreamingTests.replying()
    chat.send(.inputRequested(request, InputRequest(id: "q1", kind: .question(["type": "string"]))))
    chat.send(.approve("q1", remembering: .conversation, at: time(3)))
    #expect(chat.state.userError?.code == .invalidAction)
    #expect(chat.state.approvalGrants.isEmpty)
    #expect(Self.streamingRequest("q1", in: chat)?.answer == nil)
  }

  @Test("a grant never crosses to another person: signing in as someone else starts without it")
  func neverCrossesIdentities() throws {
    // Given a refund approved for the conversation
    let (chat, _) = AwaitingReplyTests.waitingForApproval()
    chat.send(.approve("int-1", remembering: .conversation, at: time(3.5)))
    #expect(!chat.state.approvalGrants.isEmpty)

    // When another person signs in on the device
    chat.send(.identify(UserIdentity(userID: "someone-else"), keepingGuestConversation: false))

    // Then nothing is remembered for them
    #expect(chat.state.approvalGrants.isEmpty)
  }

  @Test("approved always, the grant goes to the person's keeper and answers the next request without asking")
  func rememberedAlways() throws {
    // Given an answer waiting for the user to approve a refund
    let (chat, _) = AwaitingReplyTests.waitingForApproval()

    // When the user approves it always, and the agent asks to refund again
    let effects = chat.send(.approve("int-1", remembering: .always, at: time(3.5)))
    let grant = ApprovalGrant(toolName: "refund", grantedAt: time(3.5))
    let (run, _) = try #require(AwaitingReplyTests.continuation(in: effects))
    Self.asksAgain(run, in: chat)

    // Then the grant is the person's, handed to whoever keeps it, not this conversation's
    #expect(effects.contains(.changeStandingApprovals(.granted(grant))))
    #expect(chat.state.standingApprovals == [grant] && chat.state.approvalGrants.isEmpty)
    // And the second request is approved on its own, marked
    let second = try #require(Self.streamingRequest("int-2", in: chat))
    #expect(second.answer == .approved && second.grantedBy == "refund")
  }

  @Test(
    "a standing approval handed in for the person signed in answers where the user never approved; another person's is ignored",
    arguments: [true, false])
  func handedIn(forThisPerson: Bool) throws {
    // Given a reply streaming for the person signed in
    let (chat, request) = StreamingTests.replying()
    let person = chat.state.identity?.userID

    // When the client hands in standing approvals, for this person or for someone else
    let grant = ApprovalGrant(toolName: "refund", grantedAt: time(1))
    chat.send(.standingApprovalsChanged([grant], userID: forThisPerson ? person : "someone-else"))
    // …and the agent asks to run the tool
    chat.send([
      .toolCallStarted(request, ToolCall(id: "call-1", name: "refund", input: [:], execution: .server)),
      .inputRequested(request, InputRequest(id: "int-1", kind: .toolApproval("call-1"))),
    ])

    // Then this person's answers it; someone else's never lands, and the user is asked
    #expect(chat.state.standingApprovals == (forThisPerson ? [grant] : []))
    let asked = try #require(Self.streamingRequest("int-1", in: chat))
    #expect(asked.answer == (forThisPerson ? .approved : nil))
    #expect(asked.grantedBy == (forThisPerson ? "refund" : nil))
  }

  @Test("revoking a standing approval forgets it and tells the keeper; a change of person drops the list")
  func revokingStanding() throws {
    // Given a refund approved always
    let (chat, _) = AwaitingReplyTests.waitingForApproval()
    chat.send(.approve("int-1", remembering: .always, at: time(3.5)))

    // When the user revokes it
    let effects = chat.send(.revokeApproval(toolName: "refund"))

    // Then it is gone, and the keeper is told
    #expect(chat.state.standingApprovals.isEmpty && chat.state.userError == nil)
    #expect(effects == [.changeStandingApprovals(.revoked(toolName: "refund"))])

    // And a list handed in for this person and then a change of person leaves the next person none
    let person = chat.state.identity?.userID
    chat.send(.standingApprovalsChanged([ApprovalGrant(toolName: "refund", grantedAt: time(4))], userID: person))
    #expect(chat.state.standingApprovals.map(\.toolName) == ["refund"])
    chat.send(.identify(UserIdentity(userID: "someone-else"), keepingGuestConversation: false))
    #expect(chat.state.standingApprovals.isEmpty)
  }

  @Test(
    "an approval the agent decided itself is settled as it arrives, marked as the agent's; the answer does not wait",
    arguments: [InputAnswer.approved, .denied(reason: "policy")])
  func decidedByTheAgent(answer: InputAnswer) throws {
    // Given a reply streaming a call, and a standing grant for another tool
    let (chat, request) = StreamingTests.replying()
    chat.send(.toolCallStarted(request, ToolCall(id: "call-1", name: "refund", input: [:], execution: .server)))

    // When the agent's side asks and answers its own approval
    chat.send(
      .inputRequested(
        request, InputRequest(id: "int-1", kind: .toolApproval("call-1"), answer: answer, answeredByAgent: true)))

    // Then the request shows the agent's answer, the call is settled, and nothing waits for the user
    let settled = try #require(Self.streamingRequest("int-1", in: chat))
    #expect(settled.answer == answer && settled.isAnsweredByAgent && settled.grantedBy == nil)
    #expect(
      chat.state.streamingReply?.toolCalls.first?.outcome
        == (answer == .approved ? .running : .denied(reason: "policy")))
    _ = chat.send(
      .replyFinished(
        request, message: Message(clientID: "x", serverID: "s2", role: .assistant, text: "ok", createdAt: time(3))))
    #expect(chat.state.messages.last?.reply == .completed)
  }

  @Test("an answer the agent gives that does not fit its request is rejected, and the user is not asked instead")
  func agentAnswerThatDoesNotFit() {
    let (chat, request) = StreamingTests.replying()
    chat.send(.toolCallStarted(request, ToolCall(id: "call-1", name: "refund", input: [:], execution: .server)))
    chat.send(
      .inputRequested(
        request, InputRequest(id: "int-1", kind: .toolApproval("call-1"), answer: .declined, answeredByAgent: true)))
    #expect(Self.streamingRequest("int-1", in: chat) == nil)
  }
}
