import ConversationStore

/// The follow-up queue (`ConversationState.followUps`) under the reply or the last message: each waiting
/// turn dimmed and numbered as `/unqueue N`, `/now N` and `/editq N` count them, then, when the queue is
/// paused, why and how to go on. The transcript says the same words.
enum FollowUpLines {
  static func lines(_ queue: FollowUpQueue, width: Int) -> [StyledLine] {
    var lines: [StyledLine] = []
    for (index, turn) in queue.turns.enumerated() {
      lines += wrapped(prefix: prefix(number: index + 1), turn.text, width: width).map { StyledLine($0, .dim) }
    }
    if let pause = pauseText(queue) {
      lines += wrapped(prefix: "", pause, width: width).map { StyledLine($0, .yellow) }
    }
    return lines
  }

  /// "⋯ 2 queued: ", before a turn's text.
  static func prefix(number: Int) -> String { "⋯ \(number) queued: " }

  /// Why the queue holds and the command that lets it go; nil while it drains by itself (an empty queue is
  /// never paused).
  static func pauseText(_ queue: FollowUpQueue) -> String? {
    guard let pause = queue.pause else { return nil }
    switch pause {
    case .answerEnded(_, let reply): return "queue paused: \(endingWords(reply)) — /resume to send the next"
    case .sendFailed: return "queue paused: a message of yours was not sent — /resume to send the next"
    case .refused(_, let error):
      // Resuming would only be refused again: the turn itself has to change.
      return "queue paused: the next was refused: \(MessageLines.reason(error)) — /editq 1 TEXT or /unqueue 1"
    }
  }

  private static func endingWords(_ reply: ReplyState) -> String {
    switch reply {
    case .cancelled: "the answer was stopped"
    case .failed: "the answer failed"
    case .truncated: "the answer was cut off"
    case .rejected: "the answer broke the protocol"
    case .streaming, .completed, .awaitingToolResults, .awaitingInput: "the answer did not complete"
    }
  }

  /// `text` after `prefix`, wrapped under its own start, so a long turn reads whole. In a pane too narrow to
  /// leave its text room, one line, which the pane cuts with "…".
  private static func wrapped(prefix: String, _ text: String, width: Int) -> [String] {
    let indent = TextWidth.columns(of: prefix)
    guard width - indent >= 8 else { return [prefix + text] }
    let lines = TextWrap.lines(text, width: width - indent)
    let padding = String(repeating: " ", count: indent)
    return lines.enumerated().map { ($0.offset == 0 ? prefix : padding) + $0.element }
  }
}
