import ChatAISDK
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

/// A remembered approval (`ApprovalGrant`) as a host on Pydantic AI's `VercelAIAdapter` sees it, in AI SDK 6
/// (v5 has no approvals): `delete_files` needs the user's approval (`Tests/AgentProducers/pydantic_agent_server.py`);
/// approved for the conversation, the agent's next request to run it is answered by the grant and goes back
/// in the resent message with no one touching the app.
@Suite(
  "Remembered approvals against Pydantic AI (AI SDK)",
  .enabled(if: AgentProducers.isInstalled, AgentProducers.skipReason), .hangGuard)
struct AISDKApprovalGrantTests {
  let server: PydanticAgentServer

  init() async throws { server = try await PydanticAgentServer.shared() }

  func store() throws -> ChatStore {
    ChatStore.onAISDK(try AISDKBackend(endpoint: server.base.appendingPathComponent("vercel/v6/chat")))
  }

  /// The bodies the server received for chat `id`, oldest first.
  func received(_ id: ConversationID?) async throws -> [[String: Any]] {
    try await server.bodies(at: "/vercel/v6/chat").filter { $0["id"] as? String == id?.rawValue }
  }

  /// The `delete_files` part of the last message of a request body, when it resends the answer.
  static func deletion(in body: [String: Any]) -> [String: Any]? {
    let last = (body["messages"] as? [[String: Any]])?.last
    guard last?["role"] as? String == "assistant" else { return nil }
    return (last?["parts"] as? [[String: Any]])?.first { $0["type"] as? String == "tool-delete_files" }
  }

  @Test("approved for the conversation, the next deletion runs without the user; once revoked, the user is asked")
  func rememberedForTheConversation() async throws {
    let store = try store()
    defer { store.close() }

    // Given the agent asked to delete a.txt, and the user approved it for this conversation
    store.sendMessage("delete a.txt")
    let asked = try #require(await store.waiting(2)?.waitingRequests.first)
    store.send(.approve(asked.id, remembering: .conversation, at: Date()))
    let first = try #require(await store.completed(2))
    #expect(first.messages.last?.text == "The delete_files tool said: deleted a.txt")
    #expect(first.approvalGrants.map(\.toolName) == ["delete_files"])

    // When the user asks to delete b.txt (the agent holds the run that carries the approval until the gate opens)
    let gate = PydanticAgentServer.gate()
    store.sendMessage("delete b.txt wait \(gate)")

    // Then the agent asks again, and the grant answers it: the answer waits only for its continuation
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
    // And the agent received the continuation: the answer resent with the call approved
    let sent = try await received(done.conversationID)
    try #require(sent.count == 4, "the agent was asked \(sent.count) times")
    let continued = try #require(Self.deletion(in: sent[3]), "the fourth request resends no deletion")
    #expect(continued["state"] as? String == "approval-responded")
    let approval = continued["approval"] as? [String: Any]
    #expect(approval?["id"] as? String == request.id.rawValue && approval?["approved"] as? Bool == true)
    #expect((continued["input"] as? [String: Any])?["paths"] as? [String] == ["b.txt"])

    // When the user revokes the grant and asks to delete c.txt
    store.send(.revokeApproval(toolName: "delete_files"))
    #expect(store.state.approvalGrants.isEmpty)
    store.sendMessage("delete c.txt")

    // Then the answer waits for the user, and nothing but the question went to the agent
    let third = try #require(await store.waiting(6))
    let open = try #require(third.waitingRequests.first)
    #expect(open.answer == nil && open.grantedBy == nil)
    #expect(third.messages.last?.toolCalls.first?.outcome == .awaitingApproval)
    let all = try await received(done.conversationID)
    #expect(all.count == 5, "the agent was asked \(all.count) times")
    #expect(all.last.map { Self.deletion(in: $0) == nil } == true, "the last request answers no approval")
  }
}
