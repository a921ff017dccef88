/// A streaming reply whose stream dropped and is being resumed from where it was
/// (`StreamingReply.resumePosition`), as `ChatPolicy.replyResumeAttempts` allows: between the drop and the
/// resumed stream's first new event, and after a relaunch until its stream is back.
///
/// While it is set the reply keeps its row, its text and its parts; the store waits
/// `ChatPolicy.reconnectBackoff` before each attempt (`ConversationEffect.resumeReply`). A reply that cannot
/// be resumed (the attempts are spent, the backend cannot resume, the server no longer has the stream) is
/// committed `truncated` (`INCOMPLETE_STREAM`, naming `droppedBy`), with everything it streamed kept.
public struct ReplyResumption: Hashable, Sendable, Codable {
  /// What the reply's stream was: a send, a regeneration or a continuation run. The resumed stream is
  /// settled as that request would have been (a regeneration replaces its answer only once it finishes).
  public var purpose: PendingRequest
  /// Attempts that have failed since the reply last received a new event: the next one waits
  /// `reconnectBackoff.delay(attempt: failedAttempts, …)`.
  public var failedAttempts: Int
  /// Why the stream dropped the first time: what the reply ends with if it cannot be resumed.
  public var droppedBy: ChatError

  /// A reply waiting to resume after `failedAttempts` failures, first dropped by `droppedBy`.
  public init(purpose: PendingRequest, failedAttempts: Int, droppedBy: ChatError) {
    self.purpose = purpose
    self.failedAttempts = failedAttempts
    self.droppedBy = droppedBy
  }
}
