import ChatAISDK
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

/// `AISDKBackend` against a real producer: Pydantic AI's `VercelAIAdapter` with a scripted model
/// (`Tests/AgentProducers/pydantic_agent_server.py`), in both SDK versions it serves, over a real socket.
@Suite(
  "AI SDK backend against Pydantic AI", .enabled(if: AgentProducers.isInstalled, AgentProducers.skipReason),
  .hangGuard)
struct AISDKPydanticAITests {
  let server: LocalServerProcess

  init() async throws { server = try await AgentProducers.shared("pydantic_agent_server.py") }

  func endpoint(_ version: Int) -> URL { URL(string: "http://127.0.0.1:\(server.port)/vercel/v\(version)/chat")! }

  @Test(
    "a text answer streams in its part and completes; the answer is known by the ID the client gave it",
    arguments: [5, 6])
  func text(version: Int) async throws {
    let store = ChatStore.onAISDK(try AISDKBackend(endpoint: endpoint(version)))
    defer { store.close() }
    let sent = store.sendMessage("hello there")
    let state = try #require(await store.ended())
    let answer = try #require(state.messages.last)
    #expect(answer.reply == .completed)
    #expect(answer.text == "Hello! How can I help?")
    #expect(answer.parts.count == 1)
    #expect(answer.serverID != nil, "Pydantic AI names no message: the client's ID stands")
    #expect(state.messages.first?.clientID == sent && state.messages.first?.delivery == .sent)
  }

  @Test("reasoning streams into its own part before the text", arguments: [5, 6])
  func reasoning(version: Int) async throws {
    let store = ChatStore.onAISDK(try AISDKBackend(endpoint: endpoint(version)))
    defer { store.close() }
    store.sendMessage("think about it")
    let answer = try #require(await store.ended()?.messages.last)
    #expect(answer.text == "Here is my considered answer.")
    let reasoning = answer.parts.compactMap { part -> String? in
      if case .reasoning(let reasoning) = part.content { return reasoning.text }
      return nil
    }
    #expect(reasoning == ["The user wants a considered answer."])
  }

  @Test(
    "a server tool runs on the server: its call and result land on the answer, then the next step's text",
    arguments: [5, 6])
  func serverTool(version: Int) async throws {
    let store = ChatStore.onAISDK(try AISDKBackend(endpoint: endpoint(version)))
    defer { store.close() }
    store.sendMessage("weather in Berlin?")
    let answer = try #require(await store.ended()?.messages.last)
    #expect(answer.reply == .completed)
    #expect(answer.toolCalls.map(\.execution) == [.server])
    #expect(answer.toolCalls.first?.input == ["city": "Berlin"])
    #expect(answer.toolCalls.first?.outcome == .succeeded(["city": "Berlin", "forecast": "sunny"]))
    #expect(answer.text.hasPrefix("The get_weather tool said: "))
  }

  @Test(
    "the app's tool ends the reply waiting; its result goes back in the resent message, one answer in all",
    arguments: [5, 6])
  func appTool(version: Int) async throws {
    // Given an app that runs pick_color itself
    let backend = try AISDKBackend(endpoint: endpoint(version), appTools: ["pick_color"])
    let store = ChatStore.onAISDK(backend, tools: ["pick_color": { _ in "teal" }])
    defer { store.close() }
    // When the user asks for a color
    store.sendMessage("pick a color")
    // Then the result reached the server, which finished the same answer with it
    let answer = try #require(await store.ended()?.messages.last)
    #expect(answer.reply == .completed)
    #expect(answer.toolCalls.map(\.execution) == [.client])
    #expect(answer.toolCalls.first?.outcome == .succeeded("teal"))
    #expect(answer.text == "The pick_color tool said: teal")
    // And the chat the next request sends holds one assistant message with the tool part answered, then the text
    let messages = AISDKChat(context: AgentContext(messages: Array(store.state.messages))).messages
    #expect(messages.count == 2)
    let states = messages.last?.field("parts")?.arrayValue?.compactMap { $0.field("state") }
    #expect(states == ["output-available", "done"])
  }

  @Test(
    "an approval (AI SDK 6) waits for the user; the answer goes back in the resent message, and the tool runs only if approved",
    arguments: [true, false])
  func approval(approved: Bool) async throws {
    let store = ChatStore.onAISDK(try AISDKBackend(endpoint: endpoint(6)))
    defer { store.close() }
    store.sendMessage("delete a.txt")
    let waiting = try #require(
      await store.state(within: 30, where: { $0.messages.last?.reply?.isAwaiting == true && $0.isSettled }))
    guard case .awaitingInput(let requests)? = waiting.messages.last?.reply, let request = requests.first else {
      Issue.record("the answer does not wait for the user: \(String(describing: waiting.messages.last?.reply))")
      return
    }
    #expect(request.kind == .toolApproval("call_delete"))
    store.send(.answerInput(request.id, approved ? .approved : .denied(reason: "Keep it")))
    let done = try #require(
      await store.state(within: 30, where: { $0.messages.last?.reply == .completed && $0.isSettled }))
    let answer = try #require(done.messages.last)
    #expect(done.messages.count == 2, "the continuation streamed in the same row")
    if approved {
      #expect(answer.text == "The delete_files tool said: deleted a.txt")
      #expect(answer.toolCalls.first?.outcome == .succeeded("deleted a.txt"))
    } else {
      #expect(answer.text == "I did not run delete_files: Keep it")
      #expect(answer.toolCalls.first?.outcome == .denied(reason: "Keep it"), "the user's reason stands")
    }
  }

  @Test("a conversation goes on: the second request resends the first exchange, and the server answers it")
  func severalTurns() async throws {
    let backend = try AISDKBackend(endpoint: endpoint(6))
    let store = ChatStore.onAISDK(backend)
    defer { store.close() }
    store.sendMessage("weather in Berlin?")
    _ = try #require(await store.ended())
    store.sendMessage("hello again")
    let done = try #require(await store.ended(4))
    #expect(done.messages.map(\.reply) == [nil, .completed, nil, .completed])
    #expect(done.messages.last?.text == "Hello! How can I help?")
    #expect(
      AISDKChat(context: AgentContext(messages: Array(done.messages))).messages.map { $0.field("role") }
        == ["user", "assistant", "user", "assistant"])
  }
}
