public import Foundation

/// One entry of a conversation, from the moment the user presses send (or the server delivers it) on.
///
/// Identity: `clientID` is fixed for the message's life and is the idempotency key of its send;
/// `serverID` is set once the server confirmed it. A `MessageList` never holds two entries for one message.
public struct Message: Identifiable, Hashable, Sendable, Codable {
  public var clientID: ClientMessageID
  public var serverID: ServerMessageID?
  public var role: Role
  /// Who wrote it, when the server says; used to clear that participant's typing indicator.
  public var author: ParticipantID?
  public var text: String
  /// Local time until the server confirms the message; the server's time after (server time wins).
  public var createdAt: Date
  public var editedAt: Date?
  public var delivery: Delivery
  /// For assistant messages: whether the reply is complete or was cut short. `nil` for other roles.
  public var reply: ReplyState?
  public var attachments: [MessageAttachment]
  public var rating: Rating
  public var agent: AgentInfo?
  public var sources: [KnowledgeSource]
  public var toolCalls: [ToolCall]
  public var finishReason: FinishReason?
  public var usage: Usage?
  /// True while `text` is only a stand-in for an attachment ("Image", "Audio"); a transcript replaces it.
  public var isPlaceholderText: Bool

  public var id: ClientMessageID { clientID }

  public init(
    clientID: ClientMessageID, serverID: ServerMessageID? = nil, role: Role, author: ParticipantID? = nil,
    text: String, createdAt: Date, editedAt: Date? = nil, delivery: Delivery = .sent, reply: ReplyState? = nil,
    attachments: [MessageAttachment] = [], rating: Rating = .none, agent: AgentInfo? = nil,
    sources: [KnowledgeSource] = [], toolCalls: [ToolCall] = [], finishReason: FinishReason? = nil,
    usage: Usage? = nil, isPlaceholderText: Bool = false
  ) {
    self.clientID = clientID
    self.serverID = serverID
    self.role = role
    self.author = author
    self.text = text
    self.createdAt = createdAt
    self.editedAt = editedAt
    self.delivery = delivery
    self.reply = reply
    self.attachments = attachments
    self.rating = rating
    self.agent = agent
    self.sources = sources
    self.toolCalls = toolCalls
    self.finishReason = finishReason
    self.usage = usage
    self.isPlaceholderText = isPlaceholderText
  }

  /// Confirmed by the server, or an assistant reply that belongs in the timeline (even if interrupted).
  public var isCommitted: Bool {
    switch delivery {
    case .sent: return true
    case .pending, .sending, .failed: return false
    }
  }

  /// The position of a committed message in server order: server time, then server ID (client ID for
  /// a reply the server never confirmed), so equal timestamps still order the same way everywhere.
  public var orderKey: MessageOrderKey {
    MessageOrderKey(createdAt: createdAt, tieBreak: serverID?.rawValue ?? clientID.rawValue)
  }
}

/// Server order of committed messages.
public struct MessageOrderKey: Hashable, Comparable, Sendable, Codable {
  public var createdAt: Date
  public var tieBreak: String

  public init(createdAt: Date, tieBreak: String) {
    self.createdAt = createdAt
    self.tieBreak = tieBreak
  }

  public static func < (lhs: Self, rhs: Self) -> Bool {
    (lhs.createdAt, lhs.tieBreak) < (rhs.createdAt, rhs.tieBreak)
  }
}

/// Who a message is from.
public enum Role: String, Hashable, Sendable, Codable, CaseIterable {
  case user
  case assistant
  case humanAgent
  case system
}

/// Where a message the user wrote is on its way to the server.
///
/// `pending -> sending -> sent`, or `sending -> failed`; `failed -> sending` on retry (same client ID).
/// Messages from others arrive as `sent`.
public enum Delivery: Hashable, Sendable, Codable {
  /// Queued: waiting for the connection or for the conversation to be created. Moves to `sending`.
  case pending
  /// Its send request is in flight. Moves to `sent` or `failed`.
  case sending
  /// Confirmed by the server (or delivered by it). Final.
  case sent
  /// The send failed; the message stays in the list. `error.retryable` says whether retry may help.
  case failed(ChatError)
}

/// The state of an assistant reply once it is in the list.
public enum ReplyState: Hashable, Sendable, Codable {
  /// Still receiving deltas. Only the separate streaming reply is in this state.
  case streaming
  /// Finished by the server.
  case complete
  /// Cut short (an error, or a stream that ended without finishing); its partial text is kept and
  /// regenerating it is allowed.
  case interrupted(ChatError)
}

/// A user's rating of an answer.
public enum Rating: String, Hashable, Sendable, Codable, CaseIterable {
  case up
  case down
  case none
}

/// The agent that wrote a message, as the seed SDKs' wire models carry it.
public struct AgentInfo: Hashable, Sendable, Codable {
  public var id: ParticipantID
  public var name: String
  public var avatarURL: URL?

  public init(id: ParticipantID, name: String, avatarURL: URL? = nil) {
    self.id = id
    self.name = name
    self.avatarURL = avatarURL
  }
}

/// A knowledge-base source an answer cites.
public struct KnowledgeSource: Hashable, Sendable, Codable {
  public var title: String
  public var url: URL?

  public init(title: String, url: URL? = nil) {
    self.title = title
    self.url = url
  }
}

/// Why the server finished a reply.
public struct FinishReason: StringIdentifier {
  public let rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }
  public static let stop: FinishReason = "stop"
  public static let length: FinishReason = "length"
  public static let toolCalls: FinishReason = "tool_calls"
  public static let contentFilter: FinishReason = "content_filter"
}

/// What a reply cost.
public struct Usage: Hashable, Sendable, Codable {
  public var credits: Double
  public var inputTokens: Int
  public var outputTokens: Int

  public init(credits: Double = 0, inputTokens: Int = 0, outputTokens: Int = 0) {
    self.credits = credits
    self.inputTokens = inputTokens
    self.outputTokens = outputTokens
  }
}
