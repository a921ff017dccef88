public import ConversationState
public import ConversationStore
public import Foundation
public import ServerSentEvents

/// Turns a reply's Server-Sent Events into the store's `ReplyEvent`s, for both frame styles agent backends
/// use (see `Docs/HTTP-PROTOCOL.md`): data frames (`data: {"content": …, "status": "DONE"}`, heartbeats
/// skipped, also a bare `data: heartbeat`) and typed events (`start`, `text-delta`, `tool-call`, `tool-result`,
/// `source`, `finish`, `error`).
///
/// A data frame names the conversation by `conversation_id`, or by Ago's `thread_id` or `thread` (`{id,
/// title}`); a new conversation's frames that come before the one naming it wait for it, and a reply that
/// finishes without naming it throws `INVALID_EVENT` having reported nothing.
///
/// Pure and incremental: feed each decoded event to `map(_:)`, then call `finish()` at the end of the
/// body. Unknown event types are ignored; a frame whose JSON cannot be read throws `INVALID_EVENT`; a body
/// that ends before the reply finished throws `INCOMPLETE_STREAM`. After a throw the reply is over.
///
/// Cited sources (a `source` event, a data frame's `sources`) become `.part(.source(…))` events after the
/// text so far. A source without a title, with a link that is not an absolute `http(s)` URL, or past
/// `ChatPolicy.maximumPartsPerReply` - 1 sources on this stream throws `INVALID_EVENT` for its frame (nothing of
/// that frame is reported; what came before stands). A `finish` whose message lists sources gives the answer
/// the server's parts: its text, the tool calls that streamed, then those sources.
///
/// ```swift
/// var mapper = ReplyStreamMapper(sending: payload, at: Date())
/// for item in try decoder.feed(chunk) {
///   if case .event(let event) = item { for reply in try mapper.map(event) { continuation.yield(reply) } }
/// }
/// for reply in try mapper.finish() { continuation.yield(reply) }
/// ```
public struct ReplyStreamMapper: ReplyMapping {
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
  /// The sources one stream may bring (`ChatPolicy.maximumSourcesPerMessage`), and how many it brought.
  private let maximumSources: Int
  private var sourceCount = 0
  /// The tool calls that streamed, in order, for the parts of a `finish` that cites sources.
  private var toolCallIDs: [ToolCallID] = []
  /// Names of the parts this stream reported (and of its tool calls, which share their space).
  private var partIDs = UniquePartIDs()
  /// Data frames of a new conversation's reply that came before any frame named the conversation, held
  /// until one does (Ago names a new thread late), as decoded, and their bytes, bounded by
  /// `maximumReplyBytes`.
  private var heldFrames: [(frame: DataFrame, event: ServerSentEvent)] = []
  private var heldBytes = 0
  private let maximumHeldBytes: Int

  /// A mapper for the reply to `payload`; `receivedAt` (the device's clock) stands in for times the server
  /// leaves out, and `policy` bounds the sources a reply may cite (`maximumPartsPerReply`).
  public init(sending payload: SendPayload, at receivedAt: Date, policy: ChatPolicy = ChatPolicy()) {
    userMessage = Message(
      clientID: payload.clientID, role: .user, text: payload.text, createdAt: receivedAt, delivery: .sent,
      attachments: payload.attachments)
    conversationID = payload.conversationID
    self.receivedAt = receivedAt
    maximumSources = policy.maximumSourcesPerMessage
    maximumHeldBytes = policy.maximumReplyBytes
  }

  /// A mapper for a regenerated reply in `conversation`.
  public init(regeneratingIn conversation: ConversationID, at receivedAt: Date, policy: ChatPolicy = ChatPolicy()) {
    conversationID = conversation
    self.receivedAt = receivedAt
    maximumSources = policy.maximumSourcesPerMessage
    maximumHeldBytes = policy.maximumReplyBytes
  }

  /// A mapper for the rest of `reply` in `conversation`, resumed after its connection dropped
  /// (`HTTPChatBackend.resumeReply(from:)`): the reply has started and its question was accepted on the
  /// first connection, so the frames after the cursor only go on with it. A finish that carries no text
  /// leaves the text the store streamed (and its sources in `Message.sources` only: where they go among
  /// the parts that streamed is not known here).
  public init(
    resuming reply: ServerMessageID, in conversation: ConversationID, at receivedAt: Date,
    policy: ChatPolicy = ChatPolicy()
  ) {
    conversationID = conversation
    replyID = reply
    hasStarted = true
    isResumed = true
    self.receivedAt = receivedAt
    maximumSources = policy.maximumSourcesPerMessage
    maximumHeldBytes = policy.maximumReplyBytes
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
      if !toolCallIDs.contains(call.id) {
        toolCallIDs.append(call.id)
        partIDs.reserve(call.id.rawValue)
      }
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
    case "source":
      let sources = try counted([decode(WireSource.self, event)])
      return try opening() + parts(citing: sources, event)
    case "suggestions":
      return try opening() + [.suggested(decode(SuggestionsFrame.self, event).suggestions)]
    case "finish": return try finish(decode(FinishFrame.self, event))
    case "error":
      let frame = try decode(WireError.self, event)
      throw Self.serverError(frame)
    default:
      return []  // a type this client does not know: ignored, as the protocol says
    }
  }

  /// Appends the store events `event` stands for to `events` (the `ReplyMapping` form of `map(_:)`).
  public mutating func map(_ event: ServerSentEvent, into events: inout [ReplyEvent]) throws(ChatError) {
    events += try map(event)
  }

  /// The end of the body: throws `INCOMPLETE_STREAM` unless the reply finished; the frames said everything,
  /// so the end adds no event.
  @discardableResult
  public func finish() throws(ChatError) -> [ReplyEvent] {
    guard isFinished else {
      throw ChatError(.incompleteStream, "The reply's stream ended before the reply was finished.")
    }
    return []
  }

  /// A transport failure stays what it is: our protocol resumes a dropped reply (`resumeReply`), so a drop
  /// is not the reply's end.
  public func failure(ofTransport error: ChatError) -> ChatError { error }

  /// Our protocol's streams carry nothing besides the reply.
  public var hasSideEvents: Bool { false }

  /// None: our protocol's streams carry nothing besides the reply.
  public func takeSideEvents() -> [Never] { [] }

  // MARK: - Style A: data frames

  private mutating func dataFrame(_ event: ServerSentEvent) throws(ChatError) -> [ReplyEvent] {
    let frame = try event.withDataUTF8 { bytes throws(ChatError) -> DataFrame? in
      if Self.isKeepAliveWord(bytes) { return nil }
      return try WireJSON.decode(DataFrame.self, from: Data(bytes), what: "a reply frame")
    }
    guard let frame else { return [] }
    if frame.type == "heartbeat" { return [] }
    if let id = frame.conversationId ?? frame.threadId ?? frame.thread?.id {
      conversationID = conversationID ?? ConversationID(id)
    }
    // A new conversation no frame has named yet: this frame waits for the name, and so do the ones before.
    if conversationID == nil, userMessage != nil {
      if frame.status == "ERROR" { throw Self.serverError(frame.error ?? WireError(code: nil, message: nil)) }
      guard frame.status != "DONE" else {
        throw ChatError(
          .invalidEvent,
          "The server's reply to a new conversation never named the conversation (conversation_id, thread_id or "
            + "thread.id on a frame).")
      }
      heldBytes += event.withDataUTF8 { $0.count }
      guard heldBytes <= maximumHeldBytes else {
        throw ChatError(
          .replyTooLarge, "The reply to a new conversation passed \(maximumHeldBytes) bytes before naming it.")
      }
      heldFrames.append((frame, event))
      return []
    }
    var events: [ReplyEvent] = []
    if !heldFrames.isEmpty {
      let held = heldFrames
      heldFrames = []
      for earlier in held { events += try named(earlier.frame, earlier.event) }
    }
    return try events + named(frame, event)
  }

  /// A data frame of a conversation that is named.
  private mutating func named(_ frame: DataFrame, _ event: ServerSentEvent) throws(ChatError) -> [ReplyEvent] {
    // Read before anything of the frame is applied: a bad source fails the frame whole.
    let sources = try counted(frame.sources ?? [])
    if let id = frame.messageId { replyID = replyID ?? ServerMessageID(id) }
    var events = try accept(frame.userMessage) + opening()
    if let title = frame.thread?.title, !title.isEmpty { events.append(.described(title: title, status: nil)) }
    if let content = frame.content, !content.isEmpty { events.append(delta(content)) }
    events += parts(citing: sources, event)
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
      message = try wire.uncited()
      let cited = try wire.sources?.sources(maximum: maximumSources) ?? []
      if message.role == .user { message.role = .assistant }
      if message.text.isEmpty, !isResumed { message.text = text }
      if message.text.isEmpty, isResumed {
        // The text that streamed is the store's, not here: parts built now would have none of it.
        for source in cited where !message.sources.contains(source) { message.sources.append(source) }
      } else {
        message.cite(cited, after: toolCallIDs)
      }
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

  /// Reads a frame's sources and counts them against the stream's bound; throws for the first that cannot
  /// be read, or when they pass the bound.
  private mutating func counted(_ wires: [WireSource]) throws(ChatError) -> [KnowledgeSource] {
    guard wires.count <= maximumSources - sourceCount else {
      throw ChatError(
        .invalidEvent, "The reply cites more than \(maximumSources) sources (ChatPolicy.maximumPartsPerReply - 1).")
    }
    var sources: [KnowledgeSource] = []
    for wire in wires { sources.append(try wire.source()) }
    sourceCount += sources.count
    return sources
  }

  /// A source part for each source, after the text so far. A source without an ID is named by its frame's
  /// SSE ID, unique within the reply, so one that comes after a resume never takes the name of one before.
  private mutating func parts(citing sources: [KnowledgeSource], _ event: ServerSentEvent) -> [ReplyEvent] {
    sources.enumerated().map { index, source in
      let frame = event.lastEventID.isEmpty ? "\(sourceCount - sources.count + index + 1)" : event.lastEventID
      return .part(MessagePart(id: partIDs.next(source.partKey(orElse: "source-\(frame)")), .source(source)))
    }
  }

  /// The user's message is accepted once, at the first frame: the server's copy when it sent one.
  private mutating func accept(_ wire: WireMessage?) throws(ChatError) -> [ReplyEvent] {
    // Read even when late, so a malformed copy is never passed over.
    let server = try wire?.message(maximumSources: maximumSources)
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
  /// Ago's names for the conversation: a thread's ID, or the thread (with its title) as its REST API gives it.
  var threadId: String?
  var thread: Thread?
  var userMessage: WireMessage?
  var userMessageId: String?
  var messageId: String?
  var content: String?
  var status: String?
  var createdAt: Date?
  var error: WireError?
  var sources: [WireSource]?

  private enum CodingKeys: String, CodingKey {
    case type
    case sources
    case conversationId = "conversation_id"
    case threadId = "thread_id"
    case thread
    case userMessage = "user_message"
    case userMessageId = "user_message_id"
    case messageId = "message_id"
    case content
    case status
    case createdAt = "created_at"
    case error
  }

  struct Thread: Decodable {
    var id: String?
    var title: String?
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

private struct SuggestionsFrame: Decodable {
  var suggestions: [String]
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
