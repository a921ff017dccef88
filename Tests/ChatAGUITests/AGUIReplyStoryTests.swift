import ChatAGUI
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Chat stories over AG-UI streams: a store whose agent answers with a fixed AG-UI body, read through the
/// real SSE decoder and `AGUIReplyMapper`.
@Suite("AG-UI replies in a store")
struct AGUIReplyStoryTests {
  static let started = #"{"type":"RUN_STARTED","threadId":"thread-1","runId":"{RUN}"}"#
  static let finished = #"{"type":"RUN_FINISHED","threadId":"thread-1","runId":"{RUN}"}"#

  static func store(_ bodies: [String], tools: [String: ConversationRuntime<ConversationReducer>.ToolHandler] = [:])
    -> (ChatStore, ReplayedAGUIBackend)
  {
    var policy = ChatPolicy()
    policy.toolResultDelivery = .nextRun
    let backend = ReplayedAGUIBackend(bodies, appTools: Set(tools.keys))
    return (ChatStore(policy: policy, backend: backend, tools: tools), backend)
  }

  static func ended(_ store: ChatStore, count: Int = 2) async throws -> ConversationState {
    try #require(
      await store.state(within: 60, where: { $0.streamingReply == nil && $0.messages.count == count && $0.isSettled }))
  }

  @Test("a text answer streams in a part keyed by its message ID and completes; the user's message is confirmed")
  func textAnswer() async throws {
    // Given an agent that answers in three deltas, after an empty message (Pydantic AI's parent of tool calls)
    let (store, _) = Self.store([
      sse([
        Self.started, #"{"type":"TEXT_MESSAGE_START","messageId":"empty","role":"assistant"}"#,
        #"{"type":"TEXT_MESSAGE_END","messageId":"empty"}"#, #"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#,
        #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hello"}"#,
        #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":""}"#,
        #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":", how can I help?"}"#,
        #"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#, Self.finished,
      ])
    ])
    defer { store.close() }
    // When the user writes
    let sent = store.sendMessage("Hi")
    // Then the answer is one text part, nothing shown for the empty message, and the question is sent
    let state = try await Self.ended(store)
    let answer = try #require(state.messages.last)
    #expect(answer.reply == .completed)
    #expect(answer.text == "Hello, how can I help?")
    #expect(answer.parts.map(\.id) == ["m1"])
    let question = try #require(state.messages.first)
    #expect(question.clientID == sent && question.delivery == .sent)
    #expect(question.serverID?.rawValue == sent.rawValue, "the AG-UI message ID is the client ID")
  }

  @Test("reasoning streams beside the text and keeps its encrypted value, which arrives after its end")
  func reasoning() async throws {
    let (store, backend) = Self.store([
      sse([
        Self.started, #"{"type":"REASONING_START","messageId":"span"}"#,
        #"{"type":"REASONING_MESSAGE_START","messageId":"r1","role":"reasoning"}"#,
        #"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#,
        #"{"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"The user greets; "}"#,
        #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi!"}"#,
        #"{"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"greet back."}"#,
        #"{"type":"REASONING_MESSAGE_END","messageId":"r1"}"#,
        #"{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"r1","encryptedValue":"opaque=="}"#,
        #"{"type":"REASONING_END","messageId":"span"}"#, #"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
        Self.finished,
      ])
    ])
    defer { store.close() }
    store.sendMessage("Hello")
    let answer = try #require(try await Self.ended(store).messages.last)
    #expect(answer.text == "Hi!")
    let reasoning = answer.parts.compactMap { part -> ReasoningPart? in
      if case .reasoning(let reasoning) = part.content { return reasoning }
      return nil
    }
    #expect(reasoning.map(\.text) == ["The user greets; greet back."])
    #expect(reasoning.first?.encryptedValue == "opaque==")
    // And the agent's next run gets the reasoning message back with its value, unchanged
    let kept = try #require(backend.threads.withLock { $0["thread-1"] }?.message("r1"))
    #expect(
      kept == [
        "id": "r1", "role": "reasoning", "content": "The user greets; greet back.", "encryptedValue": "opaque==",
      ])
  }

  @Test("a server tool streams its input, runs, and its result lands on the call")
  func serverTool() async throws {
    let (store, _) = Self.store([
      sse([
        Self.started, #"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"get_weather"}"#,
        #"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"city\":"}"#,
        #"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"\"Berlin\"}"}"#,
        #"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
        #"{"type":"TOOL_CALL_RESULT","messageId":"t1","toolCallId":"c1","content":"{\"forecast\":\"sunny\"}","role":"tool"}"#,
        #"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#,
        #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Sunny in Berlin."}"#,
        #"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#, Self.finished,
      ])
    ])
    defer { store.close() }
    store.sendMessage("Weather?")
    let answer = try #require(try await Self.ended(store).messages.last)
    #expect(answer.reply == .completed)
    #expect(
      answer.toolCalls == [
        ToolCall(
          id: "c1", name: "get_weather", input: ["city": "Berlin"], execution: .server,
          outcome: .succeeded(["forecast": "sunny"]))
      ])
    #expect(answer.parts.map(\.id) == ["c1", "m1"], "the call, then the text, in the order they streamed")
  }

  @Test("an app tool ends the run pending; the app runs it and the continuation run finishes the same answer")
  func appToolContinuation() async throws {
    // Given an agent that calls the app's pick_color tool, then answers with what it got
    let (store, backend) = Self.store(
      [
        sse([
          Self.started, #"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"pick_color"}"#,
          #"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}"#, #"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
          #"{"type":"RUN_FINISHED","threadId":"thread-1","runId":"{RUN}","outcome":{"type":"success","pendingToolCallIds":["c1"]}}"#,
        ]),
        sse([
          Self.started, #"{"type":"TEXT_MESSAGE_START","messageId":"m2"}"#,
          #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"Blue it is."}"#,
          #"{"type":"TEXT_MESSAGE_END","messageId":"m2"}"#, Self.finished,
        ]),
      ], tools: ["pick_color": { _ in "blue" }])
    defer { store.close() }
    // When the user asks
    store.sendMessage("Pick a color")
    // Then the app's tool ran, the agent got its result in a continuation, and the one answer completed
    let answer = try #require(try await Self.ended(store).messages.last)
    #expect(answer.reply == .completed)
    #expect(answer.text == "Blue it is.")
    #expect(answer.toolCalls.map(\.outcome) == [.succeeded("blue")])
    let continuation = try #require(backend.sent.withLock { $0.first })
    #expect(continuation.toolResults.map(\.outcome) == [.succeeded("blue")])
  }

  @Test("an interrupt asks the user; the reply waits for the answer")
  func interrupt() async throws {
    let (store, _) = Self.store([
      sse([
        Self.started, #"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"delete_files"}"#,
        #"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"paths\":[\"a\"]}"}"#,
        #"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
        #"{"type":"RUN_FINISHED","threadId":"thread-1","runId":"{RUN}","outcome":{"type":"interrupt","interrupts":[{"id":"int-c1","reason":"tool_call","message":"Approve delete_files?","toolCallId":"c1"},{"id":"q1","reason":"confirm","responseSchema":{"type":"object"}}]}}"#,
      ])
    ])
    defer { store.close() }
    store.sendMessage("Delete a")
    let answer = try #require(try await Self.ended(store).messages.last)
    guard case .awaitingInput(let requests) = answer.reply else {
      Issue.record("not waiting: \(String(describing: answer.reply))")
      return
    }
    #expect(requests.map(\.id) == ["int-c1", "q1"])
    #expect(requests.first?.kind == .toolApproval("c1"))
    #expect(requests.first?.message == "Approve delete_files?")
    guard case .question(let payload)? = requests.last?.kind else {
      Issue.record("the second request is not a question")
      return
    }
    #expect(payload["responseSchema"] == ["type": "object"], "the question carries the interrupt as sent")
    #expect(answer.toolCalls.map(\.outcome) == [.awaitingApproval])
  }

  @Test(
    "each way a run ends gives its outcome, and what streamed before stays",
    arguments: [
      (Self.finishedCancelled, ReplyState.cancelled),
      (
        #"{"type":"RUN_ERROR","message":"The model is overloaded.","code":"OVERLOADED"}"#,
        ReplyState.failed(ChatError("OVERLOADED", "The model is overloaded."))
      ),
      ("", ReplyState.truncated),
    ])
  func endings(last: String, expected: ReplyState) async throws {
    var events = [
      Self.started, #"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#,
      #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Half"}"#,
    ]
    if !last.isEmpty { events += [#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#, last] }
    let (store, _) = Self.store([sse(events)])
    defer { store.close() }
    store.sendMessage("Go")
    let answer = try #require(try await Self.ended(store).messages.last)
    #expect(answer.reply?.kind == expected.kind, "\(String(describing: answer.reply))")
    if case .failed(let error)? = answer.reply { #expect(error.code.rawValue == "OVERLOADED") }
    #expect(answer.text == "Half")
  }

  static let finishedCancelled =
    #"{"type":"RUN_FINISHED","threadId":"thread-1","runId":"{RUN}","outcome":{"type":"cancelled"}}"#

  @Test("a stream that breaks a rule is rejected with an error naming the rule; the text before it stays")
  func rejected() async throws {
    let (store, _) = Self.store([
      sse([
        Self.started, #"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#,
        #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Before"}"#,
        #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"ghost","delta":"x"}"#, Self.finished,
      ])
    ])
    defer { store.close() }
    store.sendMessage("Go")
    let answer = try #require(try await Self.ended(store).messages.last)
    guard case .rejected(let error)? = answer.reply else {
      Issue.record("not rejected: \(String(describing: answer.reply))")
      return
    }
    #expect(error.code == .invalidEvent)
    #expect(error.message.contains("not-open"), "\(error.message)")
    #expect(answer.text == "Before")
  }

  @Test("a replayed run ahead of the requested one only updates the thread; the requested run is the reply")
  func replayedRun() async throws {
    let (store, backend) = Self.store([
      sse([
        #"{"type":"RUN_STARTED","threadId":"thread-1","runId":"earlier"}"#,
        #"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"old-u","role":"user","content":"Earlier question"},{"id":"old-a","role":"assistant","content":"Earlier answer"}]}"#,
        #"{"type":"RUN_FINISHED","threadId":"thread-1","runId":"earlier"}"#, Self.started,
        #"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#,
        #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Now."}"#,
        #"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#, Self.finished,
      ])
    ])
    defer { store.close() }
    let sent = store.sendMessage("Go")
    let state = try await Self.ended(store, count: 4)
    let answer = try #require(state.messages.last)
    #expect(answer.text == "Now." && answer.reply == .completed)
    // The conversation shows the replayed thread before the question, which keeps its row
    #expect(state.messages.map(\.text) == ["Earlier question", "Earlier answer", "Go", "Now."])
    #expect(state.messages[2].clientID == sent)
    // The snapshot restated the thread before the question this client sent, which stays, after it
    let ids = backend.threads.withLock { $0["thread-1"] }?.messages.compactMap { $0["id"] }
    #expect(ids == ["old-u", "old-a", .string(sent.rawValue), "m1"])
  }

  @Test("state snapshots and deltas reach the agent state; a delta that does not apply keeps the state")
  func sharedState() async throws {
    let (store, backend) = Self.store([
      sse([
        Self.started, #"{"type":"STATE_SNAPSHOT","snapshot":{"count":1}}"#,
        #"{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/count","value":2},{"op":"merge","path":"/x","value":1}]}"#,
        #"{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/missing"}]}"#, Self.finished,
      ])
    ])
    defer { store.close() }
    store.sendMessage("Count")
    let state = try await Self.ended(store)
    #expect(state.agentState == ["count": 2])
    #expect(backend.threads.withLock { $0["thread-1"] }?.state == ["count": 2], "the next run sends it back")
  }

  @Test("a message reopened after its end continues in a part of its own")
  func reopened() async throws {
    let (store, _) = Self.store([
      sse([
        Self.started, #"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#,
        #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"One. "}"#,
        #"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
        #"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#,
        #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Two."}"#,
        #"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#, Self.finished,
      ])
    ])
    defer { store.close() }
    store.sendMessage("Go")
    let answer = try #require(try await Self.ended(store).messages.last)
    #expect(answer.text == "One. Two.")
    #expect(answer.parts.map(\.id) == ["m1", "m1~1"])
  }
}

extension ReplyState {
  /// The outcome without its payload, to compare kinds.
  var kind: String { String(describing: self).prefix { $0 != "(" }.description }
}
