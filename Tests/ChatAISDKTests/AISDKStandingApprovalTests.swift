import ChatAISDK
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

/// "Always" for a tool (`ApprovalMemory.always`) as a host on Pydantic AI's `VercelAIAdapter` sees it, through
/// `ChatClient` with storage: the grant is the person's, so it answers the agent in another conversation,
/// after a relaunch, and never for someone else signed in on the same device.
@Suite(
  "Standing approvals against Pydantic AI (AI SDK)",
  .enabled(if: AgentProducers.isInstalled, AgentProducers.skipReason), .hangGuard)
struct AISDKStandingApprovalTests {
  @Test(
    "approved always, a deletion in a new conversation after a relaunch runs without the user; another person is asked")
  func alwaysAcrossConversationsAndRelaunch() async throws {
    let server = try await PydanticAgentServer.shared()
    let endpoint = server.base.appendingPathComponent("vercel/v6/chat")
    let story = RelaunchStory { try AISDKBackend(endpoint: endpoint) }
    defer { story.cleanUp() }

    // Given a first launch where the user approved deleting a.txt always, and quit
    let (_, first) = try await story.firstLaunchRemembering("delete a.txt", .always)
    #expect(first.messages.last?.text == "The delete_files tool said: deleted a.txt")
    #expect(first.standingApprovals.map(\.toolName) == ["delete_files"] && first.approvalGrants.isEmpty)

    // When the app is launched again and the user asks, in a new conversation, to delete b.txt (the agent
    // holds the run that carries the approval until the gate opens)
    let client = try story.launch()
    #expect(client.standingApprovals.map(\.toolName) == ["delete_files"])
    let chat = client.newConversation()
    let gate = PydanticAgentServer.gate()
    chat.sendMessage("delete b.txt wait \(gate)")

    // Then the person's grant answers the agent's request on its own, and the run goes on
    let granted = try #require(await chat.waiting(2)?.waitingRequests.first)
    try #require(granted.grantedBy == "delete_files", "the user was asked: \(granted)")
    try await server.open(gate)
    let done = try #require(await chat.completed(2))
    #expect(done.messages.last?.text == "The delete_files tool said: deleted b.txt")

    // When someone else signs in on the device and asks to delete c.txt
    client.identify(UserIdentity(userID: "someone-else"))
    await client.settled()
    #expect(client.standingApprovals.isEmpty)
    let theirs = client.newConversation()
    theirs.sendMessage("delete c.txt")

    // Then they are asked: the grant was not theirs
    let asked = try #require(await theirs.waiting(2)?.waitingRequests.first)
    #expect(asked.answer == nil && asked.grantedBy == nil)
    #expect(theirs.state.standingApprovals.isEmpty)

    // When the first person signs in again and revokes it from a settings screen
    client.identify(UserIdentity(userID: "zed"))
    await client.settled()
    #expect(client.standingApprovals.map(\.toolName) == ["delete_files"])
    await client.revokeStandingApproval(toolName: "delete_files")

    // Then it is gone from the client, from the file (a relaunch finds none), and their next request asks
    #expect(client.standingApprovals.isEmpty)
    let again = client.newConversation()
    again.sendMessage("delete d.txt")
    let askedAgain = try #require(await again.waiting(2)?.waitingRequests.first)
    #expect(askedAgain.grantedBy == nil)
    await client.close()
    let relaunched = try story.launch()
    #expect(relaunched.standingApprovals.isEmpty)
    await relaunched.close()
  }
}
