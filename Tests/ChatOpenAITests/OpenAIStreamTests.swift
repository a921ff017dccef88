import ChatHTTP
import ChatOpenAI
import ConversationState
import ConversationStore
import Foundation
import ServerSentEvents
import Testing

/// One stream of either API read through the real SSE decoder and its mapper: what the store is told, how
/// the reply ends, and the transcript the next request sends.
struct MappedOpenAIStream {
  var events: [ReplyEvent] = []
  var error: ChatError?
  var transcript = OpenAITranscript()

  init(chat frames: [String], user: Message? = nil, dropped: Bool = false) {
    let mapper = ChatCompletionsMapper(
      key: "k1", conversationID: "c", transcript: OpenAITranscript(), userMessage: user,
      receivedAt: Date(timeIntervalSince1970: 1_000))
    run(frames.map { "data: \($0)\n\n" }.joined(), dropped: dropped, mapper)
  }

  init(responses frames: [(String, String)], dropped: Bool = false) {
    let mapper = ResponsesMapper(
      key: "k1", conversationID: "c", transcript: OpenAITranscript(), receivedAt: Date(timeIntervalSince1970: 1_000))
    run(frames.map { "event: \($0.0)\ndata: \($0.1)\n\n" }.joined(), dropped: dropped, mapper)
  }

  private mutating func run<Mapper: StreamMapping>(_ body: String, dropped: Bool, _ mapper: Mapper) {
    var mapper = mapper
    var decoder = ServerSentEventDecoder()
    do throws(ChatError) {
      for case .event(let event) in (try? decoder.feed(Array(body.utf8))) ?? [] { try mapper.map(event, into: &events) }
      if dropped {
        error = mapper.failure(ofTransport: ChatError(.network, "connection reset"))
      } else {
        events += try mapper.finish()
      }
    } catch {
      self.error = error
    }
    transcript = mapper.transcript
  }

  var text: String {
    events.reduce(into: "") { text, event in
      if case .partDelta(let part, let delta) = event, !part.rawValue.hasPrefix("reasoning") { text += delta }
    }
  }

  var finished: Message? {
    if case .finished(let message, _)? = events.last { return message }
    return nil
  }
}

/// Either API's mapper, as the tests drive it.
protocol StreamMapping {
  var transcript: OpenAITranscript { get }
  mutating func map(_ event: ServerSentEvent, into events: inout [ReplyEvent]) throws(ChatError)
  mutating func finish() throws(ChatError) -> [ReplyEvent]
  mutating func failure(ofTransport error: ChatError) -> ChatError
}

extension ChatCompletionsMapper: StreamMapping {}
extension ResponsesMapper: StreamMapping {}

/// Chat Completions chunks as OpenAI writes them.
enum Chunk {
  static func content(_ text: String) -> String {
    #"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":\#(json(text))},"finish_reason":null}]}"#
  }
  static let role =
    #"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#
  static func finish(_ reason: String) -> String {
    #"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"\#(reason)"}]}"#
  }
  static let usage =
    #"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17,"completion_tokens_details":{"reasoning_tokens":2}}}"#
  static func json(_ text: String) -> String {
    String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
  }
}

@Suite("Chat Completions streams")
struct ChatCompletionsStreamTests {
  @Test("a text answer streams in one part, finishes with its reason and usage, and goes into the transcript")
  func text() throws {
    let user = Message(clientID: "u1", role: .user, text: "Hi", createdAt: .distantPast)
    let stream = MappedOpenAIStream(
      chat: [
        Chunk.role, Chunk.content("Hello"), Chunk.content(", world"), Chunk.finish("stop"), Chunk.usage, "[DONE]",
      ],
      user: user)
    #expect(stream.error == nil)
    guard case .accepted(let accepted, _)? = stream.events.first else {
      Issue.record("not accepted first")
      return
    }
    #expect(accepted.serverID == "u1")
    #expect(stream.events.dropFirst().first == .started(agent: nil, replyID: "chatcmpl-1"))
    #expect(stream.text == "Hello, world")
    let finished = try #require(stream.finished)
    #expect(finished.finishReason == .stop && finished.serverID == "chatcmpl-1")
    #expect(finished.usage == Usage(inputTokens: 12, outputTokens: 5, reasoningTokens: 2))
    #expect(stream.transcript.items == [["role": "assistant", "content": "Hello, world"]])
  }

  @Test(
    "how a stream ends decides the outcome: a finish_reason and [DONE] complete it, anything less truncates it",
    arguments: [
      (["text", "finish", "done"], nil as ChatError.Code?),
      (["text", "finish", "usage", "done"], nil),
      (["text"], .incompleteStream),
      (["text", "finish"], .incompleteStream),
      (["text", "done"], .incompleteStream),
      ([], .incompleteStream),
      (["text", "error"], .providerError),
      (["text", "garbage"], .invalidEvent),
      (["text", "finish", "done", "text"], .invalidEvent),
    ])
  func endings(_ shape: [String], _ expected: ChatError.Code?) {
    let frames: [String: String] = [
      "text": Chunk.content("x"), "finish": Chunk.finish("stop"), "usage": Chunk.usage, "done": "[DONE]",
      "error": #"{"error":{"message":"The server had an error","type":"server_error","code":null}}"#,
      "garbage": #"{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"unterminated"#,
    ]
    let stream = MappedOpenAIStream(chat: shape.map { frames[$0]! })
    #expect(stream.error?.code == expected)
    if expected == nil { #expect(stream.finished != nil) }
    if expected == .providerError { #expect(stream.error?.message.contains("The server had an error") == true) }
  }

  @Test(
    "each finish reason is kept as OpenAI says it",
    arguments: [
      ("stop", FinishReason.stop), ("length", .length), ("tool_calls", .toolCalls), ("content_filter", .contentFilter),
    ])
  func finishReasons(_ given: String, _ expected: FinishReason) {
    let stream = MappedOpenAIStream(chat: [Chunk.content("x"), Chunk.finish(given), "[DONE]"])
    #expect(stream.finished?.finishReason == expected)
  }

  @Test("a dropped connection truncates the answer; what streamed stays, in the stream and in the transcript")
  func dropped() {
    let stream = MappedOpenAIStream(chat: [Chunk.role, Chunk.content("Hel")], dropped: true)
    #expect(stream.error?.code == .incompleteStream)
    #expect(stream.text == "Hel")
    #expect(stream.transcript.items == [["role": "assistant", "content": "Hel"]])
  }

  @Test("tool calls stream their arguments by index and are app-run calls at the finish; bad arguments fail the call")
  func toolCalls() throws {
    let call = { (body: String) in
      #"{"id":"chatcmpl-2","choices":[{"index":0,"delta":{"tool_calls":[\#(body)]},"finish_reason":null}]}"#
    }
    let stream = MappedOpenAIStream(chat: [
      call(#"{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}"#),
      call(#"{"index":0,"function":{"arguments":"{\"city\":"}}"#),
      call(#"{"index":1,"id":"call_b","type":"function","function":{"name":"pick_color","arguments":"{nope"}}"#),
      call(#"{"index":0,"function":{"arguments":"\"Berlin\"}"}}"#), Chunk.finish("tool_calls"), "[DONE]",
    ])
    #expect(stream.error == nil)
    #expect(stream.events.contains(.toolInputStarted("call_a", name: "get_weather", execution: .client)))
    #expect(stream.events.contains(.toolInputDelta("call_a", #"{"city":"#)))
    #expect(
      stream.events.contains(
        .toolCall(ToolCall(id: "call_a", name: "get_weather", input: ["city": "Berlin"], execution: .client))))
    #expect(
      stream.events.contains {
        if case .toolResult("call_b", .failed(let error)) = $0 { error.code == .toolFailed } else { false }
      })
    #expect(stream.finished?.finishReason == .toolCalls)
    let message = try #require(stream.transcript.items.first)
    #expect(message.field("content") == .null)
    #expect(
      message.field("tool_calls")
        == [
          [
            "id": "call_a", "type": "function",
            "function": ["name": "get_weather", "arguments": #"{"city":"Berlin"}"#],
          ],
          ["id": "call_b", "type": "function", "function": ["name": "pick_color", "arguments": "{nope"]],
        ])
  }

  @Test("a first tool-call fragment without its id or name is INVALID_EVENT")
  func brokenCall() {
    let stream = MappedOpenAIStream(chat: [
      #"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}"#
    ])
    #expect(stream.error?.code == .invalidEvent)
  }

  @Test("reasoning_content (vLLM, DeepSeek) streams as reasoning beside the answer")
  func reasoning() {
    let stream = MappedOpenAIStream(chat: [
      #"{"id":"c","choices":[{"index":0,"delta":{"reasoning_content":"Let me think."}}]}"#, Chunk.content("Answer."),
      Chunk.finish("stop"), "[DONE]",
    ])
    #expect(stream.error == nil)
    #expect(stream.events.contains(.partStarted("reasoning", .reasoning)))
    #expect(stream.events.contains(.partEnded("reasoning")))
    #expect(stream.text == "Answer.")
  }
}

@Suite("Responses API streams")
struct ResponsesStreamTests {
  static let created = (
    "response.created",
    #"{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress"}}"#
  )
  static let messageAdded = (
    "response.output_item.added",
    #"{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}}"#
  )
  static func delta(_ text: String, _ n: Int) -> (String, String) {
    (
      "response.output_text.delta",
      #"{"type":"response.output_text.delta","sequence_number":\#(n),"item_id":"msg_1","output_index":0,"content_index":0,"delta":\#(Chunk.json(text))}"#
    )
  }
  static let textDone = (
    "response.output_text.done",
    #"{"type":"response.output_text.done","sequence_number":5,"item_id":"msg_1","output_index":0,"content_index":0,"text":"Hello, world"}"#
  )
  static let messageDone = (
    "response.output_item.done",
    #"{"type":"response.output_item.done","sequence_number":6,"output_index":0,"item":{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hello, world","annotations":[]}]}}"#
  )
  static let completed = (
    "response.completed",
    #"{"type":"response.completed","sequence_number":7,"response":{"id":"resp_1","status":"completed","usage":{"input_tokens":9,"output_tokens":3,"output_tokens_details":{"reasoning_tokens":0}}}}"#
  )

  @Test(
    "a text answer streams per item and content index, completes with usage, and its output item goes into the transcript"
  )
  func text() throws {
    let stream = MappedOpenAIStream(responses: [
      Self.created, Self.messageAdded, Self.delta("Hello", 3), Self.delta(", world", 4), Self.textDone,
      Self.messageDone,
      Self.completed,
    ])
    #expect(stream.error == nil)
    #expect(stream.events.first == .started(agent: nil, replyID: "resp_1"))
    #expect(stream.events.contains(.partStarted("msg_1:0", .text)) && stream.events.contains(.partEnded("msg_1:0")))
    #expect(stream.text == "Hello, world")
    let finished = try #require(stream.finished)
    #expect(
      finished.finishReason == .stop && finished.usage == Usage(inputTokens: 9, outputTokens: 3, reasoningTokens: 0))
    #expect(stream.transcript.items.first?.field("id") == "msg_1")
  }

  @Test(
    "how a response ends decides the outcome",
    arguments: [
      ("completed", nil as ChatError.Code?, FinishReason.stop as FinishReason?),
      ("incomplete", nil, .length),
      ("failed", .providerError, nil),
      ("error", .providerError, nil),
      ("eof", .incompleteStream, nil),
    ])
  func endings(_ end: String, _ expected: ChatError.Code?, _ reason: FinishReason?) {
    let terminal: [String: (String, String)] = [
      "completed": Self.completed,
      "incomplete": (
        "response.incomplete",
        #"{"type":"response.incomplete","sequence_number":7,"response":{"id":"resp_1","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}"#
      ),
      "failed": (
        "response.failed",
        #"{"type":"response.failed","sequence_number":7,"response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"Boom"}}}"#
      ),
      "error": ("error", #"{"type":"error","sequence_number":7,"code":"rate_limit_exceeded","message":"Slow down"}"#),
    ]
    let frames = [Self.created, Self.messageAdded, Self.delta("Hi", 3)] + (terminal[end].map { [$0] } ?? [])
    let stream = MappedOpenAIStream(responses: frames)
    #expect(stream.error?.code == expected)
    #expect(stream.finished?.finishReason == reason)
    #expect(stream.text == "Hi")
  }

  @Test("a function call item streams its arguments and is an app-run call at its end; the reply finishes for tools")
  func functionCall() throws {
    let stream = MappedOpenAIStream(responses: [
      Self.created,
      (
        "response.output_item.added",
        #"{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"","status":"in_progress"}}"#
      ),
      (
        "response.function_call_arguments.delta",
        #"{"type":"response.function_call_arguments.delta","sequence_number":2,"item_id":"fc_1","output_index":0,"delta":"{\"city\":\"Paris\"}"}"#
      ),
      (
        "response.output_item.done",
        #"{"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"completed"}}"#
      ),
      Self.completed,
    ])
    #expect(stream.error == nil)
    #expect(stream.events.contains(.toolInputStarted("call_1", name: "get_weather", execution: .client)))
    #expect(
      stream.events.contains(
        .toolCall(ToolCall(id: "call_1", name: "get_weather", input: ["city": "Paris"], execution: .client))))
    #expect(stream.finished?.finishReason == .toolCalls)
    #expect(stream.transcript.items.first?.field("call_id") == "call_1")
  }

  @Test(
    "reasoning summaries stream as reasoning; the item's encrypted content is kept on its part and in the transcript")
  func reasoning() throws {
    let stream = MappedOpenAIStream(responses: [
      Self.created,
      (
        "response.reasoning_summary_text.delta",
        #"{"type":"response.reasoning_summary_text.delta","sequence_number":1,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Thinking"}"#
      ),
      (
        "response.output_item.done",
        #"{"type":"response.output_item.done","sequence_number":2,"output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Thinking"}],"encrypted_content":"gAAA"}}"#
      ),
      Self.messageAdded, Self.delta("Hi", 3), Self.messageDone, Self.completed,
    ])
    #expect(stream.error == nil)
    #expect(stream.events.contains(.partStarted("rs_1:s0", .reasoning)))
    #expect(stream.events.contains(.partEnded("rs_1:s0", encryptedValue: "gAAA")))
    #expect(stream.transcript.items.map { $0.field("type") } == ["reasoning", "message"])
  }

  @Test("arguments for a call that never started are INVALID_EVENT; unknown event types are skipped")
  func strictness() {
    let broken = MappedOpenAIStream(responses: [
      Self.created,
      (
        "response.function_call_arguments.delta",
        #"{"type":"response.function_call_arguments.delta","sequence_number":1,"item_id":"nope","delta":"{}"}"#
      ),
    ])
    #expect(broken.error?.code == .invalidEvent)
    let skipped = MappedOpenAIStream(responses: [
      Self.created,
      ("response.web_search_call.searching", #"{"type":"response.web_search_call.searching","sequence_number":1}"#),
      Self.messageAdded, Self.delta("ok", 2), Self.completed,
    ])
    #expect(skipped.error == nil && skipped.text == "ok")
  }
}
