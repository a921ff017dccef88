import ChatAISDK
import ChatHTTP
import ConversationState
import ConversationStore
import Foundation
import ServerSentEvents
import Testing

/// One UI message stream read through the real SSE decoder and `AISDKReplyMapper`: what the store is told,
/// how the reply ends, and the chat the next request sends.
struct MappedStream {
  var events: [ReplyEvent] = []
  var error: ChatError?
  var mapper: AISDKReplyMapper

  init(
    _ chunks: [String], chat: AISDKChat = AISDKChat(), user: Message? = nil, continuing: String? = nil,
    appTools: Set<String> = [], dropped: Bool = false
  ) {
    mapper = AISDKReplyMapper(
      key: "k1", conversationID: "chat-1", chat: chat, userMessage: user, continuing: continuing, appTools: appTools,
      receivedAt: Date(timeIntervalSince1970: 1_000))
    var decoder = ServerSentEventDecoder()
    let body = chunks.map { "data: \($0)\n\n" }.joined()
    do throws(ChatError) {
      for case .event(let event) in (try? decoder.feed(Array(body.utf8))) ?? [] {
        try mapper.map(event, into: &events)
      }
      if dropped {
        error = mapper.failure(ofTransport: ChatError(.network, "connection reset"))
      } else {
        events += try mapper.finish()
      }
    } catch {
      self.error = error
    }
  }

  var text: String {
    events.reduce(into: "") { text, event in if case .partDelta(_, let delta) = event { text += delta } }
  }

  var assistant: JSONValue? { mapper.chat.messages.last }
}

@Suite("AI SDK reply mapping")
struct AISDKReplyMapperTests {
  static let text = [
    #"{"type":"start","messageId":"msg-1"}"#, #"{"type":"start-step"}"#, #"{"type":"text-start","id":"t1"}"#,
    #"{"type":"text-delta","id":"t1","delta":"Hello"}"#, #"{"type":"text-delta","id":"t1","delta":", world"}"#,
    #"{"type":"text-end","id":"t1"}"#, #"{"type":"finish-step"}"#, #"{"type":"finish","finishReason":"stop"}"#,
    "[DONE]",
  ]

  @Test(
    "a text reply: the user's message is accepted with the first chunk, the text streams in its part, the reply finishes with the server's message ID"
  )
  func textReply() throws {
    let user = Message(clientID: "c-1", role: .user, text: "Hi", createdAt: Date(timeIntervalSince1970: 999))
    let stream = MappedStream(Self.text, user: user)
    #expect(stream.error == nil)
    guard case .accepted(let accepted, let conversation) = stream.events.first else {
      Issue.record("the first event is \(String(describing: stream.events.first))")
      return
    }
    #expect(accepted.serverID == "c-1" && conversation == "chat-1")
    #expect(stream.events.dropFirst().first == .started(agent: nil, replyID: "msg-1"))
    #expect(stream.events.contains(.partStarted("t1", .text)) && stream.events.contains(.partEnded("t1")))
    #expect(stream.text == "Hello, world")
    guard case .finished(let message, _) = stream.events.last else {
      Issue.record("the reply did not finish")
      return
    }
    #expect(message.serverID == "msg-1" && message.finishReason == .stop)
    // The chat's assistant message is what useChat would hold
    #expect(stream.assistant?.field("id") == "msg-1")
    let parts = try #require(stream.assistant?.field("parts")?.arrayValue)
    #expect(parts.map { $0.field("type") } == ["step-start", "text"])
    #expect(parts.last?.field("text") == "Hello, world" && parts.last?.field("state") == "done")
  }

  @Test(
    "how a stream ends decides the reply's outcome; truncated is never success",
    arguments: [
      (["start", "text", "finish"], nil as ChatError.Code?),
      (["start", "text", "done"], nil),
      (["start", "text", "finish", "done"], nil),
      (["start", "text"], .incompleteStream),
      (["start", "text", "abort"], .cancelled),
      (["start", "text", "error"], .providerError),
      (["error"], .providerError),
      ([], .incompleteStream),
      (["start", "text", "finish", "done", "text"], .invalidEvent),
    ])
  func endings(_ shape: [String], _ expected: ChatError.Code?) {
    let chunks: [String: String] = [
      "start": #"{"type":"start","messageId":"m"}"#,
      "text": #"{"type":"text-delta","id":"t","delta":"x"}"#,
      "finish": #"{"type":"finish"}"#, "done": "[DONE]", "abort": #"{"type":"abort","reason":"stopped"}"#,
      "error": #"{"type":"error","errorText":"The model is overloaded"}"#,
    ]
    let body = shape.flatMap { $0 == "text" ? [#"{"type":"text-start","id":"t"}"#, chunks[$0]!] : [chunks[$0]!] }
    let stream = MappedStream(body)
    #expect(stream.error?.code == expected)
    if expected == .providerError { #expect(stream.error?.message == "The model is overloaded") }
    if expected == nil, case .finished? = stream.events.last {
    } else if expected == nil {
      Issue.record("no finish: \(stream.events)")
    }
  }

  @Test("a connection that drops after the first chunk truncates the reply; the text streamed so far stays in the chat")
  func dropped() throws {
    let stream = MappedStream(Array(Self.text.prefix(4)), dropped: true)
    #expect(stream.error?.code == .incompleteStream)
    #expect(stream.text == "Hello")
    let parts = try #require(stream.assistant?.field("parts")?.arrayValue)
    #expect(parts.last?.field("text") == "Hello" && parts.last?.field("state") == "streaming")
  }

  @Test(
    "a delta or end for a part that is not open, or output for a call the reply lacks, is INVALID_EVENT",
    arguments: [
      #"{"type":"text-delta","id":"nope","delta":"x"}"#, #"{"type":"text-end","id":"nope"}"#,
      #"{"type":"reasoning-delta","id":"nope","delta":"x"}"#,
      #"{"type":"tool-input-delta","toolCallId":"nope","inputTextDelta":"{"}"#,
      #"{"type":"tool-output-available","toolCallId":"nope","output":1}"#,
      #"{"type":"tool-approval-request","approvalId":"a","toolCallId":"nope"}"#,
      #"{"type":"file","url":"","mediaType":"image/png"}"#,
    ])
  func outOfOrder(_ chunk: String) {
    let stream = MappedStream([#"{"type":"start"}"#, chunk, #"{"type":"finish"}"#])
    #expect(stream.error?.code == .invalidEvent)
  }

  @Test("reasoning streams beside the text, and its provider metadata is kept for the next request")
  func reasoning() throws {
    let stream = MappedStream([
      #"{"type":"start","messageId":"m"}"#, #"{"type":"reasoning-start","id":"r"}"#,
      #"{"type":"reasoning-delta","id":"r","delta":"Thinking"}"#,
      #"{"type":"reasoning-end","id":"r","providerMetadata":{"anthropic":{"signature":"sig"}}}"#,
      #"{"type":"text-start","id":"t"}"#, #"{"type":"text-delta","id":"t","delta":"Answer"}"#,
      #"{"type":"text-end","id":"t"}"#, #"{"type":"finish"}"#,
    ])
    #expect(stream.error == nil)
    #expect(stream.events.contains(.partStarted("r", .reasoning)))
    #expect(stream.events.contains(.partEnded("r", encryptedValue: #"{"anthropic":{"signature":"sig"}}"#)))
    let parts = try #require(stream.assistant?.field("parts")?.arrayValue)
    #expect(parts.first?.field("providerMetadata") == ["anthropic": ["signature": "sig"]])
  }

  @Test("finish-step closes the step's open parts; a later step reusing a part ID gets a part of its own")
  func steps() throws {
    let stream = MappedStream([
      #"{"type":"start"}"#, #"{"type":"start-step"}"#, #"{"type":"text-start","id":"t"}"#,
      #"{"type":"text-delta","id":"t","delta":"One. "}"#, #"{"type":"finish-step"}"#, #"{"type":"start-step"}"#,
      #"{"type":"text-start","id":"t"}"#, #"{"type":"text-delta","id":"t","delta":"Two."}"#,
      #"{"type":"text-end","id":"t"}"#, #"{"type":"finish-step"}"#, #"{"type":"finish"}"#,
    ])
    #expect(stream.error == nil)
    let started = stream.events.compactMap { event -> PartID? in
      if case .partStarted(let id, _) = event { return id }
      return nil
    }
    #expect(started == ["t", "t~2"])
    #expect(stream.events.filter { if case .partEnded = $0 { true } else { false } }.count == 2)
  }

  @Test("a server tool streams its input, runs and settles; an app tool is the app's; errors and denials settle calls")
  func tools() throws {
    let stream = MappedStream(
      [
        #"{"type":"start"}"#, #"{"type":"tool-input-start","toolCallId":"w","toolName":"get_weather"}"#,
        #"{"type":"tool-input-delta","toolCallId":"w","inputTextDelta":"{\"city\":"}"#,
        #"{"type":"tool-input-delta","toolCallId":"w","inputTextDelta":"\"Berlin\"}"}"#,
        #"{"type":"tool-input-available","toolCallId":"w","toolName":"get_weather","input":{"city":"Berlin"}}"#,
        #"{"type":"tool-output-available","toolCallId":"w","output":{"forecast":"sunny"}}"#,
        #"{"type":"tool-input-error","toolCallId":"bad","toolName":"get_weather","input":"{","errorText":"not JSON"}"#,
        #"{"type":"tool-input-available","toolCallId":"x","toolName":"delete_files","input":{}}"#,
        #"{"type":"tool-output-error","toolCallId":"x","errorText":"disk full"}"#,
        #"{"type":"tool-input-available","toolCallId":"p","toolName":"pick_color","input":{}}"#,
        #"{"type":"finish","finishReason":"tool-calls"}"#,
      ], appTools: ["pick_color"])
    #expect(stream.error == nil)
    #expect(stream.events.contains(.toolInputStarted("w", name: "get_weather", execution: .server)))
    #expect(stream.events.contains(.toolInputDelta("w", #"{"city":"#)))
    #expect(
      stream.events.contains(
        .toolCall(ToolCall(id: "w", name: "get_weather", input: ["city": "Berlin"], execution: .server))))
    #expect(stream.events.contains(.toolResult("w", .succeeded(["forecast": "sunny"]))))
    #expect(stream.events.contains(.toolResult("bad", .failed(ChatError(.toolFailed, "not JSON")))))
    #expect(stream.events.contains(.toolResult("x", .failed(ChatError(.toolFailed, "disk full")))))
    #expect(stream.events.contains(.toolCall(ToolCall(id: "p", name: "pick_color", input: [:], execution: .client))))
    guard case .finished(let message, _) = stream.events.last else {
      Issue.record("no finish")
      return
    }
    #expect(message.finishReason == .toolCalls)
    let parts = try #require(stream.assistant?.field("parts")?.arrayValue)
    #expect(parts.map { $0.field("state") } == ["output-available", "output-error", "output-error", "input-available"])
    #expect(parts.first?.field("type") == "tool-get_weather" && parts.first?.field("input") == ["city": "Berlin"])
  }

  @Test(
    "an approval request asks the user about the call; the continuation resends the message with the answer and continues it"
  )
  func approval() throws {
    let first = MappedStream([
      #"{"type":"start","messageId":"m"}"#,
      #"{"type":"tool-input-available","toolCallId":"d","toolName":"delete_files","input":{"paths":["a"]}}"#,
      #"{"type":"tool-approval-request","approvalId":"ap-1","toolCallId":"d"}"#, #"{"type":"finish"}"#,
    ])
    #expect(first.error == nil)
    #expect(first.events.contains(.inputRequested(InputRequest(id: "ap-1", kind: .toolApproval("d")))))
    // When the user approves, the chat's message carries the answer
    var chat = first.mapper.chat
    var request = InputRequest(id: "ap-1", kind: .toolApproval("d"))
    request.answer = .denied(reason: "not now")
    let continuation = RunContinuation(
      answer: "m", message: Message(clientID: "a", role: .assistant, text: "", createdAt: .distantPast),
      toolResults: [], inputAnswers: [request])
    #expect(try chat.answer(continuation) == "m")
    let tool = try #require(chat.messages.last?.field("parts")?.arrayValue?.first)
    #expect(tool.field("state") == "approval-responded")
    #expect(tool.field("approval") == ["id": "ap-1", "approved": false, "reason": "not now"])
    // Then the next stream continues the same message: its new parts follow the earlier ones
    let second = MappedStream(
      [
        #"{"type":"start","messageId":"m"}"#, #"{"type":"tool-output-denied","toolCallId":"d"}"#,
        #"{"type":"text-start","id":"t"}"#, #"{"type":"text-delta","id":"t","delta":"I did not delete it."}"#,
        #"{"type":"text-end","id":"t"}"#, #"{"type":"finish"}"#,
      ], chat: chat, continuing: "m")
    #expect(second.error == nil)
    #expect(second.events.contains(.toolResult("d", .denied(reason: nil))))
    #expect(second.mapper.chat.messages.count == 1, "the continuation replaced the message, not added one")
    let parts = try #require(second.assistant?.field("parts")?.arrayValue)
    #expect(parts.map { $0.field("state") } == ["output-denied", "done"])
  }

  @Test("an approval the server decided (AI SDK 7) reaches the store answered and marked as the agent's, never asking")
  func automaticApproval() throws {
    // Given a stream whose server approved a call by its policy
    let stream = MappedStream([
      #"{"type":"start","messageId":"m"}"#,
      #"{"type":"tool-input-available","toolCallId":"d","toolName":"delete_files","input":{"paths":["a"]}}"#,
      #"{"type":"tool-approval-request","approvalId":"ap-1","toolCallId":"d","isAutomatic":true,"signature":"s1"}"#,
      #"{"type":"tool-approval-response","approvalId":"ap-1","approved":false,"reason":"policy"}"#,
      #"{"type":"tool-output-denied","toolCallId":"d"}"#, #"{"type":"finish"}"#,
    ])

    // Then the store is told once, with the server's answer, and the chat's part keeps what the server sent
    #expect(stream.error == nil)
    let requests = stream.events.compactMap { event -> InputRequest? in
      if case .inputRequested(let request) = event { request } else { nil }
    }
    #expect(
      requests == [
        InputRequest(id: "ap-1", kind: .toolApproval("d"), answer: .denied(reason: "policy"), answeredByAgent: true)
      ])
    let tool = try #require(stream.assistant?.field("parts")?.arrayValue?.first)
    #expect(tool.field("state") == "output-denied")
    #expect(
      tool.field("approval")
        == ["id": "ap-1", "isAutomatic": true, "signature": "s1", "approved": false, "reason": "policy"])
  }

  @Test("reset-step takes back the step's parts and calls, from the store and from the message sent next")
  func resetStep() throws {
    // Given a first step that streamed text and a call, then was reset and streamed again
    let stream = MappedStream([
      #"{"type":"start","messageId":"m"}"#, #"{"type":"start-step"}"#, #"{"type":"text-start","id":"t1"}"#,
      #"{"type":"text-delta","id":"t1","delta":"first"}"#,
      #"{"type":"tool-input-start","toolCallId":"c1","toolName":"lookup"}"#, #"{"type":"reset-step"}"#,
      #"{"type":"text-start","id":"t2"}"#, #"{"type":"text-delta","id":"t2","delta":"second"}"#,
      #"{"type":"text-end","id":"t2"}"#, #"{"type":"finish-step"}"#, #"{"type":"finish"}"#,
    ])

    // Then the store is told to drop the first try's part and call
    #expect(stream.error == nil)
    let resets = stream.events.compactMap { event -> ([PartID], [ToolCallID])? in
      if case .stepReset(let parts, let calls) = event { (parts, calls) } else { nil }
    }
    #expect(resets.count == 1)
    #expect(resets.first?.0 == ["t1"] && resets.first?.1 == ["c1"])
    // And the message the next request sends holds the step start and the second try only
    let parts = try #require(stream.assistant?.field("parts")?.arrayValue)
    #expect(parts.map { $0.field("type") } == ["step-start", "text"])
    #expect(parts.last?.field("text") == "second")
  }

  @Test("an answer to an approval the stream never asked for is INVALID_EVENT")
  func answerToNothing() {
    let stream = MappedStream([
      #"{"type":"start","messageId":"m"}"#,
      #"{"type":"tool-approval-response","approvalId":"ap-9","approved":true}"#, #"{"type":"finish"}"#,
    ])
    #expect(stream.error?.code == .invalidEvent)
  }

  @Test("an approval left unanswered, or a question, is INVALID_ACTION and changes nothing")
  func unanswered() throws {
    let first = MappedStream([
      #"{"type":"start","messageId":"m"}"#,
      #"{"type":"tool-input-available","toolCallId":"d","toolName":"delete_files","input":{}}"#,
      #"{"type":"tool-approval-request","approvalId":"ap-1","toolCallId":"d"}"#, #"{"type":"finish"}"#,
    ])
    var chat = first.mapper.chat
    let before = chat
    for request in [
      InputRequest(id: "ap-1", kind: .toolApproval("d")), InputRequest(id: "q", kind: .question(["type": "string"])),
    ] {
      let continuation = RunContinuation(
        answer: "m", message: Message(clientID: "a", role: .assistant, text: "", createdAt: .distantPast),
        toolResults: [], inputAnswers: [request])
      #expect(throws: ChatError.self) { _ = try chat.answer(continuation) }
      #expect(chat == before)
    }
  }

  @Test(
    "sources, files and data become parts; data with the same name and ID replaces; transient data and metadata are side events"
  )
  func partsAndSideEvents() throws {
    var stream = MappedStream([
      #"{"type":"start","messageId":"m","messageMetadata":{"model":"m1"}}"#,
      #"{"type":"source-url","sourceId":"s1","url":"https://docs.example.com/a","title":"Docs"}"#,
      #"{"type":"source-document","sourceId":"s2","mediaType":"application/pdf","title":"Manual"}"#,
      #"{"type":"file","url":"https://example.com/chart.png","mediaType":"image/png"}"#,
      #"{"type":"data-progress","id":"p","data":{"percent":10}}"#,
      #"{"type":"data-progress","id":"p","data":{"percent":100}}"#,
      #"{"type":"data-toast","data":"Saved","transient":true}"#,
      #"{"type":"message-metadata","messageMetadata":{"tokens":5}}"#,
      #"{"type":"future-chunk","x":1}"#, #"{"type":"finish","messageMetadata":{"done":true}}"#,
    ])
    #expect(stream.error == nil)
    let parts = stream.events.compactMap { event -> MessagePart? in
      if case .part(let part) = event { return part }
      return nil
    }
    #expect(parts.map(\.id) == ["s1", "s2", "file-1", "data-progress-p", "data-progress-p"])
    #expect(
      parts[0].content
        == .source(
          KnowledgeSource(id: "s1", title: "Docs", url: URL(string: "https://docs.example.com/a"), origin: .external)))
    #expect(parts.last?.content == .data(DataPart(kind: "progress", value: ["percent": 100])))
    let chatParts = try #require(stream.assistant?.field("parts")?.arrayValue)
    #expect(chatParts.filter { $0.field("type") == "data-progress" }.count == 1, "replaced in place")
    #expect(stream.assistant?.field("metadata") == ["model": "m1", "tokens": 5, "done": true])
    let side = stream.mapper.takeSideEvents()
    #expect(side.contains(.data(name: "toast", id: nil, data: "Saved")))
    #expect(side.contains(.metadata(["model": "m1", "tokens": 5, "done": true])))
    #expect(side.contains { if case .warning(let text) = $0 { text.contains("future-chunk") } else { false } })
  }
}

extension JSONValue {
  var arrayValue: [JSONValue]? {
    if case .array(let items) = self { return items }
    return nil
  }
}

@Suite("AI SDK fast path")
struct AISDKFastPathTests {
  @Test(
    "a delta read from its bytes maps exactly as the general path maps it",
    arguments: [
      #"{"type":"text-delta","id":"t","delta":"plain"}"#, #"{"delta":"order \"first\"","id":"t","type":"text-delta"}"#,
      #"{"type":"text-delta","id":"t","delta":"caf\u00e9 \ud83d\ude00 \n\t\\"}"#,
      #"{"type":"text-delta","id":"t","delta":"x","providerMetadata":{"a":[1,{"b":null}]}}"#,
      #"{"type":"text-delta","id":"t","delta":"x","extra":[true,false,null,-1.5e3,"s"]}"#,
      #"{"type":"text-delta","id":"t","delta":"bad \x"}"#, #"{"type":"text-delta","id":"t"}"#,
      #"{"type":"text-delta","id":"t","delta":"x"} trailing"#,
      #" {"type" : "text-delta" , "id" : "t" , "delta" : "spaced"} "#,
      #"{"type":"text-delta","id":"nope","delta":"x"}"#,
    ])
  func agrees(_ chunk: String) {
    let opening = [
      #"{"type":"start"}"#, #"{"type":"text-start","id":"t"}"#, #"{"type":"text-delta","id":"t","delta":"a"}"#,
    ]
    // Through the bytes (the mapper's event path, with its fast reading)
    let fast = MappedStream(opening + [chunk, #"{"type":"finish"}"#])
    // Through decoded chunks only (the general path)
    var mapper = AISDKReplyMapper(
      key: "k1", conversationID: "chat-1", chat: AISDKChat(), receivedAt: Date(timeIntervalSince1970: 1_000))
    var events: [ReplyEvent] = []
    var error: ChatError?
    do throws(ChatError) {
      for json in opening + [chunk, #"{"type":"finish"}"#] {
        try mapper.map(try UIMessageChunk(json: json), into: &events)
      }
      events += try mapper.finish()
    } catch let failure {
      error = failure
    }
    #expect(fast.error == error)
    #expect(fast.text == events.reduce(into: "") { if case .partDelta(_, let d) = $1 { $0 += d } })
    #expect(fast.mapper.chat == mapper.chat)
  }
}
