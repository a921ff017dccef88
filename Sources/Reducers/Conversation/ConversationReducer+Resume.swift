import ConversationState
import Foundation

/// A reply whose stream drops is resumed from its last position instead of being cut off, when its stream
/// numbers its events and the policy allows (`ChatPolicy.replyResumeAttempts`): the reply keeps its row,
/// the store waits `reconnectBackoff`, then asks the backend for the rest (`resumeReply`). What the resumed
/// stream replays is dropped by position (`positioned`), so nothing shows twice.
extension ConversationReducer {
  /// Starts resuming the newest reply, streamed by the request `purpose` that just dropped with `error`;
  /// nil when it cannot be resumed (the caller ends it as before). `jitter` spreads the wait.
  func resumeAfterDrop(
    _ reply: StreamingReply, _ purpose: PendingRequest, _ error: ChatError, jitter: Double,
    _ state: inout ConversationState
  ) -> [ConversationEffect]? {
    // Only the one reply streaming: one of several (a second run beside it) is cut off as before.
    guard state.streamingReply?.requestID == reply.requestID, state.overlappingReplies.isEmpty,
      reply.resumePosition != nil, state.conversationID != nil, policy.replyResumeAttempts > 0,
      Self.canResume(purpose)
    else { return nil }
    // A resume the server refused for good (it has no such stream, this backend cannot resume, the
    // credential is gone), or one past the attempts, ends the reply (`droppedError`).
    guard error.retryable, !error.isAuthorizationFailure else { return nil }
    let previous = reply.resumption
    // What the server said in the stream (a provider error, a rate limit) ends the reply: only a lost
    // connection is resumed. A resume attempt that fails any retryable way is tried again.
    guard previous != nil || Self.droppedCodes.contains(error.code) else { return nil }
    let attempts = (previous?.failedAttempts ?? 0) + 1
    guard attempts <= policy.replyResumeAttempts else { return nil }
    state.streamingReply?.resumption = ReplyResumption(
      purpose: previous?.purpose ?? purpose, failedAttempts: attempts, droppedBy: previous?.droppedBy ?? error)
    state.backgroundError = error
    return [.startTimer(.replyResume, seconds: policy.reconnectBackoff.delay(attempt: attempts, jitter: jitter))]
  }

  /// The wait is over (or the app relaunched): asks the backend for the rest of the reply from its cursor,
  /// under a request of its own that is settled as the one that dropped.
  func resumeReply(_ state: inout ConversationState) -> [ConversationEffect] {
    guard let reply = state.streamingReply, let resumption = reply.resumption,
      state.requests[reply.requestID] == nil, let conversationID = state.conversationID,
      let position = reply.resumePosition
    else { return [] }
    let requestID = state.beginRequest(resumption.purpose)
    state.streamingReply?.requestID = requestID
    // The app's tools that ran on through the wait report to the resumed stream.
    for (id, purpose) in state.requests {
      if case .tool(let call, reply.requestID) = purpose { state.requests[id] = .tool(call, reply: requestID) }
    }
    state.agentActivity = .thinking
    let cursor = ReplyCursor(conversationID: conversationID, replyID: reply.serverID, position: position)
    return [.resumeReply(requestID, cursor)]
  }

  /// The resumed stream works (it brought something new, or its end): the reply waits no more, and the drop
  /// it showed in `backgroundError` is over (a lost connection's code, or the first drop's error). Any other
  /// background error stays.
  func resumed(_ state: inout ConversationState) {
    guard let resumption = state.streamingReply?.resumption else { return }
    state.streamingReply?.resumption = nil
    if let shown = state.backgroundError, shown == resumption.droppedBy || Self.droppedCodes.contains(shown.code) {
      state.backgroundError = nil
    }
  }

  /// Resumes the reply a relaunch left waiting (no attempt has failed yet), at once; a reply waiting out
  /// its backoff after a failed attempt waits on.
  func resumeRelaunchedReply(_ state: inout ConversationState) -> [ConversationEffect] {
    guard state.streamingReply?.resumption?.failedAttempts == 0 else { return [] }
    return resumeReply(&state)
  }

  /// The failures that mean the connection went, not the reply: a stream cut off, a transport failure, a
  /// stall past the idle timeout.
  static let droppedCodes: Set<ChatError.Code> = [.network, .timeout, .incompleteStream]

  /// Whether the request `purpose` streams a reply of ours that a backend can resume: a send, a
  /// regeneration or a continuation (a reply over the realtime connection comes back with the connection).
  static func canResume(_ purpose: PendingRequest) -> Bool {
    switch purpose {
    case .send, .regenerate, .continuation: true
    default: false
    }
  }

  /// Whether `reply`, restored after a relaunch, can be resumed rather than cut off.
  func resumesAfterRelaunch(_ reply: StreamingReply) -> Bool {
    guard let resumption = reply.resumption, reply.resumePosition != nil else { return false }
    return policy.replyResumeAttempts > 0 && Self.canResume(resumption.purpose)
  }

  /// What a reply that stopped with `error` ends with: `INCOMPLETE_STREAM` (`truncated`, its text kept) when
  /// its stream dropped (one of `droppedCodes`; after resume attempts, saying why it could not be resumed),
  /// whether or not its protocol can resume, so a cut-off answer reads the same over every backend; any
  /// other error (the run's own, a limit, authorization) as it is.
  func droppedError(_ reply: StreamingReply, _ error: ChatError) -> ChatError {
    if let first = reply.resumption?.droppedBy {
      return ChatError(
        .incompleteStream, "The reply's stream dropped (\(first.message)) and could not be resumed: \(error.message)")
    }
    guard Self.droppedCodes.contains(error.code), error.code != .incompleteStream else { return error }
    return ChatError(.incompleteStream, "The reply's stream dropped: \(error.message)")
  }
}
