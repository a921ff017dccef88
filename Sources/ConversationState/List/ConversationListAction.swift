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
  /// The user dismissed the error shown with the list.
  case clearError
  /// Drop the list and cancel any load in flight, keeping the signed-in identity.
  case clear
  /// The signed-in identity changed: a new epoch, the list dropped.
  case identityChanged

  // MARK: Backend events

  /// A page the list asked for arrived; ignored unless it answers the request in flight.
  case pageLoaded(RequestID, ConversationPage)
  /// A list request failed; ignored unless it is the request in flight.
  case requestFailed(RequestID, ChatError)
  /// Something the realtime connection reported about the user's conversations.
  case realtime(ConversationListEvent)
}

/// What the realtime connection delivers about the list.
public enum ConversationListEvent: Equatable, Sendable, Codable {
  /// A conversation was created (on this device or another); it appears at the top.
  case conversationCreated(ConversationSummary)
  /// A message arrived in a conversation: it moves to where its time belongs (the top, for the newest)
  /// with its preview, and counts as unread unless the user wrote it. `messageID`, when the server gave one,
  /// makes the same message told twice (by the realtime connection and by the open conversation's catch-up)
  /// count once; an older message than the row's newest moves nothing and keeps the newer preview.
  case messageCreated(ConversationID, preview: String, role: Role, at: Date, messageID: ServerMessageID? = nil)
  /// A conversation's status changed (a human agent took it over, or it ended); ignored when it is not listed.
  case statusChanged(ConversationID, ConversationStatus)
  /// The server renamed a conversation; ignored when it is not listed.
  case titleChanged(ConversationID, String)
  /// A conversation was deleted; its row goes away.
  case conversationDeleted(ConversationID)
}

/// The I/O the list asks for.
public enum ConversationListEffect: Equatable, Sendable, Codable {
  /// Fetch up to `limit` conversations, most recent activity first, after `cursor` (`nil`: from the top).
  /// Answer with `pageLoaded` or `requestFailed` carrying the same request ID.
  case fetchConversations(RequestID, cursor: PageCursor?, limit: Int)
  /// Cancel a fetch in flight; its result, if one still arrives, is ignored.
  case cancel(RequestID)
}
