/// The messages the user wrote while the agent was answering, waiting their turn
/// (`ConversationState.followUps`): sent one at a time, each once the answer before it completed.
///
/// With the default `ChatPolicy.whileAnswering` (`.queue`), a `send` while the agent answers
/// (`ConversationState.isAnswering`) lands here instead of starting a second reply beside the first. The
/// queue drains by itself: when nothing is answering and the last answer ended `completed`, the first turn
/// is sent, as `send` sends (its client ID is its idempotency key, the outbox takes it offline). An answer
/// that ends any other way (stopped, failed, cut off, rejected) or a message of the user's that fails
/// pauses it (`pause`) until the user resumes it (`resumeQueue`), sends one now (`sendQueuedNow`), or
/// empties it; while the agent waits for the user (`ReplyState.awaitingInput`) it holds without pausing and
/// goes on once the answer completes; retrying a failed message does not resume it (the user says when). It
/// holds at most `ChatPolicy.maximumFollowUps` turns (a send past that is refused, `TOO_MANY_FOLLOW_UPS`).
/// It is stored with the conversation: a kill or a relaunch keeps it.
///
/// ```swift
/// for (index, turn) in state.followUps.turns.enumerated() {
///   queuedRow(number: index + 1, text: turn.text, dimmed: true)
/// }
/// if let pause = state.followUps.pause { resumeBanner(pause) }  // sends `.resumeQueue`
/// ```
public struct FollowUpQueue: Hashable, Sendable, Codable {
  /// The turns, in the order they will be sent. Each is a message as `send` takes it; its `createdAt` is
  /// the time the user wrote it (the caller's clock).
  public package(set) var turns: [OutgoingMessage] = []
  /// Why the queue does not drain until the user says so; nil while it drains by itself.
  public package(set) var pause: FollowUpPause?
  /// The last message whose ending the queue has judged (the one that paused it, kept when it is resumed),
  /// so that resuming after a stopped answer does not pause again for the same answer.
  package var judged: ClientMessageID?

  public init() {}

  /// Whether no turn waits.
  public var isEmpty: Bool { turns.isEmpty }

  /// The place of the turn with client ID `clientID`, if one waits.
  public func index(of clientID: ClientMessageID) -> Int? { turns.firstIndex { $0.clientID == clientID } }
}

/// Why a follow-up queue stopped draining by itself (`FollowUpQueue.pause`).
public enum FollowUpPause: Hashable, Sendable, Codable {
  /// The answer before ended without completing (`ReplyState.isCutShort`: stopped, failed, cut off, or
  /// rejected): sending the next turn on its own would answer a question the agent never finished.
  case answerEnded(ClientMessageID, ReplyState)
  /// A message of the user's before the queue could not be sent (`Message.delivery` is `.failed`).
  case sendFailed(ClientMessageID)
  /// The first turn was refused when its time came (a limit of `ChatPolicy` it no longer meets): it waits,
  /// first, for the user to edit, remove or take it into the draft.
  case refused(ClientMessageID, ChatError)
}

/// What `send` does while the agent is answering (`ChatPolicy.whileAnswering`).
public enum FollowUpPolicy: String, Hashable, Sendable, Codable {
  /// The message waits in `ConversationState.followUps` and goes once the answer completed (the default).
  case queue
  /// The message is sent at once and a second reply streams beside the first (`overlappingReplies`).
  case overlap
  /// The running reply is stopped, keeping what it streamed, and the message is sent.
  case stopAndSend
}
