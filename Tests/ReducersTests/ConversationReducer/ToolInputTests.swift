import ConversationState
import Foundation
import Reducers
import Testing

@Suite("Tool calls whose input streams")
struct ToolInputTests {
  @Test("an app tool's input streams as JSON text, then the complete call runs the app's tool")
  func clientToolInputStreamsThenRuns() {
    // Given a reply that said something first
    let (chat, request) = StreamingTests.replying()
    chat.send(.replyDelta(request, "Let me check. "))

    // When the agent writes a call to the app's tool, its arguments arriving in pieces
    chat.send([
      .toolInputStarted(request, "call-1", name: "lookupOrder", execution: .client),
      .toolInputDelta(request, "call-1", #"{"order""#), .toolInputDelta(request, "call-1", #": "42"}"#),
    ])

    // Then the call shows its input streaming, raw, in its part; nothing runs yet
    let reply = chat.state.streamingReply
    #expect(reply?.toolCalls.map(\.outcome) == [.inputStreaming])
    #expect(reply?.parts.map(\.id) == ["text-0", "call-1"], "the text before the call is a part ahead of it")
    #expect(reply?.parts.last?.text.string == #"{"order": "42"}"#)
    #expect(reply?.parts.last?.isOpen == true)
    #expect(chat.state.agentActivity == .runningTool("lookupOrder"))
    #expect(!chat.state.requests.values.contains { if case .tool = $0 { true } else { false } })

    // When the call is complete, with its parsed input
    let call = ToolCall(id: "call-1", name: "lookupOrder", input: ["order": "42"], execution: .client)
    let effects = chat.send(.toolCallStarted(request, call))

    // Then the app's tool runs with that input, and the part closes keeping the raw input
    #expect(effects.count == 1)
    guard case .runTool(_, let ran, _) = effects.first else {
      Issue.record("expected runTool, got \(effects)")
      return
    }
    #expect(ran.input == ["order": "42"])
    #expect(ran.outcome == .running)
    #expect(chat.state.streamingReply?.parts.last?.isOpen == false)
    #expect(chat.state.streamingReply?.parts.last?.text.string == #"{"order": "42"}"#)
  }

  @Test("a reply that ends while a call's input streams commits the call failed, its part closed")
  func cutOffInputFails() {
    let (chat, request) = StreamingTests.replying()
    chat.send([
      .toolInputStarted(request, "call-1", name: "search", execution: .server),
      .toolInputDelta(request, "call-1", #"{"q": "ref"#),
    ])

    chat.send(.replyEnded(request))

    let answer = chat.state.messages.last
    #expect(answer?.toolCalls.first?.outcome.errorCode == .incompleteStream)
    #expect(answer?.parts.map(\.content) == [.toolCall("call-1")])
  }

  static let brokenInput: [(name: String, event: @Sendable (RequestID) -> ConversationAction)] = [
    ("input for a call never started", { .toolInputDelta($0, "ghost", "{}") }),
    ("input for a call already complete", { .toolInputDelta($0, "done", "{}") }),
    ("a second start of a call", { .toolInputStarted($0, "done", name: "x", execution: .server) }),
    ("a result before the input is complete", { .toolCallFinished($0, "open", .succeeded("early")) }),
  ]

  @Test("input that breaks the rules is refused with INVALID_EVENT and changes nothing", arguments: brokenInput)
  func brokenInputIsRefused(_ name: String, _ event: @Sendable (RequestID) -> ConversationAction) {
    let (chat, request) = StreamingTests.replying()
    chat.send([
      .toolInputStarted(request, "done", name: "search", execution: .server),
      .toolCallStarted(request, ToolCall(id: "done", name: "search", execution: .server)),
      .toolInputStarted(request, "open", name: "search", execution: .server),
    ])
    let before = chat.state.streamingReply

    chat.send(event(request))

    #expect(chat.state.backgroundError?.code == .invalidEvent, "\(name)")
    #expect(chat.state.streamingReply == before, "\(name)")
  }

  @Test("streamed input counts toward the reply's size bound")
  func inputIsBounded() {
    let chat = Chat(.existing([]), policy: ChatPolicy(maximumReplyBytes: 8))
    let request = chat.userSends("Question", id: "c1")
    chat.send([
      .replyStarted(request, agent: nil, at: time(2)),
      .toolInputStarted(request, "c", name: "search", execution: .server), .toolInputDelta(request, "c", "12345678"),
    ])

    let effects = chat.send(.toolInputDelta(request, "c", "9"))

    #expect(effects.contains(.cancel(request)))
    #expect(chat.state.messages.last?.toolCalls.first?.outcome.errorCode == .incompleteStream)
    #expect(chat.state.backgroundError?.code == .replyTooLarge)
  }

  @Test("a server message with a call still streaming its input lands with that call failed")
  func serverCopyIsSettled() {
    let chat = Chat.existing()
    var message = Message.server("Hm", id: "s9", at: 5)
    message.toolCalls = [ToolCall(id: "c", name: "search", execution: .server, outcome: .inputStreaming)]

    chat.send(.realtime("conv-1", .messageCreated(message)))

    #expect(chat.state.messages[serverID: "s9"]?.toolCalls.first?.outcome.errorCode == .incompleteStream)
  }
}

extension ToolCall.Outcome {
  /// The error code of a failed call; nil otherwise.
  var errorCode: ChatError.Code? {
    if case .failed(let error) = self { return error.code }
    return nil
  }
}
