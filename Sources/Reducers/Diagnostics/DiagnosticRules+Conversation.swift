package import ConversationState
package import Foundation

/// A conversation's catch-up, read from two of its states. A client's runtime sees a conversation through
/// the snapshots it persists, which skip what came and went between two of them; so these rules read what
/// stays in the state: the connection's case, the counter of failed attempts, the gap mark.
extension DiagnosticRules {
  /// The events of `conversation`'s step from `old` to `new`, seen at `at` on the device's clock, under
  /// `mode`. A catch-up that starts and ends between two states is not seen; its failures and the gap it
  /// leaves are (their marks stay). What a restore brings (`old.isRestoring`) was stored, not news: a gap it
  /// was stored with is not reported again. A store cleared (another person, another conversation) drops its
  /// catch-up: that is not an end of it.
  package static func events(
    of conversation: ConversationHandle, from old: ConversationState, to new: ConversationState,
    mode: ConnectionMode, at: Date
  ) -> [ClientDiagnostic] {
    // Most steps (a draft, a streamed delta) change none of what is read here: three comparisons answer them.
    guard
      old.connection != new.connection || old.hasMissedMessagesGap != new.hasMissedMessagesGap
        || old.failedSyncAttempts != new.failedSyncAttempts
    else { return [] }
    var codes: [ClientDiagnostic.Code] = []
    // A catch-up cut short because the store was cleared (another person, another conversation) did not end.
    let isNews = !old.isRestoring && old.epoch == new.epoch && old.conversationID == new.conversationID
    if new.connection == .syncing && old.connection != .syncing {
      codes.append(.catchUpStarted(conversation: conversation))
    }
    var gapReported = false
    if isNews, old.connection == .syncing, new.connection == .connected {
      if new.hasMissedMessagesGap {
        // Ended without closing a gap, a new one or one left before.
        codes.append(
          .catchUpGapLeft(conversation: conversation, failure: ClientDiagnostic.Failure(new.backgroundError)))
        gapReported = true
      } else {
        codes.append(.caughtUp(conversation: conversation))
      }
    }
    if isNews, !gapReported, !old.hasMissedMessagesGap, new.hasMissedMessagesGap {
      codes.append(.catchUpGapLeft(conversation: conversation, failure: ClientDiagnostic.Failure(new.backgroundError)))
    }
    if isNews, new.failedSyncAttempts > old.failedSyncAttempts {
      codes.append(
        .catchUpStalled(
          conversation: conversation, attempt: new.failedSyncAttempts,
          failure: ClientDiagnostic.Failure(new.backgroundError)))
    }
    // In realtime mode a conversation's connection is the client's, which reports its own losses.
    if mode == .polling, case .reconnecting(let attempt, let retryAt) = new.connection, old.connection != new.connection
    {
      codes.append(
        .pollFailed(
          conversation: conversation, attempt: attempt, retryDelayMilliseconds: milliseconds(from: at, to: retryAt),
          failure: ClientDiagnostic.Failure(new.backgroundError)))
    }
    return codes.map { ClientDiagnostic($0, at: at) }
  }
}
