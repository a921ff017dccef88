import ConversationState
import Foundation

/// The user's changes to their list (rename, pin, archive, mark unread) and deletions: optimistic, sent one
/// at a time per field, retried with the outbox's backoff, rolled back when refused.
extension ConversationListReducer {
  func change(_ id: ConversationID, _ change: ConversationChange, _ state: inout ConversationListState)
    -> [ConversationListEffect]
  {
    guard let row = state.conversations[id] else {
      state.error = ChatError(.conversationNotFound, "Conversation \(id.rawValue) is not in the list.")
      return []
    }
    var change = change
    if case .title(let title) = change {
      let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !trimmed.isEmpty, trimmed.count <= ConversationSummary.maximumUserTitleLength else {
        state.error = ChatError(
          .invalidTitle,
          "A title has 1 to \(ConversationSummary.maximumUserTitleLength) characters; \(trimmed.count) were given.")
        return []
      }
      change = .title(trimmed)
    }
    let index = state.edits.firstIndex { $0.conversationID == id && $0.field == change.field }
    guard index != nil || !isShownAsChanged(change, in: row) else { return [] }
    state.conversations.update(id) { $0 = change.applied(to: $0) }
    guard let index else {
      state.edits.append(PendingListEdit(conversationID: id, change: change, confirmed: row))
      return send(editAt: state.edits.count - 1, &state)
    }
    state.edits[index].change = change
    // One on its way is answered first, or a retry is due: the newest intent goes then.
    return []
  }

  /// Whether `row` already shows `change` as the user set it (a title counts only when set by the user).
  private func isShownAsChanged(_ change: ConversationChange, in row: ConversationSummary) -> Bool {
    if case .title = change, !row.isTitleSetByUser { return false }
    return change.isShown(in: row)
  }

  private func send(editAt index: Int, _ state: inout ConversationListState) -> [ConversationListEffect] {
    let requestID = state.nextRequestID()
    let edit = state.edits[index]
    state.edits[index].sending = PendingListEdit.Sending(requestID: requestID, change: edit.change)
    return [.updateConversation(requestID, edit.conversationID, edit.change)]
  }

  func delete(_ id: ConversationID, _ state: inout ConversationListState) -> [ConversationListEffect] {
    guard var row = state.conversations.remove(id) else {
      state.error = ChatError(.conversationNotFound, "Conversation \(id.rawValue) is not in the list.")
      return []
    }
    // Its edits go with it (their answers find nothing and change nothing), and so do their changes: a row
    // that comes back (an undo, a refused deletion) shows what the server has, not a change nobody sends.
    let dropped = state.edits.filter { $0.conversationID == id }
    for edit in dropped { row = ConversationChange.restoring(edit.field, from: edit.confirmed, in: row) }
    state.edits.removeAll { $0.conversationID == id }
    state.deleting.append(PendingDelete(row: row))
    let cancels = dropped.compactMap(\.runningTimer).map(ConversationListEffect.cancelTimer)
    guard policy.deleteUndoWindow > 0 else { return cancels + commitDelete(id, &state) }
    return cancels + [.startTimer(.undoWindow(id), after: policy.deleteUndoWindow)]
  }

  func undoDelete(_ id: ConversationID, _ state: inout ConversationListState) -> [ConversationListEffect] {
    guard let index = state.deleting.firstIndex(where: { $0.row.id == id }) else {
      state.error = ChatError(.conversationNotFound, "Conversation \(id.rawValue) is not being deleted.")
      return []
    }
    guard !state.deleting[index].isCommitted else {
      state.error = ChatError(.invalidAction, "The deletion of \(id.rawValue) was sent; it can no longer be undone.")
      return []
    }
    let row = state.deleting.remove(at: index).row
    state.conversations.place(row)
    return [.cancelTimer(.undoWindow(id))]
  }

  /// The undo window passed (or there is none): the deletion is sent, and retried until answered.
  private func commitDelete(_ id: ConversationID, _ state: inout ConversationListState) -> [ConversationListEffect] {
    guard let index = state.deleting.firstIndex(where: { $0.row.id == id }) else { return [] }
    let requestID = state.nextRequestID()
    state.deleting[index].isCommitted = true
    state.deleting[index].requestID = requestID
    return [.deleteConversation(requestID, id)]
  }

  func timerFired(_ timer: ListTimer, _ state: inout ConversationListState) -> [ConversationListEffect] {
    switch timer {
    case .undoWindow(let id):
      guard let deletion = state.deleting.first(where: { $0.row.id == id }), !deletion.isCommitted else { return [] }
      return commitDelete(id, &state)
    case .retryDelete(let id):
      guard let deletion = state.deleting.first(where: { $0.row.id == id }), deletion.isCommitted,
        deletion.requestID == nil
      else { return [] }
      return commitDelete(id, &state)
    case .retryEdit(let id, let field):
      guard let index = state.edits.firstIndex(where: { $0.conversationID == id && $0.field == field }),
        state.edits[index].sending == nil
      else { return [] }
      return send(editAt: index, &state)
    }
  }

  func saved(_ requestID: RequestID, _ state: inout ConversationListState) -> [ConversationListEffect] {
    if let index = state.deleting.firstIndex(where: { $0.requestID == requestID }) {
      return deleted(state.deleting[index].row.id, &state)
    }
    guard let index = state.edits.firstIndex(where: { $0.sending?.requestID == requestID }),
      let sent = state.edits[index].sending
    else { return [] }
    var edit = state.edits[index]
    edit.confirmed = sent.change.applied(to: edit.confirmed)
    edit.sending = nil
    edit.failedAttempts = 0
    guard edit.change != sent.change else {
      state.edits.remove(at: index)
      return []
    }
    // The user changed the field again while this was on its way: that goes now.
    state.edits[index] = edit
    return send(editAt: index, &state)
  }

  func failed(_ requestID: RequestID, _ error: ChatError, jitter: Double, _ state: inout ConversationListState)
    -> [ConversationListEffect]
  {
    if let index = state.deleting.firstIndex(where: { $0.requestID == requestID }) {
      let id = state.deleting[index].row.id
      // No list on the backend: the deletion is this device's. Already gone there: as good as done.
      if error.code == .unsupported || error.code == .conversationNotFound { return deleted(id, &state) }
      if error.retryable {
        state.deleting[index].requestID = nil
        state.deleting[index].failedAttempts += 1
        let delay = retryDelay(attempt: state.deleting[index].failedAttempts, after: error, jitter: jitter)
        return [.startTimer(.retryDelete(id), after: delay)]
      }
      let row = state.deleting.remove(at: index).row
      state.conversations.place(row)
      state.error = error
      return []
    }
    guard let index = state.edits.firstIndex(where: { $0.sending?.requestID == requestID }) else { return [] }
    let edit = state.edits[index]
    // A backend with no list of its own: the change is kept on this device.
    if error.code == .unsupported { return saved(requestID, &state) }
    if error.retryable {
      state.edits[index].sending = nil
      state.edits[index].failedAttempts += 1
      let delay = retryDelay(attempt: state.edits[index].failedAttempts, after: error, jitter: jitter)
      return [.startTimer(.retryEdit(edit.conversationID, edit.field), after: delay)]
    }
    // Refused: the field goes back to what the server has; a newer change of it, not sent yet, goes too.
    state.edits.remove(at: index)
    state.conversations.update(edit.conversationID) {
      $0 = ConversationChange.restoring(edit.field, from: edit.confirmed, in: $0)
    }
    state.error = error
    return []
  }

  /// How long a failed edit or deletion waits before it goes again: as an outbox batch does
  /// (`ChatPolicy.outboxRetryDelay`).
  func retryDelay(attempt: Int, after error: ChatError, jitter: Double) -> Double {
    policy.outboxRetryDelay(attempt: attempt, after: error, jitter: jitter)
  }

  /// The deletion of `id` is done (confirmed, or the backend has no list): nothing lists it again, and
  /// what the device stores of it goes.
  func deleted(_ id: ConversationID, _ state: inout ConversationListState) -> [ConversationListEffect] {
    let timers =
      state.edits.filter { $0.conversationID == id }.compactMap(\.runningTimer)
      + state.deleting.filter { $0.row.id == id }.compactMap(\.runningTimer)
    state.deleting.removeAll { $0.row.id == id }
    state.conversations.remove(id)
    state.edits.removeAll { $0.conversationID == id }
    state.deleted.insert(id)
    // Nothing of it is waiting any more: its timers stop.
    return timers.map(ConversationListEffect.cancelTimer) + [.forgetConversation(id)]
  }

  func resumeEdits(_ state: inout ConversationListState) -> [ConversationListEffect] {
    var effects: [ConversationListEffect] = []
    for index in state.edits.indices { effects += send(editAt: index, &state) }
    for deletion in state.deleting { effects += commitDelete(deletion.row.id, &state) }
    return effects
  }

  /// A change another device made (or this one's told back): taken unless one of the field waits here.
  func changedElsewhere(_ id: ConversationID, _ change: ConversationChange, _ state: inout ConversationListState)
    -> [ConversationListEffect]
  {
    guard state.edit(of: id, change.field) == nil else { return [] }
    state.conversations.update(id) { $0 = change.applied(to: $0) }
    return []
  }

  /// `row` as a page or an event brings it, with the changes still on their way here made on it: the
  /// server's row wins, except where the user's newer intent waits.
  func withPendingEdits(_ row: ConversationSummary, _ state: ConversationListState) -> ConversationSummary {
    var row = row
    for edit in state.edits where edit.conversationID == row.id { row = edit.change.applied(to: row) }
    return row
  }
}

extension PendingListEdit {
  /// The timer that runs for this edit while it waits to be retried; none while it is on its way.
  var runningTimer: ListTimer? { sending == nil ? .retryEdit(conversationID, field) : nil }
}

extension PendingDelete {
  /// The timer that runs for this deletion: its undo window, or its retry once committed; none while it is
  /// on its way.
  var runningTimer: ListTimer? {
    guard requestID == nil else { return nil }
    return isCommitted ? .retryDelete(row.id) : .undoWindow(row.id)
  }
}
