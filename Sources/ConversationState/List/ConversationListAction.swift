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
  /// The user opened a conversation: its unread count is cleared, and a mark of the user's
  /// (`ConversationChange.markedUnread`) taken off.
  case markRead(ConversationID)
  /// The user changes a conversation: renames, pins, archives or marks it unread. Shown at once; sent to
  /// the backend (`ChatBackend.updateConversation`); retried with `ChatPolicy.outboxBackoff` while the
  /// backend cannot be reached; rolled back with `error` set when the backend refuses it. A backend with no
  /// list of its own (`UNSUPPORTED`) keeps it on this device. Refused, with `error` set and nothing changed:
  /// a conversation not listed (`CONVERSATION_NOT_FOUND`), a title empty or longer than
  /// `ConversationSummary.maximumUserTitleLength` (`INVALID_TITLE`).
  case change(ConversationID, ConversationChange)
  /// The user deletes a conversation: its row goes at once, and the deletion is sent when
  /// `ChatPolicy.deleteUndoWindow` has passed (`undoDelete` before then puts the row back). Once the backend
  /// confirms it (or has no list), what the device stores of it goes (`forgetConversation`). Offline it
  /// waits, the row still gone, until the backend answers; refused, the row comes back with `error` set.
  case delete(ConversationID)
  /// The user takes a deletion back within its undo window; after it, refused with `INVALID_ACTION`.
  case undoDelete(ConversationID)
  /// The list screen shows the archived conversations (`true`) or the others (`ConversationListState.shown`).
  case showArchived(Bool)
  /// A title the host generated for a conversation (asked of the agent after its first answer, say).
  /// Taken unless the user gave the conversation a title; trimmed, and cut to
  /// `ConversationSummary.maximumTitleLength`. Kept on this device: it is not sent.
  case titleGenerated(ConversationID, String)
  /// Sends again every change and deletion a relaunch found unconfirmed in the stored list (a deletion still
  /// in its undo window is sent now). `ChatClient` sends it when it opens the list.
  case resumeEdits
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
  /// The backend saved a change or a deletion; ignored unless it answers one on its way.
  case editSaved(RequestID)
  /// A change or a deletion failed; ignored unless it answers one on its way. `jitter` in 0…1 (the
  /// runtime's random source) spreads the retry.
  case editFailed(RequestID, ChatError, jitter: Double)
  /// A list timer fired (`ConversationListEffect.startTimer`).
  case timerFired(ListTimer)
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
  /// A conversation was deleted (on another device, or by the server); its row goes away, what this device
  /// stores of it too, and no late page or event brings it back.
  case conversationDeleted(ConversationID)
  /// A conversation was changed on another device (or this one's change told back). Applied unless a
  /// change of the same field made here waits for the backend: the user's newer intent stays on screen.
  case conversationChanged(ConversationID, ConversationChange)
}

/// The I/O the list asks for.
public enum ConversationListEffect: Equatable, Sendable, Codable {
  /// Fetch up to `limit` conversations, most recent activity first, after `cursor` (`nil`: from the top).
  /// Answer with `pageLoaded` or `requestFailed` carrying the same request ID.
  case fetchConversations(RequestID, cursor: PageCursor?, limit: Int)
  /// Cancel a fetch in flight; its result, if one still arrives, is ignored.
  case cancel(RequestID)
  /// Send the user's change of a conversation. Answer with `editSaved` or `editFailed`.
  case updateConversation(RequestID, ConversationID, ConversationChange)
  /// Delete a conversation on the backend. Answer with `editSaved` or `editFailed`.
  case deleteConversation(RequestID, ConversationID)
  /// Start `timer`; after `seconds` on the store's clock, send `timerFired(timer)`. A timer started again
  /// replaces the one running.
  case startTimer(ListTimer, after: Double)
  /// Stop `timer`; it does not fire.
  case cancelTimer(ListTimer)
  /// Delete what this device stores of the conversation: its file, messages, search entries, draft and
  /// queued work, and close a store open on it (`ChatClient` does; without one, nothing to do).
  case forgetConversation(ConversationID)
}

extension ConversationListEvent {
  /// The conversation the event is about.
  public var conversationID: ConversationID? {
    switch self {
    case .conversationCreated(let summary): return summary.id
    case .messageCreated(let id, _, _, _, _), .statusChanged(let id, _), .titleChanged(let id, _),
      .conversationDeleted(let id), .conversationChanged(let id, _):
      return id
    }
  }
}
