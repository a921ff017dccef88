public import Foundation

/// The assistant reply being streamed, kept apart from the committed messages so a text delta costs
/// O(delta) and never touches the message list (see `StreamedText`).
///
/// It is shown after the messages. `finish` turns it into the server's message; an error commits it with its
/// partial text as `failed` (or `rejected`, `cancelled`), and a stream that ends or drops without finishing
/// as `truncated` (see `ReplyState`).
///
/// A copy is two references: the text, and every other field behind one more. A plain delta changes only
/// the text, which appends in place even while a snapshot shares it (see `StreamedText`), so streaming with
/// a UI holding its last frame allocates nothing per delta; a part delta then copies the fields box and the
/// parts array (a reference per part) and appends the part's text in place.
public struct StreamingReply: Sendable {
  /// The fields but `text`, behind one reference.
  @usableFromInline var fields: CopyOnWrite<Fields>

  /// The request whose stream this is: a send, or a regeneration.
  @inlinable public var requestID: RequestID {
    _read { yield fields.value.requestID }
    _modify { yield &fields.value.requestID }
  }
  /// The client ID the reply will have if it is committed without a server message (interrupted).
  @inlinable public var clientID: ClientMessageID {
    _read { yield fields.value.clientID }
    set {
      fields.value.clientID = newValue
      fields.value.row = [newValue]
    }
  }
  /// The text received so far; each delta appends in O(delta).
  public var text: StreamedText
  /// The tools the agent has called so far in this reply, in call order.
  @inlinable public var toolCalls: [ToolCall] {
    _read { yield fields.value.toolCalls }
    _modify { yield &fields.value.toolCalls }
  }
  /// The reply's parts so far, in the order they started (see `MessagePart`); empty while the reply streams
  /// as plain text. A delta to a part appends in O(delta) to that part's text; while a snapshot holds the
  /// reply, it first copies the fields box and the parts array (a reference per part), which is why parts
  /// live with the other fields: a plain reply stays two references, the copy every frame makes.
  @inlinable public var parts: [StreamingPart] {
    _read { yield fields.value.parts }
    _modify { yield &fields.value.parts }
  }
  /// The agent writing the reply, when the server said which.
  @inlinable public var agent: AgentInfo? {
    _read { yield fields.value.agent }
    _modify { yield &fields.value.agent }
  }
  /// When the reply started, on the local device clock, moved to just after the newest committed message so
  /// it never sorts before the question; an interrupted reply keeps it as its `createdAt`.
  @inlinable public var startedAt: Date {
    _read { yield fields.value.startedAt }
    _modify { yield &fields.value.startedAt }
  }
  /// When this reply regenerates an earlier answer: that answer's client ID. It and everything after it
  /// are replaced only once this reply finishes.
  @inlinable public var replacing: ClientMessageID? {
    _read { yield fields.value.replacing }
    _modify { yield &fields.value.replacing }
  }
  /// The server's ID of the message this reply will become, when the server named it at the start; realtime
  /// events about the reply find it by this ID.
  @inlinable public var serverID: ServerMessageID? {
    _read { yield fields.value.serverID }
    _modify { yield &fields.value.serverID }
  }
  /// For a reply streaming over the realtime connection, the request of the connection that carries it.
  /// Losing that connection interrupts the reply, so while this is set that connection is the live one.
  @inlinable public var connection: RequestID? {
    _read { yield fields.value.connection }
    _modify { yield &fields.value.connection }
  }
  /// What the agent asked the user in this reply so far (approvals, questions), in the order it asked;
  /// answers given while the reply still streams are kept on them. See `InputRequest`.
  @inlinable public var inputRequests: [InputRequest] {
    _read { yield fields.value.inputRequests }
    _modify { yield &fields.value.inputRequests }
  }
  /// For a continuation run (`ReplyState.awaitingToolResults` or `awaitingInput` answered): how much of
  /// the reply the earlier run wrote. The reply starts with that answer's text, parts and tool calls, in the
  /// answer's own row; nil for a reply that started fresh.
  @inlinable public var continuing: ContinuationSeed? {
    _read { yield fields.value.continuing }
    _modify { yield &fields.value.continuing }
  }
  /// The position of the last event applied to this reply, as its stream numbered it (nil: its stream
  /// numbers none). An adapter resumes a dropped stream from here; an event it replays at or before it is
  /// dropped (`ConversationAction.positioned`).
  @inlinable public var resumePosition: StreamPosition? {
    _read { yield fields.value.resumePosition }
    _modify { yield &fields.value.resumePosition }
  }
  /// Set while the reply's stream has dropped and is being resumed (see `ReplyResumption`): the reply
  /// keeps its row and what it streamed meanwhile.
  @inlinable public var resumption: ReplyResumption? {
    _read { yield fields.value.resumption }
    _modify { yield &fields.value.resumption }
  }
  /// How many UTF-8 bytes of `text` are shown, for paced and instant presentation; nil: all of it.
  @inlinable public var presentedUTF8Count: Int? {
    _read { yield fields.value.presentedUTF8Count }
    _modify { yield &fields.value.presentedUTF8Count }
  }

  /// A reply that has just started: no text and no tool calls yet.
  public init(
    requestID: RequestID, clientID: ClientMessageID, text: StreamedText = StreamedText(), toolCalls: [ToolCall] = [],
    agent: AgentInfo? = nil, startedAt: Date, replacing: ClientMessageID? = nil, serverID: ServerMessageID? = nil
  ) {
    self.text = text
    fields = CopyOnWrite(
      Fields(
        requestID: requestID, clientID: clientID, toolCalls: toolCalls, agent: agent, startedAt: startedAt,
        replacing: replacing, serverID: serverID, connection: nil, presentedUTF8Count: nil, row: [clientID]))
  }

  /// The reply's row, `[clientID]`, as a set made once per reply.
  var row: Set<ClientMessageID> { fields.value.row }

  /// The bytes the reply has streamed: its text, its reasoning and its tool calls' streamed input, which
  /// `ChatPolicy.maximumReplyBytes` bounds together.
  public var streamedUTF8Count: Int { text.utf8Count &+ fields.value.partUTF8Count }

  /// Counts `bytes` more streamed into a reasoning or tool-input part.
  package mutating func countPartBytes(_ bytes: Int) { fields.value.partUTF8Count &+= bytes }

  /// Sets the parts whole, as a restore does, with their streamed bytes counted anew.
  package mutating func restoreParts(_ parts: [StreamingPart]) {
    fields.value.parts = parts
    fields.value.partUTF8Count = parts.reduce(0) { $1.kind == .text ? $0 : $0 + $1.text.utf8Count }
  }

  /// The reply's parts as a committed message holds them, each open part closed as it stands.
  public var committedParts: [MessagePart] { parts.map(\.committed) }

  /// Client-executed tool calls so far, which `ChatPolicy.clientToolCallLimit` bounds.
  public var clientToolCallCount: Int { toolCalls.count { $0.execution == .client } }

  /// The text to show now: all of it while streaming as it arrives, the released part when paced, nothing
  /// until finished when instant (`ChatPolicy.replyPresentation`). Never splits a character.
  public var presentedText: String {
    guard let presented = presentedUTF8Count else { return text.string }
    return text.substring(fromUTF8: 0, toUTF8: presented)
  }
}

extension StreamingReply {
  /// The fields a delta leaves alone.
  @usableFromInline
  struct Fields: Equatable, Sendable, Codable {
    @usableFromInline var requestID: RequestID
    @usableFromInline var clientID: ClientMessageID
    @usableFromInline var toolCalls: [ToolCall]
    @usableFromInline var agent: AgentInfo?
    @usableFromInline var startedAt: Date
    @usableFromInline var replacing: ClientMessageID?
    @usableFromInline var serverID: ServerMessageID?
    @usableFromInline var connection: RequestID?
    @usableFromInline var presentedUTF8Count: Int?
    @usableFromInline var parts: [StreamingPart] = []
    @usableFromInline var inputRequests: [InputRequest] = []
    @usableFromInline var continuing: ContinuationSeed?
    @usableFromInline var resumePosition: StreamPosition?
    @usableFromInline var resumption: ReplyResumption?
    /// The bytes streamed into parts other than text (reasoning, tool input), counted as they stream
    /// (derived from the parts: not encoded).
    @usableFromInline var partUTF8Count = 0
    /// `[clientID]`, made once per reply: a frame whose only change is this reply's next delta hands it out
    /// as its change set's `updated` rows, where making the set each frame was an allocation and a hash.
    @usableFromInline var row: Set<ClientMessageID> = []

    private enum CodingKeys: String, CodingKey {
      case requestID, clientID, toolCalls, agent, startedAt, replacing, serverID, connection, presentedUTF8Count
      case resumePosition, resumption
    }
  }
}

/// How much of a continuation run's reply the earlier run wrote (`StreamingReply.continuing`): what
/// streams after it is this run's.
public struct ContinuationSeed: Hashable, Sendable, Codable {
  /// The UTF-8 bytes the reply had streamed when the continuation started (`streamedUTF8Count`).
  public var streamedUTF8Count: Int
  /// The tool calls the earlier run made; calls after these are this run's.
  public var toolCallCount: Int
  /// The parts the earlier run made.
  public var partCount: Int
  /// What the earlier runs cost; the finished answer's `usage` adds this run's to it.
  public var usage: Usage?

  /// The seed of a reply that continues with these counts.
  public init(streamedUTF8Count: Int, toolCallCount: Int, partCount: Int, usage: Usage? = nil) {
    self.streamedUTF8Count = streamedUTF8Count
    self.toolCallCount = toolCallCount
    self.partCount = partCount
    self.usage = usage
  }
}

extension StreamingReply: Equatable {
  /// Field by field; the text first, as two frames of one reply differ there (its length answers), then the
  /// bytes streamed into other parts (a reasoning or tool-input delta changes that count, and comparing it
  /// spares copying out the fields and every part to find the one that grew), and the other fields by
  /// identity when the two share them.
  @inlinable public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.text == rhs.text && lhs.fields.value.partUTF8Count == rhs.fields.value.partUTF8Count
      && lhs.fields == rhs.fields
  }

  /// `==` on two optional replies, reading both in place: `Optional`'s generic `==` copies both (a retain and
  /// a release of each reply's two references), and a frame compares them on every delta.
  @inlinable static func areEqual(_ lhs: StreamingReply?, _ rhs: StreamingReply?) -> Bool {
    if lhs == nil || rhs == nil { return lhs == nil && rhs == nil }
    return lhs! == rhs!
  }
}

extension StreamingReply: Codable {
  private enum TextKey: String, CodingKey { case text, parts, inputRequests, continuing }

  /// Decodes the JSON object `encode(to:)` writes: one key per field (`parts`, `inputRequests` and
  /// `continuing` may be left out: none).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: TextKey.self)
    text = try container.decode(StreamedText.self, forKey: .text)
    var fields = try Fields(from: decoder)
    fields.row = [fields.clientID]
    fields.inputRequests = try container.decodeIfPresent([InputRequest].self, forKey: .inputRequests) ?? []
    fields.continuing = try container.decodeIfPresent(ContinuationSeed.self, forKey: .continuing)
    self.fields = CopyOnWrite(fields)
    restoreParts(try container.decodeIfPresent([StreamingPart].self, forKey: .parts) ?? [])
  }

  /// Encodes one JSON object with a key per field, leaving out `parts` when there are none.
  public func encode(to encoder: any Encoder) throws {
    try fields.value.encode(to: encoder)
    var container = encoder.container(keyedBy: TextKey.self)
    try container.encode(text, forKey: .text)
    if !parts.isEmpty { try container.encode(parts, forKey: .parts) }
    if !inputRequests.isEmpty { try container.encode(inputRequests, forKey: .inputRequests) }
    try container.encodeIfPresent(continuing, forKey: .continuing)
  }
}

extension StreamingReply: CustomReflectable {
  /// The fields by name, as if they were stored here (a state diff walks them).
  public var customMirror: Mirror {
    let text: Mirror.Child = ("text", text)
    return Mirror(self, children: [text] + Array(Mirror(reflecting: fields.value).children), displayStyle: .struct)
  }
}
