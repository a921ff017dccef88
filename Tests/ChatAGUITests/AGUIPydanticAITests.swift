import ChatAGUI
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

/// `AGUIBackend` against a real agent framework: Pydantic AI's AG-UI adapter, with a scripted model
/// (`Tests/AgentProducers/pydantic_agent_server.py`), over a real socket.
@Suite(
  "AG-UI backend against Pydantic AI", .enabled(if: AGUIProducers.isInstalled, AGUIProducers.skipReason),
  .hangGuard)
struct AGUIPydanticAITests {
  let server: LocalServerProcess
  var endpoint: URL { URL(string: "http://127.0.0.1:\(server.port)/agent")! }

  init() async throws { server = try await AGUIProducers.shared("pydantic_agent_server.py") }

  @Test("a text answer streams and completes; Pydantic AI's empty parent messages show nothing")
  func text() async throws {
    let store = ChatStore.onAGUI(try AGUIBackend(endpoint: endpoint))
    defer { store.close() }
    store.sendMessage("hello there")
    let answer = try #require(await store.answered()?.messages.last)
    #expect(answer.reply == .completed)
    #expect(answer.text == "Hello! How can I help?")
    #expect(answer.parts.count == 1)
  }

  @Test("reasoning streams into its own part before the text")
  func reasoning() async throws {
    let store = ChatStore.onAGUI(try AGUIBackend(endpoint: endpoint))
    defer { store.close() }
    store.sendMessage("think about it")
    let answer = try #require(await store.answered()?.messages.last)
    #expect(answer.reply == .completed)
    #expect(answer.text == "Here is my considered answer.")
    let reasoning = answer.parts.compactMap { part -> String? in
      if case .reasoning(let reasoning) = part.content { return reasoning.text }
      return nil
    }
    #expect(reasoning == ["The user wants a considered answer."])
  }

  @Test("a server tool runs on the agent: its call and result land on the answer, then the text")
  func serverTool() async throws {
    let store = ChatStore.onAGUI(try AGUIBackend(endpoint: endpoint))
    defer { store.close() }
    store.sendMessage("weather in Berlin?")
    let answer = try #require(await store.answered()?.messages.last)
    #expect(answer.reply == .completed)
    #expect(answer.toolCalls.map(\.name) == ["get_weather"])
    #expect(answer.toolCalls.first?.execution == .server)
    #expect(answer.toolCalls.first?.input == ["city": "Berlin"])
    #expect(answer.toolCalls.first?.outcome == .succeeded(["city": "Berlin", "forecast": "sunny"]))
    #expect(answer.text.hasPrefix("The get_weather tool said: "))
  }

  @Test("a conversation goes on over several runs: each run's history holds the earlier calls and results in order")
  func severalTurns() async throws {
    let store = ChatStore.onAGUI(try AGUIBackend(endpoint: endpoint))
    defer { store.close() }
    store.sendMessage("weather in Berlin?")
    _ = try #require(await store.answered())
    // Pydantic AI refuses a history whose tool result comes before its call: this run proves the order
    store.sendMessage("hello again")
    let done = try #require(await store.answered(4))
    #expect(done.messages.map(\.reply) == [nil, .completed, nil, .completed])
    #expect(done.messages.last?.text == "Hello! How can I help?")
  }

  @Test("the demo runs a script against the agent and prints the transcript in Examples/agui.transcript")
  func demoScript() async throws {
    let root = AGUIProducers.repository
    let (status, printed) = try #require(
      try await DemoRun.run(["--agui", endpoint.absoluteString, "--script", "Examples/agui.script", "--plain"]),
      "the demo is not built next to the tests")
    #expect(status == 0)
    let expected = try String(contentsOf: root.appendingPathComponent("Examples/agui.transcript"), encoding: .utf8)
    #expect(printed == expected)
  }

  @Test("the app's tool ends the run pending; its result goes back in a continuation run, one answer in all")
  func appTool() async throws {
    // Given an app that advertises pick_color and answers it
    let backend = try AGUIBackend(
      endpoint: endpoint, tools: [AGUITool(name: "pick_color", description: "Ask the user for a color")])
    let store = ChatStore.onAGUI(backend, tools: ["pick_color": { _ in "teal" }])
    defer { store.close() }
    // When the agent calls it
    store.sendMessage("pick a color")
    // Then the app's result reached the agent, which finished the same answer with it
    let answer = try #require(await store.answered()?.messages.last)
    #expect(answer.reply == .completed)
    #expect(answer.toolCalls.map(\.execution) == [.client])
    #expect(answer.toolCalls.first?.outcome == .succeeded("teal"))
    #expect(answer.text == "The pick_color tool said: teal")
  }

  @Test(
    "an approval interrupts the run; the user's answer resumes it, and the tool runs only if approved",
    arguments: [true, false])
  func approval(approved: Bool) async throws {
    let backend = try AGUIBackend(endpoint: endpoint)
    let store = ChatStore.onAGUI(backend)
    defer { store.close() }
    store.sendMessage("delete a.txt")
    let waiting = try #require(
      await store.state(within: 30, where: { $0.messages.last?.reply?.isAwaiting == true && $0.isSettled }))
    guard case .awaitingInput(let requests)? = waiting.messages.last?.reply else {
      Issue.record("not waiting for the user: \(String(describing: waiting.messages.last?.reply))")
      return
    }
    let request = try #require(requests.first)
    #expect(request.kind == .toolApproval("call_delete"))
    #expect(request.message?.hasPrefix("Approve delete_files") == true)
    #expect(waiting.messages.last?.toolCalls.first?.outcome == .awaitingApproval)

    store.send(.answerInput(request.id, approved ? .approved : .denied(reason: "Keep it")))

    let done = try #require(
      await store.state(within: 30, where: { $0.messages.last?.reply == .completed && $0.isSettled }))
    let answer = try #require(done.messages.last)
    if approved {
      #expect(answer.text.contains("deleted a.txt"), "\(answer.text)")
      #expect(answer.toolCalls.first?.outcome == .succeeded("deleted a.txt"))
    } else {
      #expect(!answer.text.contains("deleted a.txt"), "\(answer.text)")
      #expect(answer.toolCalls.first?.outcome == .denied(reason: "Keep it"))
      // And the next run answers the denied call with a tool message that says so
      let thread = AGUIThread(context: AgentContext(messages: Array(done.messages)))
      let result = thread.messages.first { $0["role"] == "tool" && $0["toolCallId"] == "call_delete" }
      #expect(result?["content"]?.stringValue?.contains("denied") == true, "\(String(describing: result))")
    }
  }
}
