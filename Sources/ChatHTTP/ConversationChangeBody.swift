import ConversationState
import Foundation

/// The user's change of a conversation as `PATCH B/conversations/{id}` carries it: one field per request,
/// `{"title": "…"}`, `{"pinned": true, "pinned_at": "…"}` or `{"pinned": false}`, `{"archived": …}`,
/// `{"unread": …}` (the user's mark).
struct ConversationChangeBody: Encodable {
  var change: ConversationChange

  init(_ change: ConversationChange) { self.change = change }

  private enum CodingKeys: String, CodingKey {
    case title, pinned, archived, unread
    case pinnedAt = "pinned_at"
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch change {
    case .title(let title): try container.encode(title, forKey: .title)
    case .pinned(let pinned, let at):
      try container.encode(pinned, forKey: .pinned)
      // When it was pinned orders the pins on every device; an unpin has no time to tell.
      if pinned { try container.encode(Self.time(at), forKey: .pinnedAt) }
    case .archived(let archived): try container.encode(archived, forKey: .archived)
    case .markedUnread(let marked): try container.encode(marked, forKey: .unread)
    }
  }

  /// `date` as the protocol writes times (`WireJSON.formatDate`: `2026-12-01T03:00:00.125Z`).
  static func time(_ date: Date) -> String { WireJSON.formatDate(date) }
}

extension Endpoint {
  /// `PATCH B/conversations/{id}` with the change's one field.
  static func updateConversation(_ conversation: ConversationID, _ change: ConversationChange) -> Endpoint {
    .patch("conversations/\(conversation.rawValue)", body: WireJSON.encode(ConversationChangeBody(change)))
  }

  /// `DELETE B/conversations/{id}`.
  static func deleteConversation(_ conversation: ConversationID) -> Endpoint {
    .delete("conversations/\(conversation.rawValue)")
  }
}

/// A `conversation.updated` realtime frame: the conversation, and the fields a device (or the server)
/// changed, each optional.
struct ConversationUpdatedFrame: Decodable {
  var conversationId: String
  var title: String?
  var pinned: Bool?
  var pinnedAt: Date?
  var archived: Bool?
  var unread: Bool?

  private enum CodingKeys: String, CodingKey {
    case title, pinned, archived, unread
    case conversationId = "conversation_id"
    case pinnedAt = "pinned_at"
  }

  /// One change per field the frame carries, in the order title, pinned, archived, unread. A pin without
  /// `pinned_at` is dated `receivedAt` (the device's clock); an empty title is `INVALID_EVENT`.
  func changes(receivedAt: Date) throws(ChatError) -> [ConversationChange] {
    var changes: [ConversationChange] = []
    if let title {
      guard !title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
        throw ChatError(.invalidEvent, "A \"conversation.updated\" event came with an empty title.")
      }
      changes.append(.title(title))
    }
    if let pinned { changes.append(.pinned(pinned, at: pinnedAt ?? receivedAt)) }
    if let archived { changes.append(.archived(archived)) }
    if let unread { changes.append(.markedUnread(unread)) }
    return changes
  }
}
