public import Foundation

/// Everything that can happen to the conversation list.
public enum ConversationListAction: Equatable, Sendable, Codable {
  // MARK: User intents

  /// Load the first page; it replaces the list.
  case load(pageSize: Int)
  /// Load the next page; appended, deduplicated by ID. Nothing while a load is in flight or at the end.
  case loadMore(pageSize: Int)
  /// Load the shown window again and reconcile it, keeping what was paged in.
  case refresh
  /// The user opened a conversation: its unread count is cleared.
  case markRead(ConversationID)
  case clearError
  case clear
  /// The signed-in identity changed: a new epoch, the list dropped.
  case identityChanged

  // MARK: Backend events

  case pageLoaded(RequestID, ConversationPage)
  case requestFailed(RequestID, ChatError)
  case realtime(ConversationListEvent)
}

/// What the realtime connection delivers about the list.
public enum ConversationListEvent: Equatable, Sendable, Codable {
  /// A conversation was created (on this device or another); it appears at the top.
  case conversationCreated(ConversationSummary)
  /// A message arrived in a conversation: it moves to the top with a new preview, and counts as unread
  /// unless the user wrote it.
  case messageCreated(ConversationID, preview: String, role: Role, at: Date)
  case statusChanged(ConversationID, ConversationStatus)
  case titleChanged(ConversationID, String)
  case conversationDeleted(ConversationID)
}

/// The I/O the list asks for.
public enum ConversationListEffect: Equatable, Sendable, Codable {
  case fetchConversations(RequestID, cursor: PageCursor?, limit: Int)
  case cancel(RequestID)
}
