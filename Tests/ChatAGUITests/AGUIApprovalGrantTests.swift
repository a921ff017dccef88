import ChatAGUI
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

/// A remembered approval (`ApprovalGrant`) as a host on Pydantic AI's AG-UI adapter sees it: `delete_files`
/// needs the user's approval, an interrupt (`Tests/AgentProducers/pydantic_agent_server.py`); approved for the
/// conversation, the agent's next interrupt to run it is answered by the grant and resumed with no one
/// touching the app.
@Suite(
  "Remembered approvals against Pydantic AI (AG-UI)", .enabled(if: AGUIProducers.isInstalled, AGUIProducers.skipReason),
  .hangGuard)
struct AGUIApprovalGrantTests {
  let server: PydanticAgentServer

  init() async throws { server = try await PydanticAgentServer.shared() }

  /// The runs the agent received for thread `id`, oldest first.
  func runs(_ id: ConversationID?) async throws -> [[String: Any]] {
    try await server.bodies(at: "/agent").filter { $0["threadId"] as? String == id?.rawValue }
  }

  @Test("approved for the conversation, the next deletion runs without the user; once revoked, the user is asked")
  func rememberedForTheConversation() async throws {
    let store = ChatStore.onAGUI(try AGUIBackend(endpoint: server.base.appendingPathComponent("agent")))
    defer { store.close() }

    // Given the agent asked to delete a.txt, and the user approved it for this conversation
    store.sendMessage("delete a.txt")
    let asked = try #require(await store.waiting(2)?.waitingRequests.first)
    store.send(.approve(asked.id, remembering: .conversation, at: Date()))
    let first = try #require(await store.completed(2))
    #expect(first.messages.last?.text == "The delete_files tool said: deleted a.txt")
    #expect(first.approvalGrants.map(\.toolName) == ["delete_files"])

    // When the user asks to delete b.txt (the agent holds the run that resumes the interrupt until the gate opens)
    let gate = PydanticAgentServer.gate()
    store.sendMessage("delete b.txt wait \(gate)")

    // Then the agent interrupts again, and the grant answers it: the answer waits only for its resume
    let granted = try #require(await store.waiting(4))
    let request = try #require(granted.waitingRequests.first)
    #expect(request.kind == .toolApproval("call_delete_2"))
    try #require(request.grantedBy == "delete_files", "the user was asked: no grant answered")
    #expect(request.answer == .approved)
    #expect(granted.messages.last?.toolCalls.first?.outcome == .running)

    // When the agent goes on (the test opens the gate on the agent's side; the user does nothing)
    try await server.open(gate)

    // Then it ran the tool on b.txt and answered, with no user action
    let done = try #require(await store.completed(4))
    let answer = try #require(done.messages.last)
    #expect(answer.text == "The delete_files tool said: deleted b.txt")
    #expect(answer.toolCalls.first?.outcome == .succeeded("deleted b.txt"))
    // And the agent received the resume: the interrupt answered, approved
    let sent = try await runs(done.conversationID)
    try #require(sent.count == 4, "the agent was run \(sent.count) times")
    let resume = try #require((sent[3]["resume"] as? [[String: Any]])?.first, "the fourth run resumes nothing")
    #expect(resume["interruptId"] as? String == request.id.rawValue)
    #expect(resume["status"] as? String == "resolved")
    #expect((resume["payload"] as? [String: Any])?["approved"] as? Bool == true)

    // When the user revokes the grant and asks to delete c.txt
    store.send(.revokeApproval(toolName: "delete_files"))
    #expect(store.state.approvalGrants.isEmpty)
    store.sendMessage("delete c.txt")

    // Then the answer waits for the user, and nothing but the question went to the agent
    let third = try #require(await store.waiting(6))
    let open = try #require(third.waitingRequests.first)
    #expect(open.answer == nil && open.grantedBy == nil)
    #expect(third.messages.last?.toolCalls.first?.outcome == .awaitingApproval)
    let all = try await runs(done.conversationID)
    #expect(all.count == 5, "the agent was run \(all.count) times")
    #expect(all.last?["resume"] == nil, "the last run resumes nothing")
  }
}
