import ConversationState
import Foundation
import Reducers
import Testing

@Suite("Replies in parts")
struct ReplyPartsTests {
  @Test("reasoning and text interleave, each in its own part; the answer keeps them in order, text joined")
  func reasoningAndTextInterleave() {
    // Given a reply that has started streaming
    let (chat, request) = StreamingTests.replying()

    // When reasoning and text stream at the same time, then a source is cited
    chat.send([
      .replyPartStarted(request, "think", .reasoning),
      .replyPartDelta(request, "think", "The user wants "),
      .replyPartStarted(request, "answer", .text),
      .replyPartDelta(request, "answer", "Your order "),
      .replyPartDelta(request, "think", "the order status."),
      .replyPartDelta(request, "answer", "has shipped."),
      .replyPartEnded(request, "think", encryptedValue: "opaque-blob"),
      .replyPartEnded(request, "answer"),
      .replyPartAdded(
        request,
        MessagePart(
          id: "src-1", .source(KnowledgeSource(id: "kb-7", title: "Shipping", origin: .knowledgeBase)))),
    ])

    // Then while streaming, each part has its own text and the reply's text is the answer only
    let reply = chat.state.streamingReply
    #expect(reply?.parts.map(\.text.string) == ["The user wants the order status.", "Your order has shipped.", ""])
    #expect(reply?.text.string == "Your order has shipped.")
    #expect(reply?.parts.allSatisfy { !$0.isOpen } == true)

    // And when it finishes with a server message that has no parts, the reply's parts are kept
    chat.send(.replyFinished(request, message: .server("", id: "s2", at: 3)))
    let answer = chat.state.messages[serverID: "s2"]
    #expect(answer?.text == "Your order has shipped.")
    #expect(
      answer?.parts == [
        MessagePart(
          id: "think",
          .reasoning(ReasoningPart(text: "The user wants the order status.", encryptedValue: "opaque-blob"))),
        MessagePart(id: "answer", .text("Your order has shipped.")),
        MessagePart(
          id: "src-1", .source(KnowledgeSource(id: "kb-7", title: "Shipping", origin: .knowledgeBase))),
      ])
    #expect(answer?.sources.map(\.id) == ["kb-7"])
  }

  @Test("text, then a tool call, then more text: three parts in that order, text joined without the call")
  func textAroundToolCall() {
    let (chat, request) = StreamingTests.replying()

    chat.send([
      .replyPartStarted(request, "t1", .text),
      .replyPartDelta(request, "t1", "Let me check. "),
      .replyPartEnded(request, "t1"),
      .toolCallStarted(request, ToolCall(id: "call-1", name: "lookupOrder", execution: .server)),
      .toolCallFinished(request, "call-1", .succeeded(["status": "shipped"])),
      // Plain text after the call (a server that names no part): it starts a text part of its own
      .replyDelta(request, "It shipped."),
      .replyEnded(request),
    ])

    let answer = chat.state.messages.last
    #expect(answer?.parts.map(\.id) == ["t1", "call-1", "text-2"])
    #expect(answer?.parts[1].content == .toolCall("call-1"))
    #expect(answer?.text == "Let me check. It shipped.")
    #expect(answer?.toolCalls.map(\.name) == ["lookupOrder"])
    // The stream ended without a finish: truncated, every part kept
    #expect(answer?.reply == .truncated)
  }

  @Test("a data part with an ID the reply has replaces it in place; other parts keep their places")
  func dataPartReplacedInPlace() {
    let (chat, request) = StreamingTests.replying()
    let loading = DataPart(kind: "weather", value: ["status": "loading"])
    let ready = DataPart(kind: "weather", value: ["status": "ready", "celsius": 21])

    chat.send([
      .replyPartAdded(request, MessagePart(id: "w", .data(loading))),
      .replyPartAdded(request, MessagePart(id: "t", .text("Sunny."))),
      .replyPartAdded(request, MessagePart(id: "w", .data(ready))),
    ])

    #expect(chat.state.streamingReply?.parts.map(\.id) == ["w", "t"])
    #expect(chat.state.streamingReply?.parts.first?.kind == .data(ready))
    #expect(chat.state.streamingReply?.text.string == "Sunny.")
    #expect(chat.state.backgroundError == nil)
  }

  /// Part events that break the stream's rules, and why each is refused.
  static let brokenEvents: [(name: String, event: @Sendable (RequestID) -> ConversationAction)] = [
    ("a delta for a part never started", { .replyPartDelta($0, "ghost", "boo") }),
    ("a delta for a part that ended", { .replyPartDelta($0, "done", "late") }),
    ("a second start of a part", { .replyPartStarted($0, "done", .text) }),
    ("an end of a part that ended", { .replyPartEnded($0, "done") }),
    ("a whole part with an ID in use", { .replyPartAdded($0, MessagePart(id: "done", .text("again"))) }),
    ("a tool call as a whole part", { .replyPartAdded($0, MessagePart(id: "x", .toolCall("x"))) }),
    ("a part with a tool call's ID", { .replyPartStarted($0, "call-1", .text) }),
    ("a whole part with a tool call's ID", { .replyPartAdded($0, MessagePart(id: "call-1", .text("x"))) }),
  ]

  @Test(
    "an event that breaks the part rules is refused with INVALID_EVENT and changes no part", arguments: brokenEvents)
  func brokenPartEvents(_ name: String, _ event: @Sendable (RequestID) -> ConversationAction) {
    // Given a reply with one finished text part
    let (chat, request) = StreamingTests.replying()
    chat.send([
      .replyPartStarted(request, "done", .text), .replyPartDelta(request, "done", "Hello."),
      .replyPartEnded(request, "done"),
      .toolCallStarted(request, ToolCall(id: "call-1", name: "search", execution: .server)),
    ])
    let before = chat.state.streamingReply

    // When the server sends the broken event
    chat.send(event(request))

    // Then it is refused, typed, and the reply is as it was
    #expect(chat.state.backgroundError?.code == .invalidEvent, "\(name)")
    #expect(chat.state.streamingReply == before, "\(name)")
  }

  @Test("reasoning counts toward the reply's size bound: past it the reply ends REPLY_TOO_LARGE, parts kept")
  func reasoningIsBounded() {
    let chat = Chat(.existing([]), policy: ChatPolicy(maximumReplyBytes: 10))
    let request = chat.userSends("Question", id: "c1")
    chat.send([
      .replyStarted(request, agent: nil, at: time(2)), .replyPartStarted(request, "r", .reasoning),
      .replyPartDelta(request, "r", "123456"), .replyPartStarted(request, "t", .text),
      .replyPartDelta(request, "t", "abcd"),
    ])

    let effects = chat.send(.replyPartDelta(request, "r", "7"))

    #expect(effects.contains(.cancel(request)))
    let answer = chat.state.messages.last
    #expect(answer?.reply?.error?.code == .replyTooLarge)
    #expect(answer?.parts.map(\.id) == ["r", "t"])
    #expect(answer?.text == "abcd")
  }

  @Test("the number of parts is bounded: the next one ends the reply REPLY_TOO_LARGE")
  func partCountIsBounded() {
    let chat = Chat(.existing([]), policy: ChatPolicy(maximumPartsPerReply: 2))
    let request = chat.userSends("Question", id: "c1")
    chat.send([
      .replyStarted(request, agent: nil, at: time(2)),
      .replyPartAdded(request, MessagePart(id: "a", .text("A"))),
      .replyPartAdded(request, MessagePart(id: "b", .text("B"))),
    ])

    chat.send(.replyPartAdded(request, MessagePart(id: "c", .text("C"))))

    #expect(chat.state.streamingReply == nil)
    #expect(chat.state.messages.last?.parts.map(\.id) == ["a", "b"])
    #expect(chat.state.backgroundError?.code == .replyTooLarge)
  }

  @Test("parts for a request that streams nothing are stale and ignored")
  func staleParts() {
    let (chat, request) = StreamingTests.replying()
    chat.send(.replyFinished(request, message: .server("Done.", id: "s2", at: 3)))
    let before = chat.state

    chat.send([
      .replyPartStarted(request, "late", .text), .replyPartDelta(request, "late", "x"),
      .replyPartAdded(request, MessagePart(id: "late2", .text("y"))),
    ])

    #expect(chat.state == before)
  }

  @Test("a server message with a repeated part ID or a part for a call it lacks is made sound on arrival")
  func serverPartsMadeSound() {
    let chat = Chat.existing()
    var message = Message.server("", id: "s9", at: 5)
    message.parts = [
      MessagePart(id: "p", .text("Hello ")), MessagePart(id: "p", .text("again")),
      MessagePart(id: "q", .toolCall("missing")), MessagePart(id: "r", .text("world")),
    ]

    chat.send(.realtime("conv-1", .messageCreated(message)))

    let stored = chat.state.messages[serverID: "s9"]
    #expect(stored?.parts.map(\.id) == ["p", "r"])
    #expect(stored?.text == "Hello world")
  }

  @Test("a reply's first part gives what streamed before it parts of its own: its text, then its tool calls")
  func earlierStreamGetsParts() {
    let (chat, request) = StreamingTests.replying()
    chat.send([
      .replyDelta(request, "Checking. "),
      .toolCallStarted(request, ToolCall(id: "call-1", name: "lookupOrder", execution: .server)),
    ])

    chat.send([.replyPartStarted(request, "r", .reasoning), .replyPartDelta(request, "r", "Now think.")])

    #expect(chat.state.streamingReply?.parts.map(\.id) == ["text-0", "call-1", "r"])
    #expect(chat.state.streamingReply?.parts.first?.text.string == "Checking. ")
  }

  @Test("a finish without text (a protocol that sends no copy) keeps the text that streamed")
  func emptyFinishKeepsStreamedText() {
    let (chat, request) = StreamingTests.replying()
    chat.send(.replyDelta(request, "Streamed answer."))

    chat.send(.replyFinished(request, message: .server("", id: "s2", at: 3)))

    #expect(chat.state.messages[serverID: "s2"]?.text == "Streamed answer.")
  }

  @Test("a tool call that comes first starts its send's reply, and its result lands")
  func toolCallFirst() {
    let chat = Chat.existing()
    let request = chat.userSends("Question", id: "c1")

    chat.send([
      .toolCallStarted(request, ToolCall(id: "call-1", name: "search", execution: .server)),
      .toolCallFinished(request, "call-1", .succeeded("found")),
    ])

    #expect(chat.state.streamingReply?.toolCalls.map(\.outcome) == [.succeeded("found")])
    #expect(chat.state.backgroundError == nil)
  }

  @Test("a part started without a reply start starts the send's reply, like a first delta does")
  func partStartsTheReply() {
    let chat = Chat.existing()
    let request = chat.userSends("Question", id: "c1")

    chat.send([.replyPartStarted(request, "r", .reasoning), .replyPartDelta(request, "r", "Hmm.")])

    #expect(chat.state.streamingReply?.requestID == request)
    #expect(chat.state.streamingReply?.parts.first?.text.string == "Hmm.")
  }

  @Test("a step the agent streams again drops its parts, its calls and its app tool; the text is what stays")
  func stepReset() {
    // Given a reply with a first step kept, then a step that streamed text and started an app tool
    let (chat, request) = StreamingTests.replying()
    chat.send([
      .replyPartStarted(request, "kept", .text), .replyPartDelta(request, "kept", "Looking. "),
      .replyPartEnded(request, "kept"),
      .replyPartStarted(request, "tried", .text), .replyPartDelta(request, "tried", "First try"),
      .toolCallStarted(request, ToolCall(id: "call-1", name: "pick_color", input: [:], execution: .client)),
    ])
    let tool = chat.state.requests.first { if case .tool = $0.value { true } else { false } }?.key

    // When the agent resets that step
    let effects = chat.send(.replyStepReset(request, parts: ["tried"], toolCalls: ["call-1"]))

    // Then the step's part and call are gone, its app tool is cancelled, and the text is the kept part's
    let reply = chat.state.streamingReply
    #expect(reply?.parts.map(\.id) == ["kept"])
    #expect(reply?.toolCalls.isEmpty == true)
    #expect(reply?.text.string == "Looking. ")
    #expect(tool.map { effects.contains(.cancel($0)) } == true)

    // And the step streamed again lands after what was kept
    chat.send([
      .replyPartStarted(request, "again", .text), .replyPartDelta(request, "again", "Found it."),
      .replyPartEnded(request, "again"),
      .replyFinished(request, message: .server("", id: "s2", at: 3)),
    ])
    #expect(chat.state.messages[serverID: "s2"]?.text == "Looking. Found it.")
  }

  @Test("a reset naming parts and calls the reply does not have changes nothing")
  func stepResetOfNothing() {
    let (chat, request) = StreamingTests.replying()
    chat.send([.replyPartStarted(request, "a", .text), .replyPartDelta(request, "a", "Hi")])
    let before = chat.state
    chat.send(.replyStepReset(request, parts: ["ghost"], toolCalls: ["nope"]))
    #expect(chat.state == before)
  }
}
