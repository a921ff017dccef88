import ChatAISDK
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

/// AI SDK 7's approvals as a host sees them, against scripted streams (`aisdk_scripted_server.py`; no producer
/// on the registries emits these chunks yet): a server that decides an approval by its own policy
/// (`tool-approval-request` with `isAutomatic`, then `tool-approval-response`) settles it without asking the
/// user, and a signed request (`signature`, a server with a `toolApprovalSecret`) gets its signature back with
/// the user's answer.
@Suite(
  "AI SDK 7 approvals against scripted streams", .enabled(if: AgentProducers.isInstalled, AgentProducers.skipReason),
  .hangGuard)
struct AISDKServerDecidedApprovalTests {
  let server: ScriptedAISDKServer

  init() async throws { server = try await ScriptedAISDKServer.shared() }

  /// The requests the server got for chat `id`.
  func requests(for id: ConversationID?) async throws -> [[String: Any]] {
    try await server.requests().filter { ($0["body"] as? [String: Any])?["id"] as? String == id?.rawValue }
  }

  @Test(
    "an approval the server decides by policy settles the call in the same run; the user is never asked",
    arguments: [true, false])
  func decidedByTheServer(approved: Bool) async throws {
    // Given a server whose policy approves (or denies) deleting a.txt
    let store = ChatStore.onAISDK(
      try AISDKBackend(endpoint: server.endpoint(approved ? "auto-approval" : "auto-denial")))
    defer { store.close() }

    // When the user asks
    store.sendMessage("delete a.txt")

    // Then the answer completes in that one run, with the call's outcome, and nothing waits for the user
    // (the request, marked as the agent's while it streamed, is in the reducer's and mapper's stories)
    let done = try #require(await store.ended())
    let answer = try #require(done.messages.last)
    #expect(answer.reply == .completed)
    #expect(
      answer.toolCalls.first?.outcome
        == (approved ? .succeeded("deleted a.txt") : .denied(reason: "policy: never on Fridays")))
    #expect(done.waitingRequests.isEmpty)
    #expect(try await requests(for: done.conversationID).count == 1, "no continuation was sent")
  }

  @Test("a signed approval request gets its signature back with the user's answer, and the server goes on")
  func signatureGoesBack() async throws {
    // Given an answer waiting for the user to approve a signed request
    let store = ChatStore.onAISDK(try AISDKBackend(endpoint: server.endpoint("signed-approval")))
    defer { store.close() }
    store.sendMessage("delete a.txt")
    let waiting = try #require(
      await store.state(where: { !$0.waitingRequests.isEmpty && $0.isSettled }))
    let request = try #require(waiting.waitingRequests.first)

    // When the user approves
    store.send(.answerInput(request.id, .approved))

    // Then the server (which refuses an answer without the signature) accepted the continuation
    let done = try #require(
      await store.state(where: { $0.messages.last?.reply?.isAwaiting == false && $0.isSettled }))
    #expect(done.messages.last?.reply == .completed, "\(String(describing: done.messages.last?.reply))")
    #expect(done.messages.last?.text.hasSuffix("Deleted a.txt.") == true)
    let continued = try #require(try await requests(for: done.conversationID).last?["body"] as? [String: Any])
    let parts = ((continued["messages"] as? [[String: Any]])?.last?["parts"] as? [[String: Any]]) ?? []
    let approval = parts.first { $0["toolCallId"] as? String == "call-delete" }?["approval"] as? [String: Any]
    #expect(approval?["signature"] as? String == "sig-approval-1")
    #expect(approval?["approved"] as? Bool == true)
  }

  @Test(
    "a step the server retries (reset-step) leaves nothing of its first try in the answer, and AI SDK 7's new parts land"
  )
  func resetStep() async throws {
    // Given a server whose first step is thrown away and streamed again
    let store = ChatStore.onAISDK(try AISDKBackend(endpoint: server.endpoint("reset-step")))
    defer { store.close() }

    // When the user asks
    store.sendMessage("where is my order?")

    // Then the answer holds the second try only: its text, no call of the first, and the custom and
    // reasoning-file parts as data parts
    let answer = try #require(await store.ended()?.messages.last)
    #expect(answer.reply == .completed)
    #expect(answer.text == "The second try.")
    #expect(answer.toolCalls.isEmpty)
    let kinds = answer.parts.compactMap { part -> String? in
      if case .data(let data) = part.content { data.kind } else { nil }
    }
    #expect(kinds == ["scripted.note", "reasoning-file"])
  }
}
