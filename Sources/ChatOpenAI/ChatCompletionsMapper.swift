import ChatHTTP
public import ConversationState
public import ConversationStore
public import Foundation
public import ServerSentEvents

/// Turns a Chat Completions stream (`stream: true`: `chat.completion.chunk` frames, then `[DONE]`) into the
/// store's `ReplyEvent`s. Pure and incremental: feed each event to `map(_:into:)`, then call `finish()` at
/// the end of the body; `transcript` then holds the conversation as the model will be sent it next.
///
/// - `delta.content` streams the answer's text part; `delta.reasoning_content` (or `delta.reasoning`, as
///   vLLM, DeepSeek and OpenRouter send it) a reasoning part beside it; `delta.refusal` is text.
/// - `delta.tool_calls` fragments stream each call's arguments, keyed by `index` (the first fragment
///   names its `id` and function); every call is app-run, complete at the `finish_reason`.
/// - A usage chunk (`stream_options.include_usage`) becomes the answer's usage.
/// - The end: a `finish_reason` and `[DONE]` complete the reply (`stop`, `length`, `tool_calls`,
///   `content_filter`); a frame with an `error` object fails it (`PROVIDER_ERROR`); a body that ends without
///   both, or a dropped connection, is `INCOMPLETE_STREAM` (`truncated`) — never a success, though every
///   official SDK takes such a stream silently.
public struct ChatCompletionsMapper: OpenAIStreamMapper {
  private var reply: OpenAIReplyBuilder
  /// The conversation as the model will be sent it next.
  public private(set) var transcript: OpenAITranscript
  private var finishReason: String?
  private var done = false
  /// Call IDs by the API's `index`.
  private var callsByIndex: [Int: String] = [:]
  /// The last content chunk the scanner took, less its content string's bytes, and how many of its bytes
  /// come before them: the template the next content chunks are matched against
  /// (`JSONByteScanner.completionHotContent`).
  private var hotFrame: [UInt8] = []
  private var hotPrefix = 0

  /// A mapper for one request of `conversationID`; `userMessage` is the user's message a send carries
  /// (reported accepted with the first chunk). `key` names the answer when the server names no completion;
  /// `receivedAt` (the device's clock) is the answer's time (the chunks' `created` is the server's, in
  /// whole seconds, and not used).
  public init(
    key: String, conversationID: ConversationID, transcript: OpenAITranscript, userMessage: Message? = nil,
    receivedAt: Date
  ) {
    reply = OpenAIReplyBuilder(
      key: key, conversationID: conversationID, userMessage: userMessage, receivedAt: receivedAt)
    self.transcript = transcript
  }

  /// Appends the store events one Server-Sent Event stands for to `events`.
  public mutating func map(_ event: ServerSentEvent, into events: inout [ReplyEvent]) throws(ChatError) {
    guard !done else { throw ChatError(.invalidEvent, "A Chat Completions frame came after [DONE].") }
    if reply.begun {
      // The hottest chunk, answer text, is read from the event's bytes without a JSON tree; the first chunk
      // (which names the answer) and anything else take the general path.
      // A chunk with the same bytes as the last one around its text is matched against it first.
      var taken = false
      if !hotFrame.isEmpty {
        event.withSentDataBytes { bytes in taken = streamHotContent(from: bytes, into: &events) }
        if taken { return }
      }
      var fast: String?
      event.withSentDataBytes { bytes in
        var scanner = JSONByteScanner(bytes: bytes)
        var contentAt = (open: 0, close: 0)
        fast = scanner.completionContent(contentAt: &contentAt)
        if fast != nil { keepTemplate(bytes, contentAt) }
      }
      if let fast {
        streamText(fast, into: &events)
        return
      }
    }
    if event.data == "[DONE]" {
      done = true
      return
    }
    let object = try frameObject(event.data, "Chat Completions")
    if let error = object["error"], error != .null { throw OpenAIReplyBuilder.providerError(error) }
    let fields = FrameFields(invalidEvent: object, type: "chat.completion.chunk")
    reply.begin(replyID: try fields.optionalString("id"), into: &events)
    if let usage = try fields.optionalObject("usage") { reply.usage = Self.usage(usage) }
    for choice in try fields.optionalArray("choices") ?? [] {
      guard case .object(let object) = choice else {
        throw ChatError(.invalidEvent, "A chat.completion.chunk choice is not an object.")
      }
      let choice = fields.nested(object, type: "choice")
      guard (try choice.optionalInt("index") ?? 0) == 0 else { continue }  // one answer is asked for
      if let delta = try choice.optionalObject("delta") {
        try apply(fields.nested(delta, type: "delta"), into: &events)
      }
      if let reason = try choice.optionalString("finish_reason") {
        finishReason = reason
        reply.endAll(into: &events)
        reply.completeAllCalls(into: &events)
      }
    }
  }

  private mutating func apply(_ delta: FrameFields, into events: inout [ReplyEvent]) throws(ChatError) {
    var reasoning = try delta.optionalString("reasoning_content")
    if reasoning == nil { reasoning = try delta.optionalString("reasoning") }
    if let reasoning {
      reply.stream(reasoning, in: "reasoning", as: .reasoning, into: &events)
    }
    for key in ["content", "refusal"] {
      if let text = try delta.optionalString(key) { streamText(text, into: &events) }
    }
    for fragment in try delta.optionalArray("tool_calls") ?? [] {
      guard case .object(let object) = fragment else {
        throw ChatError(.invalidEvent, "A tool_calls fragment is not an object.")
      }
      let call = delta.nested(object, type: "tool_calls fragment")
      let index = try call.optionalInt("index") ?? 0
      let function = try call.optionalObject("function").map { delta.nested($0, type: "function") }
      if callsByIndex[index] == nil {
        guard let id = try call.optionalString("id"), let name = try function?.optionalString("name") else {
          throw ChatError(.invalidEvent, "The first fragment of tool call \(index) names no id or function.")
        }
        callsByIndex[index] = id
        reply.startCall(id: id, name: name, into: &events)
      }
      if let id = callsByIndex[index], let arguments = try function?.optionalString("arguments") {
        reply.appendArguments(arguments, toCall: id, into: &events)
      }
    }
  }

  /// Keeps the bytes of a content chunk the scanner took around its content, unless they are the template
  /// already (a stream's chunks mostly are): the template for the next chunks.
  private mutating func keepTemplate(_ bytes: UnsafeBufferPointer<UInt8>, _ contentAt: (open: Int, close: Int)) {
    let prefix = UnsafeBufferPointer(rebasing: bytes[...contentAt.open])
    let suffix = UnsafeBufferPointer(rebasing: bytes[(contentAt.close + 1)...])
    let same =
      hotPrefix == prefix.count && hotFrame.count == prefix.count + suffix.count
      && hotFrame.withUnsafeBufferPointer { frame in
        frame.prefix(prefix.count).elementsEqual(prefix) && frame.suffix(suffix.count).elementsEqual(suffix)
      }
    guard !same else { return }
    hotFrame = Array(prefix) + Array(suffix)
    hotPrefix = prefix.count
  }

  /// Takes `bytes` when they are a content chunk with the template's bytes around its text, as the scanner's
  /// path would take them (`streamText`); false for any other chunk.
  private mutating func streamHotContent(from bytes: UnsafeBufferPointer<UInt8>, into events: inout [ReplyEvent])
    -> Bool
  {
    var scanner = JSONByteScanner(bytes: bytes)
    let content = hotFrame.withUnsafeBufferPointer { scanner.completionHotContent(frame: $0, prefix: hotPrefix) }
    let text: String
    var ascii: UnsafeBufferPointer<UInt8>?
    switch content {
    case .raw(let raw)?:
      // `String(decoding:as:)` repairs bytes that are not UTF-8, as the scanner's strings do; ASCII bytes
      // are the string's own.
      text = String(decoding: raw, as: UTF8.self)
      if JSONByteScanner.isASCII(raw) { ascii = raw }
    case .decoded(let decoded)?:
      text = decoded
    case nil:
      return false
    }
    if !reply.streamOnlyOpenText(text, bytes: ascii, into: &events) { streamText(text, into: &events) }
    return true
  }

  /// Answer text: it ends the reasoning streaming before it.
  private mutating func streamText(_ text: String, into events: inout [ReplyEvent]) {
    guard !text.isEmpty else { return }
    if reply.isOpen("reasoning") { reply.end("reasoning", into: &events) }
    reply.stream(text, in: "text", as: .text, into: &events)
  }

  /// The store events the body's end stands for, or the error it ends the reply with.
  public mutating func finish() throws(ChatError) -> [ReplyEvent] {
    guard reply.begun else { throw ChatError(.incompleteStream, "The stream ended before the reply started.") }
    commit()
    guard let finishReason, done else {
      throw ChatError(
        .incompleteStream,
        finishReason == nil
          ? "The stream ended without a finish_reason." : "The stream ended without [DONE] (its usage may be missing).")
    }
    return [reply.finished(Self.reason(finishReason))]
  }

  /// What a transport failure of the body means (see `OpenAIReplyBuilder.failure`).
  public mutating func failure(ofTransport error: ChatError) -> ChatError {
    commit()
    return reply.failure(ofTransport: error, ended: done)
  }

  /// Writes the answer as it stands into the transcript (a cut-off answer's too: the model is sent what the
  /// user saw).
  private mutating func commit() {
    guard reply.begun, !reply.text.isEmpty || !reply.calls.isEmpty else { return }
    var message: [String: JSONValue] = [
      "role": "assistant", "content": reply.text.isEmpty ? .null : .string(reply.text),
    ]
    let calls = reply.calls.filter(\.isComplete)
    if !calls.isEmpty {
      message["tool_calls"] = .array(
        calls.map { call in
          [
            "id": .string(call.id), "type": "function",
            "function": ["name": .string(call.name), "arguments": .string(call.arguments)],
          ]
        })
    }
    transcript.set([.object(message)], for: reply.replyID ?? reply.key)
  }

  static func usage(_ object: [String: JSONValue]) -> Usage {
    func int(_ value: JSONValue?) -> Int {
      if case .number(let number)? = value, let whole = Int(exactly: number) { return whole }
      return 0
    }
    let details = object["completion_tokens_details"] ?? object["output_tokens_details"]
    let reasoning = details?.field("reasoning_tokens").map { int($0) }
    return Usage(
      inputTokens: int(object["prompt_tokens"] ?? object["input_tokens"]),
      outputTokens: int(object["completion_tokens"] ?? object["output_tokens"]), reasoningTokens: reasoning)
  }

  static func reason(_ given: String) -> FinishReason {
    given == "function_call" ? .toolCalls : FinishReason(rawValue: given)
  }
}
