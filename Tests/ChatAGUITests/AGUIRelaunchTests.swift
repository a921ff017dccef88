import ChatAGUI
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The agent is sent the conversation the user sees, after a relaunch too: `AGUIBackend` keeps no thread
/// between runs, and a client on the same storage sends the stored messages as `RunAgentInput.messages`.
@Suite(
  "AG-UI backend after a relaunch", .enabled(if: AGUIProducers.isInstalled, AGUIProducers.skipReason),
  .hangGuard)
struct AGUIRelaunchTests {
  let pydantic: LocalServerProcess
  let scripted: ScriptedAGUIServer

  init() async throws {
    pydantic = try await AGUIProducers.shared("pydantic_agent_server.py")
    scripted = try await ScriptedAGUIServer.shared()
  }

  var pydanticBase: URL { URL(string: "http://127.0.0.1:\(pydantic.port)")! }

  /// The bodies Pydantic AI's server received on `/agent`, oldest first.
  func pydanticRuns() async throws -> [[String: Any]] {
    let (data, _) = try await URLSession.shared.data(from: pydanticBase.appendingPathComponent("requests"))
    let all = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    return all.filter { $0["path"] as? String == "/agent" }.compactMap { $0["body"] as? [String: Any] }
  }

  /// The roles and texts of a run's `messages`.
  static func history(_ body: [String: Any]) -> [String] {
    (body["messages"] as? [[String: Any]] ?? []).map { message in
      "\(message["role"] as? String ?? "?"): \(message["content"] as? String ?? "")"
    }
  }

  @Test("Pydantic AI: after a relaunch, the next run carries the earlier exchange in RunAgentInput.messages")
  func pydanticKeepsContext() async throws {
    let endpoint = pydanticBase.appendingPathComponent("agent")
    let story = RelaunchStory { try AGUIBackend(endpoint: endpoint) }
    defer { story.cleanUp() }
    let (id, first) = try await story.firstLaunch("hello, I am Zed") { $0.messages.last?.reply == .completed }
    let answer = try #require(first.messages.last?.text)

    #expect(try await story.relaunchAndSend(id, "hello again") != nil)

    let run = try #require(
      try await pydanticRuns().last { ($0["threadId"] as? String) == id.rawValue })
    #expect(Self.history(run) == ["user: hello, I am Zed", "assistant: \(answer)", "user: hello again"])
  }

  @Test("Pydantic AI: an approval asked before a relaunch is answered after it, and the run continues")
  func pydanticApprovalAcrossRelaunch() async throws {
    let endpoint = pydanticBase.appendingPathComponent("agent")
    let story = RelaunchStory { try AGUIBackend(endpoint: endpoint) }
    defer { story.cleanUp() }
    // Given a run that stopped to ask for an approval, and an app that quit then; the relaunched app approves
    let (id, request, done) = try await story.approvalAcrossRelaunch("delete a.txt")

    // Then the run resumed with the answer and the tool ran
    let answer = try #require(done?.messages.last)
    #expect(answer.text.contains("deleted a.txt"), "\(answer.text)")
    let resumed = try #require(try await pydanticRuns().last { ($0["threadId"] as? String) == id.rawValue })
    let resume = resumed["resume"] as? [[String: Any]] ?? []
    #expect(resume.first?["interruptId"] as? String == request.id.rawValue)
    #expect(resumed["parentRunId"] as? String != nil, "the resume names the run it continues")
  }

  @Test("Pydantic AI: an approval remembered before a relaunch answers the agent's next interrupt after it")
  func pydanticGrantAcrossRelaunch() async throws {
    let endpoint = pydanticBase.appendingPathComponent("agent")
    let story = RelaunchStory { try AGUIBackend(endpoint: endpoint) }
    defer { story.cleanUp() }
    // Given a first launch where the user approved deleting a.txt for the conversation, and quit
    let (id, first) = try await story.firstLaunchRemembering("delete a.txt")
    #expect(first.messages.last?.text == "The delete_files tool said: deleted a.txt")

    // When the app is launched again and the user asks to delete b.txt (the agent holds the run that resumes
    // the interrupt until the gate opens)
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

    // Then the grant came back with the conversation and answered the interrupt on its own
    #expect(restored == ["delete_files"])
    try #require(granted?.grantedBy == "delete_files", "the user was asked: \(String(describing: granted))")
    #expect(granted?.answer == .approved)
    // And the agent was resumed with the interrupt approved, ran the tool, and answered
    #expect(done?.messages.last?.text == "The delete_files tool said: deleted b.txt")
    let resumed = try #require(try await pydanticRuns().last { ($0["threadId"] as? String) == id.rawValue })
    let resume = (resumed["resume"] as? [[String: Any]])?.first
    #expect(resume?["interruptId"] as? String == granted?.id.rawValue)
    #expect((resume?["payload"] as? [String: Any])?["approved"] as? Bool == true)
  }

  @Test("Pydantic AI: after a relaunch, regenerating the last answer runs again through its prompt")
  func pydanticRegenerate() async throws {
    let endpoint = pydanticBase.appendingPathComponent("agent")
    let story = RelaunchStory { try AGUIBackend(endpoint: endpoint) }
    defer { story.cleanUp() }
    let (id, _) = try await story.firstLaunch("hello there") { $0.messages.last?.reply == .completed }
    let done = try #require(try await story.regenerateAfterRelaunch(id), "no new answer (UNKNOWN_MESSAGE?)")
    #expect(done.messages.map(\.text) == ["hello there", "Hello! How can I help?"])
    #expect(done.userError == nil)
    let run = try #require(try await pydanticRuns().last { ($0["threadId"] as? String) == id.rawValue })
    #expect(Self.history(run) == ["user: hello there"], "the regeneration's history ends with its prompt")
  }

  @Test("Pydantic AI: an app tool cut off by a relaunch is not run again; the agent hears it stopped, and answers")
  func pydanticToolInterrupted() async throws {
    let endpoint = pydanticBase.appendingPathComponent("agent")
    let (done, runs) = try await RelaunchStory.toolInterruptedByRelaunch("pick a color") {
      try AGUIBackend(endpoint: endpoint, tools: [AGUITool(name: "pick_color", description: "Ask for a color")])
    }
    #expect(runs == 1, "the tool ran once, before the relaunch")
    let answer = try #require(done?.messages.last)
    #expect(answer.text.hasPrefix("The pick_color tool said: "), "\(answer.text)")
    #expect(answer.text.contains("not run again"), "\(answer.text)")
    #expect(done?.messages.count == 2, "the continuation went on in the same row")
  }

  @Test("ag-ui-protocol's server: after a relaunch, the next run carries the earlier exchange")
  func scriptedKeepsContext() async throws {
    let endpoint = scripted.endpoint("text")
    let story = RelaunchStory { try AGUIBackend(endpoint: endpoint) }
    defer { story.cleanUp() }
    let (id, first) = try await story.firstLaunch("My name is Zed") { $0.messages.last?.reply == .completed }
    let answer = try #require(first.messages.last?.text)
    #expect(try await story.relaunchAndSend(id, "What is my name?") != nil)
    let runs = try await scripted.requests().compactMap { $0["body"] as? [String: Any] ?? $0 }
    let run = try #require(runs.last { ($0["threadId"] as? String) == id.rawValue })
    #expect(Self.history(run) == ["user: My name is Zed", "assistant: \(answer)", "user: What is my name?"])
  }
}
