public import Foundation

/// Values that carry floating-point numbers (times, fractions, JSON numbers) and can say whether every one
/// of them is finite.
///
/// Why it exists: a NaN that reaches the state makes it unequal to itself (so snapshots never settle),
/// unencodable, and its description traps. The reducers refuse such input with a typed error before it can
/// land, instead of storing it.
public protocol FiniteNumberChecking {
  /// False when any number inside is NaN or infinite.
  var hasOnlyFiniteNumbers: Bool { get }
}

extension Date: FiniteNumberChecking {
  /// False for a date built from a NaN or infinite time interval.
  public var hasOnlyFiniteNumbers: Bool { timeIntervalSinceReferenceDate.isFinite }
}

extension Optional: FiniteNumberChecking where Wrapped: FiniteNumberChecking {
  /// True for nil; otherwise whether the wrapped value holds only finite numbers.
  public var hasOnlyFiniteNumbers: Bool { self?.hasOnlyFiniteNumbers ?? true }
}

extension Array: FiniteNumberChecking where Element: FiniteNumberChecking {
  /// Whether every element holds only finite numbers; true when empty.
  public var hasOnlyFiniteNumbers: Bool { allSatisfy(\.hasOnlyFiniteNumbers) }
}

extension JSONValue: FiniteNumberChecking {
  /// Whether every number in the value, however deeply nested in arrays and objects, is finite.
  public var hasOnlyFiniteNumbers: Bool {
    switch self {
    case .null, .bool, .string: return true
    case .number(let value): return value.isFinite
    case .array(let values): return values.hasOnlyFiniteNumbers
    case .object(let values): return values.values.allSatisfy(\.hasOnlyFiniteNumbers)
    }
  }
}

extension ToolCall.Outcome: FiniteNumberChecking {
  /// Whether a succeeded outcome's output holds only finite numbers; other outcomes carry none.
  public var hasOnlyFiniteNumbers: Bool {
    if case .succeeded(let output) = self { return output.hasOnlyFiniteNumbers }
    return true
  }
}

extension ToolCall: FiniteNumberChecking {
  /// Whether both the call's input and its outcome hold only finite numbers.
  public var hasOnlyFiniteNumbers: Bool { input.hasOnlyFiniteNumbers && outcome.hasOnlyFiniteNumbers }
}

extension MessageAttachment: FiniteNumberChecking {
  /// Whether the upload progress fraction is finite.
  public var hasOnlyFiniteNumbers: Bool { uploadProgress.isFinite }
}

extension MessagePart: FiniteNumberChecking {
  /// Whether a data part's value holds only finite numbers; the other kinds carry none.
  public var hasOnlyFiniteNumbers: Bool {
    if case .data(let data) = content { return data.value.hasOnlyFiniteNumbers }
    return true
  }
}

extension Message: FiniteNumberChecking {
  /// Whether the message's dates, attachments, tool calls, data parts, credit usage and provider metadata
  /// are all finite.
  public var hasOnlyFiniteNumbers: Bool {
    createdAt.hasOnlyFiniteNumbers && attachments.hasOnlyFiniteNumbers && toolCalls.hasOnlyFiniteNumbers
      && (reply?.hasOnlyFiniteNumbers ?? true) && rareFieldsHaveOnlyFiniteNumbers
  }
}

extension ReplyState: FiniteNumberChecking {
  /// Whether the input requests an answer waits on hold only finite numbers; the other outcomes carry none.
  public var hasOnlyFiniteNumbers: Bool {
    if case .awaitingInput(let requests) = self { return requests.hasOnlyFiniteNumbers }
    return true
  }
}

extension InputRequest: FiniteNumberChecking {
  /// Whether a question's payload and the answer given hold only finite numbers.
  public var hasOnlyFiniteNumbers: Bool {
    if case .question(let payload) = kind, !payload.hasOnlyFiniteNumbers { return false }
    return answer?.hasOnlyFiniteNumbers ?? true
  }
}

extension InputAnswer: FiniteNumberChecking {
  /// Whether a question's answer holds only finite numbers; the other answers carry none.
  public var hasOnlyFiniteNumbers: Bool {
    if case .answered(let value) = self { return value.hasOnlyFiniteNumbers }
    return true
  }
}

extension RealtimeEvent: FiniteNumberChecking {
  /// Whether the message or typing time the event carries is finite; events without numbers pass.
  public var hasOnlyFiniteNumbers: Bool {
    switch self {
    case .messageCreated(let message), .messageEdited(let message): return message.hasOnlyFiniteNumbers
    case .typingStarted(_, let at), .replyStarted(_, _, let at): return at.hasOnlyFiniteNumbers
    case .replyFinished(_, let message): return message.hasOnlyFiniteNumbers
    case .messageDeleted, .transcript, .typingStopped, .statusChanged, .titleChanged, .feedbackOffered,
      .replyDelta:
      return true
    }
  }
}

extension ConversationAction: FiniteNumberChecking {
  /// Every injected number, except `connectionLost`'s, which are sanitized instead: a loss must still be
  /// handled (see `ReconnectBackoff.delay` and `ConnectionState.reconnecting`), and `restored`'s, a whole
  /// state taken as a store's initial state is (checking it would cost O(history) on every open).
  public var hasOnlyFiniteNumbers: Bool {
    switch self {
    case .send(let outgoing), .steer(let outgoing), .edit(_, let outgoing):
      return outgoing.createdAt.hasOnlyFiniteNumbers && outgoing.attachments.hasOnlyFiniteNumbers
    case .sendAccepted(_, let message, _), .replyFinished(_, let message, _): return message.hasOnlyFiniteNumbers
    case .replyStarted(_, _, let at, _), .timerFired(_, let at): return at.hasOnlyFiniteNumbers
    case .requestFailed(_, _, let at, _): return at.hasOnlyFiniteNumbers
    case .toolCallStarted(_, let call): return call.hasOnlyFiniteNumbers
    case .replyPartAdded(_, let part): return part.hasOnlyFiniteNumbers
    case .toolCallFinished(_, _, let outcome), .toolRan(_, let outcome): return outcome.hasOnlyFiniteNumbers
    case .historyLoaded(_, let page): return page.messages.hasOnlyFiniteNumbers
    case .syncLoaded(_, let messages, _, _), .replyRestated(_, let messages), .storedHistoryLoaded(_, let messages, _):
      return messages.hasOnlyFiniteNumbers
    case .realtime(_, let event, _, let receivedAt):
      return event.hasOnlyFiniteNumbers && receivedAt.hasOnlyFiniteNumbers
    case .attachmentProgress(_, _, let fraction), .uploadProgressed(_, let fraction): return fraction.isFinite
    case .agentStateSnapshot(let snapshot): return snapshot.hasOnlyFiniteNumbers
    case .inputRequested(_, let request): return request.hasOnlyFiniteNumbers
    case .positioned(_, _, let action): return action.hasOnlyFiniteNumbers
    case .answerInput(_, let answer): return answer.hasOnlyFiniteNumbers
    case .approve(_, _, let at), .sendSuggestion(_, _, let at): return at.hasOnlyFiniteNumbers
    case .standingApprovalsChanged(let grants, _): return grants.allSatisfy { $0.grantedAt.hasOnlyFiniteNumbers }
    case .agentStateDelta(let patch): return patch.allSatisfy { $0.value?.hasOnlyFiniteNumbers ?? true }
    case .retry, .regenerate, .showSibling, .showBranch, .editQueued, .removeQueued, .moveQueued,
      .takeQueuedIntoDraft, .sendQueuedNow, .resumeQueue, .revokeApproval, .stopReply, .loadHistory, .loadMoreHistory,
      .trimHistory,
      .trimNewerHistory, .loadNewerHistory, .rateAnswer, .rateConversation, .dismissFeedback, .setDraft, .markRead,
      .setTyping, .clearError, .clear, .identify, .signOut, .connect,
      .disconnect, .escalate, .relaunched, .requestSucceeded, .replyDelta, .replyEnded, .connectionOpened,
      .connectionLost, .ticketCreated, .attachmentUploaded, .discard, .takeBackIntoDraft, .open,
      .credentialsRefreshed, .credentialsNeeded, .sendQueued, .readCursorSaved, .conversationDescribed,
      .uploadFinished, .outboxRecorded, .outboxRejected, .frameRejected, .restored, .replyPartStarted, .replyPartDelta,
      .replyPartEnded, .toolInputStarted, .toolInputDelta, .toolResultsStored, .replyStepReset, .setStarterPrompts,
      .suggestFollowUps, .replySuggested:
      return true
    }
  }

  /// Whether the user (rather than the backend or the runtime) is the source of this action.
  public var isUserIntent: Bool {
    switch self {
    case .send, .steer, .edit, .retry, .regenerate, .showSibling, .showBranch, .editQueued, .removeQueued, .moveQueued,
      .takeQueuedIntoDraft, .sendQueuedNow, .resumeQueue, .stopReply, .loadHistory, .loadMoreHistory,
      .trimHistory, .trimNewerHistory, .loadNewerHistory, .rateAnswer, .rateConversation,
      .dismissFeedback, .setDraft, .markRead, .setTyping, .clearError, .clear, .identify, .signOut, .connect,
      .disconnect, .escalate, .relaunched, .discard, .takeBackIntoDraft, .open, .credentialsRefreshed,
      .credentialsNeeded, .answerInput, .approve, .revokeApproval, .sendSuggestion:
      return true
    case .sendAccepted, .requestFailed, .requestSucceeded, .replyStarted, .replyDelta, .toolCallStarted,
      .toolCallFinished, .replyFinished, .replyEnded, .historyLoaded, .storedHistoryLoaded, .syncLoaded, .realtime,
      .connectionOpened,
      .connectionLost, .ticketCreated, .attachmentProgress, .attachmentUploaded, .timerFired, .sendQueued,
      .readCursorSaved, .conversationDescribed, .toolRan, .uploadProgressed, .uploadFinished, .outboxRecorded,
      .outboxRejected, .frameRejected, .restored, .agentStateSnapshot, .agentStateDelta, .replyPartStarted,
      .replyPartDelta, .replyPartEnded, .replyPartAdded, .toolInputStarted, .toolInputDelta, .replyStepReset,
      .inputRequested,
      .positioned, .replyRestated, .toolResultsStored, .standingApprovalsChanged, .setStarterPrompts,
      .suggestFollowUps, .replySuggested:
      return false
    }
  }
}

extension ConversationAction {
  /// The action's case name (`"send"`, `"connectionLost"`), without its values: safe to print even when a
  /// value inside is not (a NaN date traps when formatted).
  public var caseName: String {
    if let label = Mirror(reflecting: self).children.first?.label { return label }
    return String(describing: self)
  }
}

extension ChatError {
  /// This error with a non-finite or negative `retryAfter` dropped: a server's bad hint must not put a NaN
  /// into the state.
  public var sanitized: ChatError {
    guard let retryAfter, !retryAfter.isFinite || retryAfter < 0 else { return self }
    var error = self
    error.retryAfter = nil
    return error
  }
}
