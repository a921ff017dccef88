public import Foundation

/// One row of the user's list of conversations.
public struct ConversationSummary: Identifiable, Hashable, Sendable, Codable {
  /// How long a title taken from the customer's first message may be.
  public static let maximumTitleLength = 80

  public var id: ConversationID
  /// The server's title, or the customer's first message.
  public var title: String
  public var status: ConversationStatus
  public var lastActivityAt: Date
  public var unreadCount: Int
  public var lastMessagePreview: String?

  public init(
    id: ConversationID, title: String, status: ConversationStatus = .ongoing, lastActivityAt: Date,
    unreadCount: Int = 0, lastMessagePreview: String? = nil
  ) {
    self.id = id
    self.title = title
    self.status = status
    self.lastActivityAt = lastActivityAt
    self.unreadCount = unreadCount
    self.lastMessagePreview = lastMessagePreview
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
  public var conversations: [ConversationSummary]
  public var nextCursor: PageCursor?
  public var hasMore: Bool

  public init(conversations: [ConversationSummary], nextCursor: PageCursor?, hasMore: Bool) {
    self.conversations = conversations
    self.nextCursor = nextCursor
    self.hasMore = hasMore
  }
}
