public import ConversationState
public import ConversationStore
public import Foundation
public import ServerSentEvents

/// Turns a reply's Server-Sent Events into the store's `ReplyEvent`s, for both frame styles agent backends
/// use (see `Docs/HTTP-PROTOCOL.md`): data frames (`data: {"content": …, "status": "DONE"}`, heartbeats
/// skipped, also a bare `data: heartbeat`) and typed events (`start`, `text-delta`, `tool-call`, `tool-result`, `finish`, `error`).
///
/// Pure and incremental: feed each decoded event to `map(_:)`, then call `finish()` at the end of the
/// body. Unknown event types are ignored; a frame whose JSON cannot be read throws `INVALID_EVENT`; a body
/// that ends before the reply finished throws `INCOMPLETE_STREAM`. After a throw the reply is over.
///
/// ```swift
/// var mapper = ReplyStreamMapper(sending: payload, at: Date())
/// for item in decoder.feed(chunk) {
///   if case .event(let event) = item { for reply in try mapper.map(event) { continuation.yield(reply) } }
/// }
/// try mapper.finish()
/// ```
public struct ReplyStreamMapper: Sendable {
  /// The user's message as the device has it, reported as accepted at the first frame when the server does
  /// not send its own copy; nil for a regeneration (nothing to accept).
  private var userMessage: Message?
  private var conversationID: ConversationID?
  private var hasStarted = false
  private var isFinished = false
  private var replyID: ServerMessageID?
  private var agent: AgentInfo?
  private var text = ""
  /// Whether this stream continues a reply whose start came on an earlier connection: its text so far is
  /// the store's, not this mapper's.
  private var isResumed = false
  private let receivedAt: Date

  /// A mapper for the reply to `payload`; `receivedAt` (the device's clock) stands in for times the server
  /// leaves out.
  public init(sending payload: SendPayload, at receivedAt: Date) {
    userMessage = Message(
      clientID: payload.clientID, role: .user, text: payload.text, createdAt: receivedAt, delivery: .sent,
      attachments: payload.attachments)
    conversationID = payload.conversationID
    self.receivedAt = receivedAt
  }

  /// A mapper for a regenerated reply in `conversation`.
  public init(regeneratingIn conversation: ConversationID, at receivedAt: Date) {
    conversationID = conversation
    self.receivedAt = receivedAt
  }

  /// A mapper for the rest of `reply` in `conversation`, resumed after its connection dropped
  /// (`HTTPChatBackend.resumeReply(from:)`): the reply has started and its question was accepted on the
  /// first connection, so the frames after the cursor only go on with it. A finish that carries no text
  /// leaves the text the store streamed.
  public init(resuming reply: ServerMessageID, in conversation: ConversationID, at receivedAt: Date) {
    conversationID = conversation
    replyID = reply
    hasStarted = true
    isResumed = true
    self.receivedAt = receivedAt
  }

  /// Whether the reply's last frame (`DONE` or `finish`) has come.
  public var isComplete: Bool { isFinished }

  /// The store events `event` stands for, in order.
  public mutating func map(_ event: ServerSentEvent) throws(ChatError) -> [ReplyEvent] {
    guard !isFinished else { return [] }
    switch event.type {
    case "message": return try dataFrame(event)
    case "start": return try start(decode(StartFrame.self, event))
    case "text-delta":
      let frame = try decode(DeltaFrame.self, event)
      var events = try opening()
      if !frame.delta.isEmpty { events.append(delta(frame.delta)) }
      return events
    case "tool-call":
      let frame = try decode(ToolCallFrame.self, event)
      let call = ToolCall(
        id: ToolCallID(frame.toolCallId), name: frame.toolName, input: frame.input ?? .object([:]),
        execution: frame.execution == "client" ? .client : .server)
      return try opening() + [.toolCall(call)]
    case "tool-result":
      let frame = try decode(ToolResultFrame.self, event)
      let outcome: ToolCall.Outcome =
        if let error = frame.error {
          .failed(ChatError(ChatError.Code(error.code ?? "TOOL_FAILED"), error.message ?? ""))
        } else {
          .succeeded(frame.result ?? .null)
        }
      return try opening() + [.toolResult(ToolCallID(frame.toolCallId), outcome)]
    case "finish": return try finish(decode(FinishFrame.self, event))
    case "error":
      let frame = try decode(WireError.self, event)
      throw Self.serverError(frame)
    default:
      return []  // a type this client does not know: ignored, as the protocol says
    }
  }

  /// The end of the body: throws `INCOMPLETE_STREAM` unless the reply finished.
  public func finish() throws(ChatError) {
    guard isFinished else {
      throw ChatError(.incompleteStream, "The reply's stream ended before the reply was finished.")
    }
  }

  // MARK: - Style A: data frames

  private mutating func dataFrame(_ event: ServerSentEvent) throws(ChatError) -> [ReplyEvent] {
    let frame = try event.withDataUTF8 { bytes throws(ChatError) -> DataFrame? in
      if Self.isKeepAliveWord(bytes) { return nil }
      return try WireJSON.decode(DataFrame.self, from: Data(bytes), what: "a reply frame")
    }
    guard let frame else { return [] }
    if frame.type == "heartbeat" { return [] }
    if let id = frame.conversationId { conversationID = conversationID ?? ConversationID(id) }
    if let id = frame.messageId { replyID = replyID ?? ServerMessageID(id) }
    var events = try accept(frame.userMessage) + opening()
    if let content = frame.content, !content.isEmpty { events.append(delta(content)) }
    switch frame.status {
    case "DONE":
      let message = reply(id: replyID, createdAt: frame.createdAt)
      isFinished = true
      events.append(.finished(message, userMessageID: frame.userMessageId.map(ServerMessageID.init(rawValue:))))
    case "ERROR":
      throw Self.serverError(frame.error ?? WireError(code: nil, message: nil))
    default:
      break
    }
    return events
  }

  /// Some servers keep a stream alive with a bare word as a frame's data (`data: heartbeat`), not JSON:
  /// `heartbeat`, `ping`, `keepalive` or `keep-alive`, in any case and with spaces around it, is skipped.
  static func isKeepAliveWord(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard bytes.count <= 16, let first = bytes.first, first != UInt8(ascii: "{") else { return false }
    let word = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
    return ["heartbeat", "ping", "keepalive", "keep-alive"].contains(word)
  }

  // MARK: - Style B: typed events

  private mutating func start(_ frame: StartFrame) throws(ChatError) -> [ReplyEvent] {
    if let id = frame.conversationId { conversationID = conversationID ?? ConversationID(id) }
    if let id = frame.messageId { replyID = ServerMessageID(id) }
    agent = frame.agent?.info ?? agent
    return try accept(frame.userMessage) + opening()
  }

  private mutating func finish(_ frame: FinishFrame) throws(ChatError) -> [ReplyEvent] {
    var events = try opening()
    var message: Message
    if let wire = frame.message {
      message = try wire.message()
      if message.role == .user { message.role = .assistant }
      if message.text.isEmpty, !isResumed { message.text = text }
    } else {
      message = reply(id: frame.messageId.map(ServerMessageID.init(rawValue:)) ?? replyID, createdAt: nil)
    }
    message.finishReason = frame.finishReason.map(FinishReason.init(rawValue:)) ?? message.finishReason
    message.usage = frame.usage?.usage ?? message.usage
    message.agent = message.agent ?? agent
    isFinished = true
    events.append(.finished(message, userMessageID: frame.userMessageId.map(ServerMessageID.init(rawValue:))))
    return events
  }

  // MARK: - Shared

  /// The user's message is accepted once, at the first frame: the server's copy when it sent one.
  private mutating func accept(_ wire: WireMessage?) throws(ChatError) -> [ReplyEvent] {
    let server = try wire?.message()  // read even when late, so a malformed copy is never passed over
    guard var message = userMessage else { return [] }
    userMessage = nil
    if let server {
      let local = message
      message = server
      message.clientID = local.clientID
      message.role = .user
      if message.attachments.isEmpty { message.attachments = local.attachments }
    }
    guard let conversationID else {
      throw ChatError(.invalidEvent, "The server's reply to a new conversation did not name the conversation.")
    }
    return [.accepted(message, conversationID: conversationID)]
  }

  /// What every frame implies first: the user's message accepted, the reply started.
  private mutating func opening() throws(ChatError) -> [ReplyEvent] {
    var events = try accept(nil)
    if !hasStarted {
      hasStarted = true
      events.append(.started(agent: agent, replyID: replyID))
    }
    return events
  }

  private mutating func delta(_ piece: String) -> ReplyEvent {
    text += piece
    return .delta(piece)
  }

  private func reply(id: ServerMessageID?, createdAt: Date?) -> Message {
    Message(
      clientID: ClientMessageID("srv-\(id?.rawValue ?? "reply")"), serverID: id, role: .assistant,
      text: isResumed ? "" : text,
      createdAt: createdAt ?? receivedAt, delivery: .sent, reply: .completed, agent: agent)
  }

  private func decode<T: Decodable>(_ type: T.Type, _ event: ServerSentEvent) throws(ChatError) -> T {
    try event.withDataUTF8 { bytes throws(ChatError) in
      try WireJSON.decode(type, from: Data(bytes), what: "a \"\(event.type)\" event")
    }
  }

  static func serverError(_ error: WireError) -> ChatError {
    error.chatError(defaultCode: .providerError, defaultMessage: "The agent's reply failed.")
  }
}

// MARK: - Frames

private struct DataFrame: Decodable {
  var type: String?
  var conversationId: String?
  var userMessage: WireMessage?
  var userMessageId: String?
  var messageId: String?
  var content: String?
  var status: String?
  var createdAt: Date?
  var error: WireError?

  private enum CodingKeys: String, CodingKey {
    case type
    case conversationId = "conversation_id"
    case userMessage = "user_message"
    case userMessageId = "user_message_id"
    case messageId = "message_id"
    case content
    case status
    case createdAt = "created_at"
    case error
  }
}

private struct StartFrame: Decodable {
  var conversationId: String?
  var userMessage: WireMessage?
  var messageId: String?
  var agent: WireAgent?

  private enum CodingKeys: String, CodingKey {
    case conversationId = "conversation_id"
    case userMessage = "user_message"
    case messageId = "message_id"
    case agent
  }
}

private struct DeltaFrame: Decodable {
  var delta: String
}

private struct ToolCallFrame: Decodable {
  var toolCallId: String
  var toolName: String
  var input: JSONValue?
  var execution: String?

  private enum CodingKeys: String, CodingKey {
    case toolCallId = "tool_call_id"
    case toolName = "tool_name"
    case input
    case execution
  }
}

private struct ToolResultFrame: Decodable {
  var toolCallId: String
  var result: JSONValue?
  var error: WireError?

  private enum CodingKeys: String, CodingKey {
    case toolCallId = "tool_call_id"
    case result
    case error
  }
}

private struct FinishFrame: Decodable {
  var message: WireMessage?
  var messageId: String?
  var userMessageId: String?
  var finishReason: String?
  var usage: WireUsage?

  private enum CodingKeys: String, CodingKey {
    case message
    case messageId = "message_id"
    case userMessageId = "user_message_id"
    case finishReason = "finish_reason"
    case usage
  }
}
