import ChatAISDK
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The server is sent the chat the user sees, after a relaunch too: `AISDKBackend` keeps no chat between
/// requests, and a client on the same storage sends the stored messages as the request's `messages`.
@Suite(
  "AI SDK backend after a relaunch", .enabled(if: AgentProducers.isInstalled, AgentProducers.skipReason),
  .hangGuard)
struct AISDKRelaunchTests {
  let server: LocalServerProcess
  var base: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

  init() async throws { server = try await AgentProducers.shared("pydantic_agent_server.py") }

  /// The bodies Pydantic AI's server received for chat `id`, oldest first.
  func requests(for id: ConversationID) async throws -> [[String: Any]] {
    let (data, _) = try await URLSession.shared.data(from: base.appendingPathComponent("requests"))
    let all = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    return all.compactMap { $0["body"] as? [String: Any] }.filter { $0["id"] as? String == id.rawValue }
  }

  /// Each UI message of a request as "role: its text parts joined".
  static func history(_ body: [String: Any]) -> [String] {
    (body["messages"] as? [[String: Any]] ?? []).map { message in
      let parts = message["parts"] as? [[String: Any]] ?? []
      let text = parts.filter { $0["type"] as? String == "text" }.compactMap { $0["text"] as? String }.joined()
      return "\(message["role"] as? String ?? "?"): \(text)"
    }
  }

  @Test("after a relaunch, the next request carries the earlier exchange in its messages")
  func relaunchKeepsContext() async throws {
    let endpoint = base.appendingPathComponent("vercel/v6/chat")
    let story = RelaunchStory { try AISDKBackend(endpoint: endpoint) }
    defer { story.cleanUp() }
    let (id, first) = try await story.firstLaunch("hello, I am Zed") { $0.messages.last?.reply == .completed }
    let answer = try #require(first.messages.last?.text)

    #expect(try await story.relaunchAndSend(id, "hello again") != nil)
    let last = try #require(try await requests(for: id).last)
    #expect(Self.history(last) == ["user: hello, I am Zed", "assistant: \(answer)", "user: hello again"])
  }

  @Test("after a relaunch, regenerating the last answer asks again with the chat through its prompt")
  func regenerateAfterRelaunch() async throws {
    let endpoint = base.appendingPathComponent("vercel/v6/chat")
    let story = RelaunchStory { try AISDKBackend(endpoint: endpoint) }
    defer { story.cleanUp() }
    let (id, _) = try await story.firstLaunch("hello there") { $0.messages.last?.reply == .completed }
    let done = try #require(try await story.regenerateAfterRelaunch(id), "no new answer (UNKNOWN_MESSAGE?)")
    #expect(done.messages.map(\.text) == ["hello there", "Hello! How can I help?"])
    let last = try #require(try await requests(for: id).last)
    #expect(last["trigger"] as? String == "regenerate-message")
    #expect(Self.history(last) == ["user: hello there"])
  }

  @Test("an app tool cut off by a relaunch is not run again; the server hears it stopped, and answers")
  func toolInterrupted() async throws {
    let endpoint = base.appendingPathComponent("vercel/v6/chat")
    let (done, runs) = try await RelaunchStory.toolInterruptedByRelaunch("pick a color") {
      try AISDKBackend(endpoint: endpoint, appTools: ["pick_color"])
    }
    #expect(runs == 1, "the tool ran once, before the relaunch")
    let answer = try #require(done?.messages.last)
    #expect(answer.text.hasPrefix("The pick_color tool said: "), "\(answer.text)")
    #expect(answer.text.contains("not run again"), "\(answer.text)")
  }

  @Test("an approval asked before a relaunch is answered after it: the resent message carries the answer")
  func approvalAcrossRelaunch() async throws {
    let endpoint = base.appendingPathComponent("vercel/v6/chat")
    let story = RelaunchStory { try AISDKBackend(endpoint: endpoint) }
    defer { story.cleanUp() }
    let (_, _, done) = try await story.approvalAcrossRelaunch("delete a.txt")
    let answer = try #require(done?.messages.last)
    #expect(answer.text == "The delete_files tool said: deleted a.txt")
    #expect(done?.messages.count == 2, "the continuation streamed in the same row")
  }

  @Test("an approval remembered before a relaunch answers the agent's next request after it, and the run goes on")
  func grantAcrossRelaunch() async throws {
    let endpoint = base.appendingPathComponent("vercel/v6/chat")
    let story = RelaunchStory { try AISDKBackend(endpoint: endpoint) }
    defer { story.cleanUp() }
    // Given a first launch where the user approved deleting a.txt for the conversation, and quit
    let (id, first) = try await story.firstLaunchRemembering("delete a.txt")
    #expect(first.messages.last?.text == "The delete_files tool said: deleted a.txt")

    // When the app is launched again and the user asks to delete b.txt (the agent holds the run that carries
    // the approval until the gate opens)
    let server = try await PydanticAgentServer.shared()
    let gate = PydanticAgentServer.gate()
    let (restored, granted, done) = try await story.relaunch(id) {
      (chat: ChatStore) async throws -> ([String], InputRequest?, ConversationState?) in
      let restored = chat.state.approvalGrants.map(\.toolName)
      chat.sendMessage("delete b.txt wait \(gate)")
      let granted = await chat.waiting(4)?.waitingRequests.first
      guard granted?.grantedBy != nil else { return (restored, granted, nil) }  // the user was asked
      try await server.open(gate)
      return (restored, granted, await chat.completed(4))
    }

    // Then the grant came back with the conversation and answered the request on its own
    #expect(restored == ["delete_files"])
    try #require(granted?.grantedBy == "delete_files", "the user was asked: \(String(describing: granted))")
    #expect(granted?.answer == .approved)
    // And the agent received the answer resent with the call approved, ran it, and answered
    #expect(done?.messages.last?.text == "The delete_files tool said: deleted b.txt")
    let last = try #require(try await requests(for: id).last)
    let resent = (last["messages"] as? [[String: Any]])?.last
    let part = (resent?["parts"] as? [[String: Any]])?.first { $0["type"] as? String == "tool-delete_files" }
    #expect(part?["state"] as? String == "approval-responded")
    #expect((part?["approval"] as? [String: Any])?["approved"] as? Bool == true)
  }

  @Test("an app tool answered before a relaunch goes back with the answer after it, and the tool never runs again")
  func appToolAcrossRelaunch() async throws {
    let endpoint = base.appendingPathComponent("vercel/v6/chat")
    let runs = Counter()
    let story = RelaunchStory(
      backend: { try AISDKBackend(endpoint: endpoint, appTools: ["pick_color"]) },
      tools: [
        "pick_color": { _ in
          runs.increment()
          return "teal"
        }
      ])
    defer { story.cleanUp() }
    let (id, _) = try await story.firstLaunch("pick a color") { $0.messages.last?.reply == .completed }
    #expect(try await story.relaunchAndSend(id, "hello again") != nil)
    #expect(runs.value == 1)
    // The second request resent the first answer with its tool part answered
    let last = try #require(try await requests(for: id).last)
    let assistant = (last["messages"] as? [[String: Any]])?.first { $0["role"] as? String == "assistant" }
    let tool = (assistant?["parts"] as? [[String: Any]])?.first { $0["type"] as? String == "tool-pick_color" }
    #expect(tool?["state"] as? String == "output-available")
    #expect(tool?["output"] as? String == "teal")
  }
}

/// A count several tasks add to.
final class Counter: Sendable {
  private let count = StateLock(0)
  func increment() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}
