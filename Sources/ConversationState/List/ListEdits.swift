/// A change of one field of a row, shown before the server confirmed it (`ConversationListState.edits`).
///
/// One per conversation and field: a second change of the field while the first is on its way replaces
/// what is wanted, and is sent once the first is answered, so the server sees them in the order the user
/// made them.
public struct PendingListEdit: Hashable, Sendable, Codable {
  /// The conversation changed.
  public var conversationID: ConversationID
  /// What the user wants now; what the row shows.
  public var change: ConversationChange
  /// The row as the server last had it, for a rollback: a refusal puts the field back as it is here.
  public var confirmed: ConversationSummary
  /// The request on its way and the change it carries; nil while the edit waits for its retry.
  public var sending: Sending?
  /// Failed attempts so far (for the backoff); reset when one succeeds.
  public var failedAttempts: Int

  /// A request on its way.
  public struct Sending: Hashable, Sendable, Codable {
    public var requestID: RequestID
    public var change: ConversationChange

    public init(requestID: RequestID, change: ConversationChange) {
      self.requestID = requestID
      self.change = change
    }
  }

  /// An edit not sent yet.
  public init(conversationID: ConversationID, change: ConversationChange, confirmed: ConversationSummary) {
    self.conversationID = conversationID
    self.change = change
    self.confirmed = confirmed
    sending = nil
    failedAttempts = 0
  }

  /// The field this edit changes.
  public var field: ConversationChange.Field { change.field }
}

/// A deletion the user asked for (`ConversationListState.deleting`): the row is gone from the list, and
/// is kept here until the server confirms, so an undo or a refusal can put it back.
public struct PendingDelete: Hashable, Sendable, Codable {
  /// The row as it was when the user deleted it.
  public var row: ConversationSummary
  /// The delete request on its way; nil during the undo window and while waiting for a retry.
  public var requestID: RequestID?
  /// Whether the undo window has passed: from then on the delete is sent (and retried) until the server
  /// answers, and `undoDelete` is refused.
  public var isCommitted: Bool
  /// Failed attempts so far (for the backoff).
  public var failedAttempts: Int

  /// A deletion in its undo window.
  public init(row: ConversationSummary) {
    self.row = row
    requestID = nil
    isCommitted = false
    failedAttempts = 0
  }
}

/// The list's timers (`ConversationListEffect.startTimer`).
public enum ListTimer: Hashable, Sendable, Codable {
  /// The undo window of a deletion has passed: it is sent.
  case undoWindow(ConversationID)
  /// The wait before retrying an edit of this field has passed.
  case retryEdit(ConversationID, ConversationChange.Field)
  /// The wait before retrying a deletion has passed.
  case retryDelete(ConversationID)
}
