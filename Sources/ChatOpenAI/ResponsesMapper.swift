import ChatHTTP
public import ConversationState
public import ConversationStore
public import Foundation
public import ServerSentEvents

/// Turns a Responses API stream (`stream: true`: typed events with a `sequence_number`) into the store's
/// `ReplyEvent`s. Pure and incremental: feed each event to `map(_:into:)`, then call `finish()` at the end
/// of the body; `transcript` then holds the conversation as the model will be sent it next (the response's
/// output items, as the server sent them).
///
/// - Output text (and refusals) stream as text parts, one per item and content index; reasoning summaries
///   and reasoning text as reasoning parts; a reasoning item's `encrypted_content` is kept on its last part.
/// - A `function_call` item is an app-run call: its arguments stream, and it is complete at the item's end.
/// - The end: `response.completed` completes the reply (`tool_calls` when it called functions, else
///   `stop`); `response.incomplete` completes it with why (`length` for `max_output_tokens`);
///   `response.failed` and `error` fail it (`PROVIDER_ERROR`); a body that ends before any of them, or a
///   dropped connection, is `INCOMPLETE_STREAM` (`truncated`). Event types this client does not know (web
///   search, audio…) are skipped.
/// - `lastSequenceNumber` is where the stream got to; it positions the events of a background response
///   for a resume (`OpenAIBackend.resumeReply(from:)`).
public struct ResponsesMapper: OpenAIStreamMapper {
  private enum Ending: Sendable {
    case completed
    case incomplete(String?)
  }

  private var reply: OpenAIReplyBuilder
  /// The conversation as the model will be sent it next.
  public private(set) var transcript: OpenAITranscript
  /// The last event's `sequence_number`.
  public private(set) var lastSequenceNumber: Int?
  private var ending: Ending?
  private var output: [JSONValue] = []
  /// Call IDs by the function call item's ID.
  private var callsByItem: [String: String] = [:]
  /// The output items of the runs this one continues, which the answer keeps before this run's.
  private let earlierOutput: [JSONValue]

  /// A mapper for one request of `conversationID` (see `ChatCompletionsMapper.init`).
  public init(
    key: String, conversationID: ConversationID, transcript: OpenAITranscript, userMessage: Message? = nil,
    earlierOutput: [JSONValue] = [], receivedAt: Date
  ) {
    reply = OpenAIReplyBuilder(
      key: key, conversationID: conversationID, userMessage: userMessage, receivedAt: receivedAt)
    self.transcript = transcript
    self.earlierOutput = earlierOutput
  }

  /// Appends the store events one Server-Sent Event stands for to `events`.
  public mutating func map(_ event: ServerSentEvent, into events: inout [ReplyEvent]) throws(ChatError) {
    if event.data == "[DONE]" { return }  // some compatible servers end with it; the API does not
    let object = try frameObject(event.data, "Responses")
    let fields = FrameFields(invalidEvent: object, type: "event")
    let type = try fields.string("type")
    let frame = fields.nested(object, type: type)
    if let number = try frame.optionalInt("sequence_number") { lastSequenceNumber = number }
    switch type {
    case "response.created", "response.in_progress", "response.queued":
      let response = try frame.optionalObject("response")
      reply.begin(replyID: response?["id"]?.stringValue, into: &events)
    case "response.output_item.added":
      reply.begin(replyID: nil, into: &events)
      let item = frame.nested(try frame.optionalObject("item") ?? [:], type: "\(type).item")
      if try item.optionalString("type") == "function_call" {
        let callID = try item.string("call_id")
        callsByItem[try item.optionalString("id") ?? callID] = callID
        reply.startCall(id: callID, name: try item.string("name"), into: &events)
      }
    case "response.output_text.delta", "response.refusal.delta":
      reply.begin(replyID: nil, into: &events)
      let key = "\(try frame.string("item_id")):\(try frame.optionalInt("content_index") ?? 0)"
      reply.stream(try frame.string("delta"), in: key, as: .text, into: &events)
    case "response.output_text.done", "response.refusal.done":
      reply.end("\(try frame.string("item_id")):\(try frame.optionalInt("content_index") ?? 0)", into: &events)
    case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
      reply.begin(replyID: nil, into: &events)
      reply.stream(try frame.string("delta"), in: try reasoningKey(frame, type), as: .reasoning, into: &events)
    case "response.function_call_arguments.delta":
      let item = try frame.string("item_id")
      guard let callID = callsByItem[item] else {
        throw ChatError(.invalidEvent, "Arguments for function call item \(item), which has not started.")
      }
      reply.appendArguments(try frame.string("delta"), toCall: callID, into: &events)
    case "response.output_item.done":
      guard let item = try frame.optionalObject("item") else { throw frame.malformed("\(type) has no \"item\".") }
      try itemDone(frame.nested(item, type: "\(type).item"), into: &events)
    case "response.completed":
      if let usage = try frame.optionalObject("response")?["usage"], case .object(let fields) = usage {
        reply.usage = ChatCompletionsMapper.usage(fields)
      }
      ending = .completed
    case "response.incomplete":
      let details = try frame.optionalObject("response")?["incomplete_details"]
      ending = .incomplete(details?.field("reason")?.stringValue)
    case "response.failed":
      commit()
      throw OpenAIReplyBuilder.providerError(try frame.optionalObject("response")?["error"])
    case "error":
      commit()
      throw OpenAIReplyBuilder.providerError(.object(object))
    default:
      break
    }
  }

  private func reasoningKey(_ frame: FrameFields, _ type: String) throws(ChatError) -> String {
    let item = try frame.string("item_id")
    return type == "response.reasoning_text.delta"
      ? "\(item):r\(try frame.optionalInt("content_index") ?? 0)"
      : "\(item):s\(try frame.optionalInt("summary_index") ?? 0)"
  }

  private mutating func itemDone(_ item: FrameFields, into events: inout [ReplyEvent]) throws(ChatError) {
    let id = try item.optionalString("id") ?? ""
    switch try item.optionalString("type") {
    case "function_call":
      let callID = try item.string("call_id")
      if !reply.hasCall(callID) { reply.startCall(id: callID, name: try item.string("name"), into: &events) }
      reply.completeCall(callID, arguments: try item.optionalString("arguments"), into: &events)
    case "reasoning":
      let encrypted = try item.optionalString("encrypted_content")
      // The value goes on the item's last open part; an item that streamed nothing is a part of its own.
      if let encrypted, !reply.endLast(prefix: "\(id):", encryptedValue: encrypted, into: &events) {
        reply.part(id, .reasoning(ReasoningPart(text: "", encryptedValue: encrypted)), into: &events)
      }
      reply.endAll(prefix: "\(id):", into: &events)
    default:
      reply.endAll(prefix: "\(id):", into: &events)
    }
    output.append(.object(item.object))
  }

  /// The store events the body's end stands for, or the error it ends the reply with.
  public mutating func finish() throws(ChatError) -> [ReplyEvent] {
    guard reply.begun else { throw ChatError(.incompleteStream, "The stream ended before the response started.") }
    commit()
    var events: [ReplyEvent] = []
    reply.endAll(into: &events)
    switch ending {
    case nil:
      throw ChatError(.incompleteStream, "The stream ended before the response completed.")
    case .completed:
      reply.completeAllCalls(into: &events)
      events.append(keepingOutput(reply.finished(reply.calls.isEmpty ? .stop : .toolCalls)))
    case .incomplete(let why):
      let reason: FinishReason =
        switch why {
        case "max_output_tokens": .length
        case "content_filter": .contentFilter
        default: FinishReason(rawValue: why ?? "incomplete")
        }
      events.append(keepingOutput(reply.finished(reason)))
    }
    return events
  }

  /// The finished answer with the output items it is sent back as (`Message.providerMetadata`): the
  /// earlier runs' and this one's, reasoning only with its encrypted content.
  private func keepingOutput(_ event: ReplyEvent) -> ReplyEvent {
    guard case .finished(var message, let userMessageID) = event else { return event }
    let items = earlierOutput + output.filter(Self.isResendable)
    guard !items.isEmpty else { return event }
    message.providerMetadata = [OpenAITranscript.responsesKey: ["output": .array(items)]]
    return .finished(message, userMessageID: userMessageID)
  }

  private static func isResendable(_ item: JSONValue) -> Bool {
    item.field("type")?.stringValue != "reasoning" || item.field("encrypted_content") != nil
  }

  /// What a transport failure of the body means (see `OpenAIReplyBuilder.failure`).
  public mutating func failure(ofTransport error: ChatError) -> ChatError {
    commit()
    return reply.failure(ofTransport: error, ended: ending != nil)
  }

  /// Writes the response's output items into the transcript (reasoning only with its encrypted content,
  /// which a stateless request needs; an item the server keeps is referred to by nothing here).
  private mutating func commit() {
    let items = output.filter(Self.isResendable)
    guard !items.isEmpty else { return }
    transcript.set(items, for: reply.replyID ?? reply.key)
  }
}

extension ResponsesMapper: SequenceNumberedMapper {
  /// `lastSequenceNumber`, when it is one (a negative number positions nothing).
  package var streamSequenceNumber: UInt64? { lastSequenceNumber.flatMap { $0 >= 0 ? UInt64($0) : nil } }
}
