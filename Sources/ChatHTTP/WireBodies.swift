import ConversationState
package import Foundation

/// One call's method, path under the base URL, query, body and idempotency key.
package struct Endpoint: Sendable {
  var method: String
  var path: String
  var query: [String: String] = [:]
  var body: Data?
  var key: String?
  var lastEventID = ""

  package static func get(_ path: String, query: [String: String] = [:]) -> Endpoint {
    Endpoint(method: "GET", path: path, query: query)
  }

  package static func post(_ path: String, body: Data, key: String? = nil) -> Endpoint {
    Endpoint(method: "POST", path: path, body: body, key: key)
  }

  /// A partial update of the resource at `path`: it sets what `body` names, so sending it again does no harm
  /// (no `Idempotency-Key`).
  package static func patch(_ path: String, body: Data) -> Endpoint {
    Endpoint(method: "PATCH", path: path, body: body)
  }

  /// A deletion of the resource at `path`, without a body (no `Idempotency-Key`: a repeat finds it gone).
  package static func delete(_ path: String) -> Endpoint {
    Endpoint(method: "DELETE", path: path)
  }
}

extension Rating {
  var wire: String {
    switch self {
    case .up: "up"
    case .down: "down"
    case .none: "none"
    }
  }
}

// MARK: - Requests

struct SendBody: Encodable {
  var conversationId: String?
  var clientId: String
  var text: String
  var attachments: [WireAttachment]
  /// Only in a conversation with branches (`SendPayload.placement`): a server that knows none reads the body
  /// as before. At most one of the two is set.
  var parentId: WireParent?
  var siblingOf: String?

  private enum CodingKeys: String, CodingKey {
    case conversationId = "conversation_id"
    case clientId = "client_id"
    case parentId = "parent_id"
    case siblingOf = "sibling_of"
    case text, attachments
  }

  // Written by hand so a new conversation's `conversation_id` is an explicit null, as documented.
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(conversationId, forKey: .conversationId)
    try container.encode(clientId, forKey: .clientId)
    try container.encode(text, forKey: .text)
    if !attachments.isEmpty { try container.encode(attachments, forKey: .attachments) }
    try container.encodeIfPresent(parentId, forKey: .parentId)
    try container.encodeIfPresent(siblingOf, forKey: .siblingOf)
  }
}

/// `parent_id` as the protocol writes a placement: the message's ID, or an explicit null for the first.
enum WireParent: Encodable {
  case after(String)
  case first

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .after(let message): try container.encode(message)
    case .first: try container.encodeNil()
    }
  }
}

struct WireAttachment: Encodable {
  var name: String
  var mimeType: String
  var url: String

  private enum CodingKeys: String, CodingKey {
    case name, url
    case mimeType = "mime_type"
  }
}

struct RegenerateBody: Encodable {
  var replyTo: String
  var answer: String?

  private enum CodingKeys: String, CodingKey {
    case replyTo = "reply_to"
    case answer
  }
}

struct RatingBody: Encodable {
  var rating: String
  var comment: String?
}

struct TicketBody: Encodable {
  var conversationId: String?
  var subject: String
  var body: String
  var category: String?
  var priority: String

  private enum CodingKeys: String, CodingKey {
    case conversationId = "conversation_id"
    case subject, body, category, priority
  }
}

struct ToolResultBody: Encodable {
  var toolCallId: String
  var result: JSONValue?
  var error: WireError?

  private enum CodingKeys: String, CodingKey {
    case toolCallId = "tool_call_id"
    case result, error
  }
}

/// An outbox batch as the protocol writes it: each operation flat, with its sequence number and `kind`.
struct OutboxBatchBody: Encodable {
  var batchId: String
  var epoch: UInt64
  var firstSequence: Int
  var operations: [Operation]

  struct Operation: Encodable {
    var id: String
    var sequence: Int
    var conversationId: String?
    var enqueuedAt: Date
    var kind: String
    var clientId: String?
    var parentId: WireParent?
    var siblingOf: String?
    var text: String?
    var createdAt: Date?
    var messageId: String?
    var rating: String?
    var comment: String?
    var upTo: String?
    var hostKind: String?
    var payload: JSONValue?

    private enum CodingKeys: String, CodingKey {
      case id, sequence, kind, text, rating, comment, payload
      case hostKind = "host_kind"
      case conversationId = "conversation_id"
      case enqueuedAt = "enqueued_at"
      case clientId = "client_id"
      case parentId = "parent_id"
      case siblingOf = "sibling_of"
      case createdAt = "created_at"
      case messageId = "message_id"
      case upTo = "up_to"
    }

    init(sequence: Int, _ operation: OutboxOperation) {
      id = operation.id.rawValue
      self.sequence = sequence
      conversationId = operation.conversationID?.rawValue
      enqueuedAt = operation.enqueuedAt
      switch operation.kind {
      case .send(let outgoing):
        kind = "send"
        clientId = outgoing.clientID.rawValue
        parentId = outgoing.placement?.wireParent
        siblingOf = outgoing.placement?.wireSibling
        text = outgoing.text
        createdAt = outgoing.createdAt
      case .rateAnswer(let message, let rating, _):
        kind = "rate_answer"
        messageId = message.rawValue
        self.rating = rating.wire
      case .rateConversation(let rating, let comment):
        kind = "rate_conversation"
        self.rating = rating.wire
        self.comment = comment
      case .markRead(let upTo):
        kind = "mark_read"
        self.upTo = upTo.rawValue
      case .host(let operation):
        kind = "host"
        hostKind = operation.kind
        payload = operation.payload
      }
    }
  }

  private enum CodingKeys: String, CodingKey {
    case epoch, operations
    case batchId = "batch_id"
    case firstSequence = "first_sequence"
  }

  init(_ batch: OutboxBatch) {
    batchId = batch.id
    epoch = batch.epoch
    firstSequence = batch.firstSequence
    operations = batch.numbered.map { Operation(sequence: $0.sequence, $0.operation) }
  }
}

// MARK: - Answers

struct HistoryBody: Decodable {
  var messages: [WireMessage]
  var nextCursor: String?
  var hasMore: Bool?
  var title: String?
  var status: String?
  var readUpTo: String?
  var unreadCount: Int?
  var totalCount: Int?

  private enum CodingKeys: String, CodingKey {
    case messages, title, status
    case nextCursor = "next_cursor"
    case hasMore = "has_more"
    case readUpTo = "read_up_to"
    case unreadCount = "unread_count"
    case totalCount = "total_count"
  }
}

struct ConversationsBody: Decodable {
  var conversations: [WireConversation]
  var nextCursor: String?
  var hasMore: Bool?
  var totalCount: Int?

  private enum CodingKeys: String, CodingKey {
    case conversations
    case nextCursor = "next_cursor"
    case hasMore = "has_more"
    case totalCount = "total_count"
  }
}

/// A row of the list. What the user manages (`pinned_at`, `archived`, `unread`, `title_set_by_user`) is
/// optional: absent or `null` is not pinned, not archived, not marked, a title the user did not give.
struct WireConversation: Decodable {
  var id: String
  var title: String?
  var status: String?
  var lastActivityAt: Date?
  var unreadCount: Int?
  var lastMessagePreview: String?
  var pinnedAt: Date?
  var archived: Bool?
  var unread: Bool?
  var titleSetByUser: Bool?

  private enum CodingKeys: String, CodingKey {
    case id, title, status, archived, unread
    case lastActivityAt = "last_activity_at"
    case unreadCount = "unread_count"
    case lastMessagePreview = "last_message_preview"
    case pinnedAt = "pinned_at"
    case titleSetByUser = "title_set_by_user"
  }

  var summary: ConversationSummary {
    var summary = ConversationSummary(
      id: ConversationID(id), title: title, status: status.flatMap(ConversationStatus.init(wire:)) ?? .ongoing,
      lastActivityAt: lastActivityAt, unreadCount: unreadCount ?? 0, lastMessagePreview: lastMessagePreview,
      pinnedAt: pinnedAt, isArchived: archived ?? false)
    summary.isMarkedUnread = unread ?? false
    summary.isTitleSetByUser = titleSetByUser ?? false
    return summary
  }
}

struct TicketReceiptBody: Decodable {
  var ticketId: String
  var url: String?

  private enum CodingKeys: String, CodingKey {
    case ticketId = "ticket_id"
    case url
  }
}

/// A batch the server took nothing of because it numbers the outbox elsewhere: `409` with
/// `{"error": {"code": "OUTBOX_OUT_OF_SYNC", …}, "epoch": 4, "next_sequence": 1}`.
struct OutboxOutOfSyncBody: Decodable {
  var error: WireError?
  var epoch: UInt64?
  var nextSequence: Int?

  private enum CodingKeys: String, CodingKey {
    case error, epoch
    case nextSequence = "next_sequence"
  }

  /// Where the server numbers, when `data` is such a refusal; nil for any other 409 (an error like others).
  static func sequencing(in data: Data) -> OutboxSequencing? {
    guard let body = try? WireJSON.decoder().decode(Self.self, from: data),
      body.error?.code == ChatError.Code.outboxOutOfSync.rawValue, let epoch = body.epoch
    else { return nil }
    return OutboxSequencing(epoch: epoch, nextSequence: body.nextSequence ?? 1)
  }
}

struct OutboxReceiptBody: Decodable {
  var duplicate: Bool?
  var rejections: [Rejection]?

  struct Rejection: Decodable {
    var operationId: String
    var reason: String
    var message: String?

    private enum CodingKeys: String, CodingKey {
      case operationId = "operation_id"
      case reason, message
    }
  }
}

/// The anonymous user's contact details as the protocol writes them; a field not given is `null`, so the
/// server replaces what it had.
struct ContactBody: Encodable {
  var email: String?
  var name: String?

  init(_ details: ContactDetails) {
    email = details.email
    name = details.name
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(email, forKey: .email)
    try container.encode(name, forKey: .name)
  }

  private enum CodingKeys: String, CodingKey { case email, name }
}

extension MessagePlacement {
  /// `parent_id`: the message a send follows, or null for the first; nil for a placement written as
  /// `sibling_of`.
  var wireParent: WireParent? {
    switch self {
    case .after(let message): .after(message.rawValue)
    case .first: .first
    case .beside: nil
    }
  }

  /// `sibling_of`: the message whose parent a send follows (an edit of a message whose parent this device
  /// has not loaded).
  var wireSibling: String? {
    if case .beside(let message) = self { return message.rawValue }
    return nil
  }
}
