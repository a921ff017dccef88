public import Foundation

/// A change the user makes to one conversation of their list: what `ConversationListAction.change` applies
/// at once and `ChatBackend.updateConversation(_:_:)` tells the server.
///
/// ```swift
/// list.send(.change(id, .title("Trip to Lisbon")))
/// list.send(.change(id, .pinned(true, at: Date())))
/// ```
public enum ConversationChange: Hashable, Sendable, Codable {
  /// A title the user chose (trimmed; 1 to `ConversationSummary.maximumUserTitleLength` characters). A
  /// generated title never replaces it.
  case title(String)
  /// Pinned (first in the list, in the order pinned; `at` is the device's clock when pinned here, the
  /// server's when it says) or unpinned.
  case pinned(Bool, at: Date)
  /// Archived (shown only under `ConversationListState.showsArchived`) or back in the list.
  case archived(Bool)
  /// Marked unread by the user (a dot on the row until it is opened), or not.
  case markedUnread(Bool)

  /// Which field of a row this change sets: two changes of one field replace each other.
  public enum Field: String, Hashable, Sendable, Codable {
    case title, pinned, archived, markedUnread
  }

  /// The field this change sets.
  public var field: Field {
    switch self {
    case .title: return .title
    case .pinned: return .pinned
    case .archived: return .archived
    case .markedUnread: return .markedUnread
    }
  }

  /// `row` with this change made.
  public func applied(to row: ConversationSummary) -> ConversationSummary {
    var row = row
    switch self {
    case .title(let title):
      row.title = title
      row.isTitleSetByUser = true
    case .pinned(let pinned, let at): row.pinnedAt = pinned ? at : nil
    case .archived(let archived): row.isArchived = archived
    case .markedUnread(let marked): row.isMarkedUnread = marked
    }
    return row
  }

  /// `row` with `field` as it is in `previous`: what a refused change is rolled back with.
  package static func restoring(_ field: Field, from previous: ConversationSummary, in row: ConversationSummary)
    -> ConversationSummary
  {
    var row = row
    switch field {
    case .title:
      row.title = previous.title
      row.isTitleSetByUser = previous.isTitleSetByUser
    case .pinned: row.pinnedAt = previous.pinnedAt
    case .archived: row.isArchived = previous.isArchived
    case .markedUnread: row.isMarkedUnread = previous.isMarkedUnread
    }
    return row
  }

  /// Whether `row` shows this change's value.
  package func isShown(in row: ConversationSummary) -> Bool {
    switch self {
    case .title(let title): return row.title == title
    case .pinned(let pinned, let at): return pinned ? row.pinnedAt == at : row.pinnedAt == nil
    case .archived(let archived): return row.isArchived == archived
    case .markedUnread(let marked): return row.isMarkedUnread == marked
    }
  }
}
