import ChatAGUI
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// `AGUIBackend` against a server written on ag-ui-protocol's own event models and encoder, over a real
/// socket: what it sends, and every way a response can go.
@Suite(
  "AG-UI backend against ag-ui-protocol's encoder", .enabled(if: AGUIProducers.isInstalled, AGUIProducers.skipReason),
  .hangGuard)
struct AGUIScriptedServerTests {
  @Test("a run posts the complete history, the app's tools and protocol 1.0, and streams the answer")
  func runInput() async throws {
    // Given an agent that answers in three deltas, and an app with one tool
    let server = try await ScriptedAGUIServer.shared()
    let backend = try AGUIBackend(
      endpoint: server.endpoint("text"),
      tools: [AGUITool(name: "pick_color", description: "Ask the user for a color")],
      context: [(description: "locale", value: "en-GB")], token: { "secret" })
    let store = ChatStore.onAGUI(backend)
    defer { store.close() }

    // When the user asks twice
    let first = store.sendMessage("Hello?")
    let answered = try #require(await store.answered())
    let second = store.sendMessage("And again?")
    let done = try #require(await store.answered(4))

    // Then each answer streamed, and each run carried everything before it
    #expect(answered.messages.last?.text == "Hello, from the scripted agent.")
    #expect(done.messages.last?.reply == .completed)
    // The server is shared with the other tests: this conversation's requests are the ones for its thread.
    let requests = try await server.requests().filter {
      ($0["body"] as? [String: Any])?["threadId"] as? String == done.conversationID?.rawValue
    }
    #expect(requests.count == 2)
    let body = try #require(requests.last?["body"] as? [String: Any])
    #expect(body["protocolVersion"] as? String == "1.0")
    #expect(body["threadId"] as? String == done.conversationID?.rawValue)
    #expect(body["runId"] as? String != (requests.first?["body"] as? [String: Any])?["runId"] as? String)
    let messages = try #require(body["messages"] as? [[String: Any]])
    #expect(messages.map { $0["role"] as? String } == ["user", "assistant", "user"])
    // The answer goes back under the store's ID for it: this producer answers every run as "m1"
    let answer = try #require(answered.messages.last)
    let answerID = answer.serverID?.rawValue ?? answer.clientID.rawValue
    #expect(messages.map { $0["id"] as? String } == [first.rawValue, answerID, second.rawValue])
    #expect(messages[1]["content"] as? String == "Hello, from the scripted agent.")
    #expect((body["tools"] as? [[String: Any]])?.first?["name"] as? String == "pick_color")
    #expect((body["context"] as? [[String: Any]])?.first?["value"] as? String == "en-GB")
    #expect(requests.last?["accept"] as? String == "text/event-stream")
    #expect(requests.last?["authorization"] as? String == "Bearer secret")
  }

  @Test("writing again instead of answering cancels the open interrupt in the next run's resume")
  func interruptAbandoned() async throws {
    // Given an agent that stopped to ask
    let server = try await ScriptedAGUIServer.shared()
    let store = ChatStore.onAGUI(try AGUIBackend(endpoint: server.endpoint("by-message")))
    defer { store.close() }
    store.sendMessage("interrupt")
    let waiting = try #require(
      await store.state(within: 60, where: { $0.messages.last?.reply?.isAwaiting == true && $0.isSettled }))
    let thread = try #require(waiting.conversationID?.rawValue)

    // When the user writes something else
    store.sendMessage("text")
    let done = try #require(await store.answered(4))

    // Then the question was cancelled here and there: the next run says so for every interrupt
    #expect(done.messages[1].reply == .cancelled)
    #expect(done.messages.last?.reply == .completed)
    let bodies = try await server.requests().compactMap { $0["body"] as? [String: Any] }
      .filter { $0["threadId"] as? String == thread }
    #expect(bodies.count == 2)
    let resume = try #require(bodies.last?["resume"] as? [[String: Any]])
    #expect(resume.map { $0["interruptId"] as? String } == ["int-1"])
    #expect(resume.map { $0["status"] as? String } == ["cancelled"])
    #expect(bodies.last?["parentRunId"] as? String == bodies.first?["runId"] as? String)
  }

  @Test("writing again before the app's tool answered sends a tool message for it: every pending call is answered")
  func pendingCallAbandoned() async throws {
    // Given an agent that called the app's tool, whose handler takes its time
    let server = try await ScriptedAGUIServer.shared()
    let backend = try AGUIBackend(
      endpoint: server.endpoint("by-message"), tools: [AGUITool(name: "pick_color", description: "A color")])
    let store = ChatStore.onAGUI(
      backend,
      tools: [
        "pick_color": { _ in
          try await Task.sleep(for: .seconds(120))
          return "late"
        }
      ])
    defer { store.close() }
    store.sendMessage("pending-tool")
    let waiting = try #require(
      await store.state(within: 60, where: { $0.messages.last?.reply?.isAwaiting == true && $0.streamingReply == nil }))
    let thread = try #require(waiting.conversationID?.rawValue)

    // When the user writes something else
    store.sendMessage("text")
    _ = try #require(await store.answered(4))

    // Then the next run's history answers the call the first one left pending
    let bodies = try await server.requests().compactMap { $0["body"] as? [String: Any] }
      .filter { $0["threadId"] as? String == thread }
    let messages = try #require(bodies.last?["messages"] as? [[String: Any]])
    let answer = try #require(messages.first { $0["role"] as? String == "tool" })
    #expect(answer["toolCallId"] as? String == "call-1")
    #expect(answer["error"] != nil)
    let roles = messages.map { $0["role"] as? String }
    #expect(roles == ["user", "assistant", "tool", "user"], "the call, its answer, then the new message")
  }

  struct Ending: CustomTestStringConvertible, Sendable {
    var scenario: String
    var outcome: String
    var code: String?
    var text: String
    var testDescription: String { "\(scenario) → \(outcome)" }
  }

  @Test(
    "each way a response ends gives the answer its outcome, and what streamed stays",
    arguments: [
      Ending(scenario: "error-first", outcome: "failed", code: "AGENT_UNAVAILABLE", text: ""),
      Ending(scenario: "error-mid", outcome: "failed", code: "MODEL_ERROR", text: "Half an answer"),
      Ending(scenario: "truncated", outcome: "truncated", code: nil, text: "Cut off in the mid"),
      Ending(scenario: "cancelled", outcome: "cancelled", code: nil, text: "Stopping here."),
      Ending(scenario: "violation", outcome: "rejected", code: "INVALID_EVENT", text: "Fine so far."),
      Ending(scenario: "reject", outcome: "failed", code: "INVALID_INPUT", text: ""),
      Ending(scenario: "not-sse", outcome: "failed", code: "INVALID_RESPONSE", text: ""),
    ])
  func endings(_ ending: Ending) async throws {
    let server = try await ScriptedAGUIServer.shared()
    let store = ChatStore.onAGUI(try AGUIBackend(endpoint: server.endpoint(ending.scenario)))
    defer { store.close() }
    store.sendMessage("Go")
    let state = try #require(
      await store.state(
        within: 30,
        where: { state in
          guard state.streamingReply == nil, state.isSettled, let last = state.messages.last else { return false }
          if case .failed = last.delivery { return true }
          return last.reply != nil
        }))
    let last = try #require(state.messages.last)
    if case .failed(let error) = last.delivery {
      // Refused before any answer: the user's message failed with the error, and can be retried.
      #expect(ending.text.isEmpty && last.role == .user)
      #expect(error.code.rawValue == ending.code)
      return
    }
    #expect(last.reply?.kind == ending.outcome, "\(String(describing: last.reply))")
    #expect(last.reply?.error?.code.rawValue == ending.code)
    #expect(last.text == ending.text)
  }

  @Test("the chunk forms stream like the start/end forms: the text, then the call with its arguments")
  func chunks() async throws {
    let server = try await ScriptedAGUIServer.shared()
    let store = ChatStore.onAGUI(try AGUIBackend(endpoint: server.endpoint("chunks")))
    defer { store.close() }
    store.sendMessage("Order 42?")
    let answer = try #require(await store.answered()?.messages.last)
    #expect(answer.text == "Chunked text, then a call.")
    #expect(answer.toolCalls.map(\.name) == ["lookup_order"])
    #expect(answer.toolCalls.first?.input == ["id": 42])
  }

  @Test(
    "a reopened message, a replayed run, state deltas and encrypted reasoning, over the wire",
    arguments: ["reopened", "two-runs", "state", "reasoning"])
  func streamShapes(scenario: String) async throws {
    let server = try await ScriptedAGUIServer.shared()
    let store = ChatStore.onAGUI(try AGUIBackend(endpoint: server.endpoint(scenario)))
    defer { store.close() }
    store.sendMessage("Go")
    // The replayed run restates two earlier messages, which the conversation then shows before the question.
    let state = try #require(await store.answered(scenario == "two-runs" ? 4 : 2), "\(scenario) never finished")
    #expect(state.messages.last?.reply == .completed)
    switch scenario {
    case "reopened": #expect(state.messages.last?.text == "First. Then more.")
    case "two-runs":
      #expect(
        state.messages.map(\.text) == ["An earlier question", "An earlier answer", "Go", "The answer to this run."])
    case "state": #expect(state.agentState == ["count": 2, "items": []])
    default:
      let reasoning = state.messages.last?.parts.compactMap { part -> ReasoningPart? in
        if case .reasoning(let reasoning) = part.content { return reasoning }
        return nil
      }
      #expect(reasoning?.first?.text == "Weighing the options.")
      #expect(reasoning?.first?.encryptedValue == "c2VjcmV0")
    }
  }

  @Test("stopping a reply aborts its request: the answer is cancelled and the server sees the connection close")
  func stop() async throws {
    let server = try await ScriptedAGUIServer.shared()
    let store = ChatStore.onAGUI(try AGUIBackend(endpoint: server.endpoint("slow")))
    defer { store.close() }
    store.sendMessage("Take your time")
    let streaming = try #require(await store.state(within: 30, where: { !($0.streamingReply?.text.isEmpty ?? true) }))
    let thread = try #require(streaming.conversationID?.rawValue)

    store.send(.stopReply)

    let stopped = try #require(await store.answered())
    #expect(stopped.messages.last?.reply == .cancelled)
    var closed = false
    for _ in 0..<50 where !closed {
      closed =
        try await server.requests().first {
          ($0["body"] as? [String: Any])?["threadId"] as? String == thread
        }?["closed"] as? Bool == true
      if !closed { try await Task.sleep(for: .milliseconds(100)) }
    }
    #expect(closed, "the server went on writing to a connection the client had stopped")
  }
}

@Suite("AG-UI producers in CI")
struct AGUIProducersRequiredTests {
  @Test("where the producers are required (AGENT_PRODUCERS_REQUIRED=1), their environment is there")
  func installed() {
    guard AGUIProducers.isRequired else { return }
    #expect(AGUIProducers.isInstalled, "\(AGUIProducers.python) is missing: \(AGUIProducers.skipReason)")
  }
}
