public import Foundation

/// One row of the user's list of conversations.
public struct ConversationSummary: Identifiable, Hashable, Sendable, Codable {
  /// How long a title taken from the customer's first message may be.
  public static let maximumTitleLength = 80
  /// How long a title the user gives (`ConversationChange.title`) may be, in characters.
  public static let maximumUserTitleLength = 200

  /// The conversation this row shows.
  public var id: ConversationID
  /// The server's title, or the customer's first message.
  public var title: String
  /// Who has the conversation now, for a badge on the row.
  public var status: ConversationStatus
  /// When the conversation last had a message, on the server's clock; realtime messages never move it back.
  public var lastActivityAt: Date
  /// Messages from others since the user last opened the conversation; never negative.
  public var unreadCount: Int
  /// The text of the newest message, for the row's second line; `nil` before any message.
  public var lastMessagePreview: String?
  /// The server's ID of the newest message the list was told of, when it had one: the same message told
  /// again counts once.
  public var lastMessageID: ServerMessageID?
  /// When the row was pinned (the device's clock for a pin made here, the server's for one it reports);
  /// nil when it is not. Pinned rows come first, earliest pinned first (`ConversationListState.shown`).
  public var pinnedAt: Date?
  /// Whether the user archived the conversation: listed only under `ConversationListState.showsArchived`.
  public var isArchived: Bool = false
  /// Whether the user marked the conversation unread: a dot on the row until it is opened (`markRead`).
  public var isMarkedUnread: Bool = false
  /// Whether `title` is one the user gave: a generated title (`ConversationListAction.titleGenerated`) or
  /// one taken from the first message never replaces it.
  public var isTitleSetByUser: Bool = false

  /// Whether the row is pinned.
  public var isPinned: Bool { pinnedAt != nil }

  /// A row as the server or a realtime event describes it; by default `ongoing`, with nothing unread.
  /// A summary as the server sends it. A server that gives no title (nil or empty) gets one from the
  /// first message the user writes; one that gives no date sorts last (`Date.distantPast`) until activity
  /// arrives.
  public init(
    id: ConversationID, title: String? = nil, status: ConversationStatus = .ongoing, lastActivityAt: Date? = nil,
    unreadCount: Int = 0, lastMessagePreview: String? = nil, pinnedAt: Date? = nil, isArchived: Bool = false
  ) {
    self.pinnedAt = pinnedAt
    self.isArchived = isArchived
    self.id = id
    self.title = title ?? ""
    self.status = status
    self.lastActivityAt = lastActivityAt ?? .distantPast
    self.unreadCount = unreadCount
    self.lastMessagePreview = lastMessagePreview
  }

  /// Reads a row; the fields added with the managed list (pins, archive, marks, a user's title) are
  /// optional, so a list file written before them reads as it was.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decode(ConversationID.self, forKey: .id)
    title = try container.decode(String.self, forKey: .title)
    status = try container.decode(ConversationStatus.self, forKey: .status)
    lastActivityAt = try container.decode(Date.self, forKey: .lastActivityAt)
    unreadCount = try container.decode(Int.self, forKey: .unreadCount)
    lastMessagePreview = try container.decodeIfPresent(String.self, forKey: .lastMessagePreview)
    lastMessageID = try container.decodeIfPresent(ServerMessageID.self, forKey: .lastMessageID)
    pinnedAt = try container.decodeIfPresent(Date.self, forKey: .pinnedAt)
    isArchived = try container.decodeIfPresent(Bool.self, forKey: .isArchived) ?? false
    isMarkedUnread = try container.decodeIfPresent(Bool.self, forKey: .isMarkedUnread) ?? false
    isTitleSetByUser = try container.decodeIfPresent(Bool.self, forKey: .isTitleSetByUser) ?? false
  }

  /// A title made from the customer's first message: its first line, at most `maximumTitleLength` characters.
  public static func title(fromFirstMessage text: String) -> String {
    let firstLine = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    let trimmed = firstLine.trimmingCharacters(in: .whitespaces)
    guard trimmed.count > maximumTitleLength else { return trimmed }
    return String(trimmed.prefix(maximumTitleLength - 1)) + "…"
  }
}

/// A page of the conversation list as the server returns it: most recent activity first.
public struct ConversationPage: Hashable, Sendable, Codable {
  /// The page's rows, most recent activity first.
  public var conversations: [ConversationSummary]
  /// The cursor for the page after this one; `nil` when there is none.
  public var nextCursor: PageCursor?
  /// False when this page reaches the end of the user's conversations.
  public var hasMore: Bool
  /// How many conversations the user has in all, when the server says.
  public var totalCount: Int?

  /// A page as the server returned it.
  public init(
    conversations: [ConversationSummary], nextCursor: PageCursor?, hasMore: Bool, totalCount: Int? = nil
  ) {
    self.conversations = conversations
    self.nextCursor = nextCursor
    self.hasMore = hasMore
    self.totalCount = totalCount
  }
}
