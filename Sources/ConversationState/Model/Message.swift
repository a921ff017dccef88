public import Foundation

/// One entry of a conversation, from the moment the user presses send (or the server delivers it) on.
///
/// Identity: `clientID` is fixed for the message's life and is the idempotency key of its send;
/// `serverID` is set once the server confirmed it. A `MessageList` never holds two entries for one message.
public struct Message: Identifiable, Hashable, Sendable, Codable {
  // Stored widest first (16-byte, then 8-byte, then 1-byte fields), so the struct has no padding: a
  // conversation holds tens of thousands of these. Three fields most messages leave nil (agent, usage, edit
  // time) live out of line, together. The mirror lists the fields in reading order (see `customMirror`).
  /// The ID the client gave the message; fixed for its life and sent as its idempotency key.
  public var clientID: ClientMessageID
  /// The server's ID, set once the server confirmed or delivered the message; `nil` until then.
  public var serverID: ServerMessageID?
  /// Who wrote it, when the server says; used to clear that participant's typing indicator.
  public var author: ParticipantID?
  /// What the message says; may be empty for a message that only carries attachments.
  public var text: String
  /// Why the server finished the reply; `nil` when it gave no reason, as for other roles.
  public var finishReason: FinishReason?
  /// Local time until the server confirms the message; the server's time after (server time wins).
  public var createdAt: Date
  /// Where the message is on its way to the server; messages from others are always `sent`.
  public var delivery: Delivery
  /// For assistant messages: how the reply ended (see `ReplyState`). `nil` for other roles.
  public var reply: ReplyState?
  /// Files attached to the message; at most `ChatPolicy.maximumAttachments` on one the user sends.
  public var attachments: [MessageAttachment]
  /// Knowledge-base articles the answer cites, for links under it.
  public var sources: [KnowledgeSource]
  /// The tools the agent called while writing this reply, in call order.
  public var toolCalls: [ToolCall]
  /// The agent, usage, edit time and parts: one reference, nil (nothing allocated) while all are unset.
  private var rare: OutOfLine<RareFields>
  /// Who the message is from: the user, the AI agent, a human agent or the system.
  public var role: Role
  /// The user's thumbs up or down on an answer; `none` until they rate it.
  public var rating: Rating
  /// True while `text` is only a stand-in for an attachment ("Image", "Audio"); a transcript replaces it.
  public var isPlaceholderText: Bool

  /// Whether the out-of-line fields' numbers (edit time, usage credits, data parts, provider metadata) are
  /// all finite; true when none is set. Read through the one reference, not field by field.
  var rareFieldsHaveOnlyFiniteNumbers: Bool {
    guard let rare = rare.value else { return true }
    return rare.editedAt.hasOnlyFiniteNumbers && (rare.usage?.credits.isFinite ?? true)
      && rare.parts.hasOnlyFiniteNumbers && (rare.providerMetadata?.hasOnlyFiniteNumbers ?? true)
  }

  /// The agent that wrote the message, when one did and the server says which.
  public var agent: AgentInfo? {
    get { rare.value?.agent }
    set { editRare { $0.agent = newValue } }
  }
  /// What producing the reply cost, when the server reports it.
  public var usage: Usage? {
    get { rare.value?.usage }
    set { editRare { $0.usage = newValue } }
  }
  /// When the message was last edited, on the server's clock; `nil` if it never was.
  public var editedAt: Date? {
    get { rare.value?.editedAt }
    set { editRare { $0.editedAt = newValue } }
  }
  /// The answer's parts in the order the agent produced them (see `MessagePart`); empty for a message
  /// without any, such as everything a user writes and a reply streamed as plain text.
  public var parts: [MessagePart] {
    get { rare.value?.parts ?? [] }
    set { editRare { $0.parts = newValue } }
  }

  /// What the agent's protocol needs to send this message back that the other fields do not hold, by
  /// protocol: the run an AG-UI answer came from (`{"ag-ui": {"runId": …}}`), a Responses answer's output
  /// items with their IDs and encrypted reasoning (`{"openai.responses": {"output": […]}}`). Stored with the
  /// message and sent back as it was kept; a UI never needs it. Nil for most messages, and for every
  /// message stored before it existed (the agent is then sent what the other fields hold: text, parts,
  /// tool calls with their arguments and outcomes).
  public var providerMetadata: JSONValue? {
    get { rare.value?.providerMetadata }
    set { editRare { $0.providerMetadata = newValue } }
  }

  /// Edits the rare fields; a message left with none of them set drops its box.
  private mutating func editRare(_ edit: (inout RareFields) -> Void) {
    var fields = rare.value ?? RareFields()
    edit(&fields)
    rare.value = fields.unlessEmpty
  }

  /// The client ID: the one identity a message keeps from send to confirmation.
  public var id: ClientMessageID { clientID }

  /// A message; the defaults describe a confirmed message with nothing attached, rated or cited.
  public init(
    clientID: ClientMessageID, serverID: ServerMessageID? = nil, role: Role, author: ParticipantID? = nil,
    text: String, createdAt: Date, editedAt: Date? = nil, delivery: Delivery = .sent, reply: ReplyState? = nil,
    attachments: [MessageAttachment] = [], rating: Rating = .none, agent: AgentInfo? = nil,
    sources: [KnowledgeSource] = [], toolCalls: [ToolCall] = [], finishReason: FinishReason? = nil,
    usage: Usage? = nil, isPlaceholderText: Bool = false, parts: [MessagePart] = [],
    providerMetadata: JSONValue? = nil
  ) {
    self.clientID = clientID
    self.serverID = serverID
    self.role = role
    self.author = author
    self.text = text
    self.createdAt = createdAt
    self.delivery = delivery
    self.reply = reply
    self.attachments = attachments
    self.rating = rating
    self.sources = sources
    self.toolCalls = toolCalls
    self.finishReason = finishReason
    self.rare = OutOfLine(
      RareFields(
        agent: agent, usage: usage, editedAt: editedAt, parts: parts, providerMetadata: providerMetadata
      ).unlessEmpty)
    self.isPlaceholderText = isPlaceholderText
  }

  /// Confirmed by the server, or an assistant reply that belongs in the timeline (even if interrupted).
  public var isCommitted: Bool {
    switch delivery {
    case .sent: return true
    case .pending, .sending, .queued, .failed: return false
    }
  }

  /// The position of a committed message in server order: server time, then server ID (client ID for
  /// a reply the server never confirmed), so equal timestamps still order the same way everywhere.
  public var orderKey: MessageOrderKey { MessageOrderKey(createdAt, serverID, clientID) }
}

/// The fields of a `Message` that most messages leave nil, kept out of line together.
struct RareFields: Hashable, Sendable {
  var agent: AgentInfo?
  var usage: Usage?
  var editedAt: Date?
  var parts: [MessagePart] = []
  var providerMetadata: JSONValue?

  /// These fields, or nil when none is set: a message with none of them set holds no box.
  var unlessEmpty: RareFields? {
    agent == nil && usage == nil && editedAt == nil && parts.isEmpty && providerMetadata == nil ? nil : self
  }
}

/// Server order of committed messages.
public struct MessageOrderKey: Hashable, Comparable, Sendable, Codable {
  /// The message's time: the server's clock once it is confirmed.
  public var createdAt: Date
  /// The server ID (or client ID) that orders messages with equal times the same way on every device.
  public var tieBreak: String

  /// A position in server order; usually read from `Message.orderKey`.
  public init(createdAt: Date, tieBreak: String) {
    self.createdAt = createdAt
    self.tieBreak = tieBreak
  }

  /// The key of a message with these fields (`Message.orderKey`): its time, then its server ID, or its client
  /// ID for a reply the server never confirmed. The message list reads the three in place to make it.
  init(_ createdAt: Date, _ serverID: ServerMessageID?, _ clientID: ClientMessageID) {
    self.init(createdAt: createdAt, tieBreak: serverID?.rawValue ?? clientID.rawValue)
  }

  /// Earlier time first; equal times by `tieBreak`, compared as strings.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    (lhs.createdAt, lhs.tieBreak) < (rhs.createdAt, rhs.tieBreak)
  }
}

/// Who a message is from.
public enum Role: String, Hashable, Sendable, Codable, CaseIterable {
  /// The person using this app.
  case user
  /// The AI agent.
  case assistant
  /// A human support agent, once one has taken the conversation over.
  case humanAgent
  /// A notice from the service itself, not written by a participant.
  case system
}

/// Where a message the user wrote is on its way to the server.
///
/// `pending -> sending -> sent`; `pending -> queued -> sent` (the server, or the offline outbox, took it for
/// later); `sending -> failed`, and `failed -> pending` on retry (same client ID). `sending -> pending` when
/// an authorization failure holds it. A relaunch fails what was `sending` (retryable). Messages from others
/// arrive as `sent`. `Docs/DESIGN.md` ("Message delivery") lists every move and its action.
public enum Delivery: Hashable, Sendable, Codable {
  /// Written, not sent yet: waiting for the connection, the credential, a rate limit, its uploads, or the
  /// message before it (a conversation's messages go out one at a time). Moves to `sending`, or `queued`
  /// once the offline outbox has it on disk.
  case pending
  /// Its send request is in flight. Moves to `queued`, `sent` or `failed` (or back to `pending` when an
  /// authorization failure holds it).
  case sending
  /// The server accepted it for delivery but has not delivered it yet (and gave no message ID). Moves to
  /// `sent` when its copy arrives over realtime, a sync or a history page; it is never failed by the end
  /// of its send request.
  case queued
  /// Confirmed by the server (or delivered by it). Final.
  case sent
  /// The send failed; the message stays in the list. `error.retryable` says whether retry may help.
  case failed(ChatError)
}

/// A user's rating of an answer.
public enum Rating: String, Hashable, Sendable, Codable, CaseIterable {
  /// Thumbs up: the answer helped.
  case up
  /// Thumbs down: the answer did not help.
  case down
  /// Not rated, or the rating was taken back.
  case none
}

/// The agent that wrote a message, as the seed SDKs' wire models carry it.
public struct AgentInfo: Hashable, Sendable, Codable {
  /// The agent's participant ID, as message authors and typing indicators name it.
  public var id: ParticipantID
  /// The name to show next to the agent's messages.
  public var name: String
  /// Where the agent's picture is, when it has one.
  public var avatarURL: URL?

  /// Agent details as the server sent them.
  public init(id: ParticipantID, name: String, avatarURL: URL? = nil) {
    self.id = id
    self.name = name
    self.avatarURL = avatarURL
  }
}

/// Why the server finished a reply.
public struct FinishReason: StringIdentifier {
  /// The reason as the server wrote it; reasons this client does not know are kept.
  public let rawValue: String
  /// Wraps a finish reason as received.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// The answer ended normally.
  public static let stop: FinishReason = "stop"
  /// The answer hit the model's output limit and may stop mid-sentence.
  public static let length: FinishReason = "length"
  /// The model stopped to call tools.
  public static let toolCalls: FinishReason = "tool_calls"
  /// The provider's content filter stopped the answer.
  public static let contentFilter: FinishReason = "content_filter"
}

/// What a reply cost.
public struct Usage: Hashable, Sendable, Codable {
  /// Credits the reply took from the account's balance.
  public var credits: Double
  /// Model tokens read to produce the reply (prompt and history).
  public var inputTokens: Int
  /// Model tokens written in the reply.
  public var outputTokens: Int
  /// Of the tokens written, those the model spent reasoning, when the provider says (OpenAI's
  /// `reasoning_tokens`); nil when it does not.
  public var reasoningTokens: Int?

  /// Usage as the server reported it; what it leaves out counts as zero.
  public init(credits: Double = 0, inputTokens: Int = 0, outputTokens: Int = 0, reasoningTokens: Int? = nil) {
    self.credits = credits
    self.inputTokens = inputTokens
    self.outputTokens = outputTokens
    self.reasoningTokens = reasoningTokens
  }
}

/// The tokens a conversation's replies reported, summed (`MessageList.tokenUsage`,
/// `ConversationState.tokenUsage`). Sums wrap rather than trap: a server that reports absurd counts gets
/// absurd totals, never a crash.
public struct TokenUsage: Hashable, Sendable, Codable {
  /// Tokens read, summed.
  public var inputTokens = 0
  /// Tokens written, summed.
  public var outputTokens = 0
  /// Tokens spent reasoning, summed over the replies that reported them.
  public var reasoningTokens = 0

  /// No tokens.
  public init() {}

  mutating func add(_ usage: Usage?) {
    guard let usage else { return }
    inputTokens &+= usage.inputTokens
    outputTokens &+= usage.outputTokens
    reasoningTokens &+= usage.reasoningTokens ?? 0
  }

  mutating func remove(_ usage: Usage?) {
    guard let usage else { return }
    inputTokens &-= usage.inputTokens
    outputTokens &-= usage.outputTokens
    reasoningTokens &-= usage.reasoningTokens ?? 0
  }
}
