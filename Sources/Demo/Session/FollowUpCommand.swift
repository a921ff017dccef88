import ConversationStore

/// What `/queue`, `/unqueue N`, `/now N`, `/editq N TEXT` and `/resume` ask of the follow-up queue
/// (`ConversationState.followUps`): the store's action, or the notice that answers instead. The turns are
/// numbered 1, 2, … in the order they will go, as the pane shows them. The demo only reads the line; the
/// store judges the rest (a turn sent meanwhile, a text too long) and its refusal shows as the state's error.
enum FollowUpCommand: Equatable {
  case action(ConversationAction)
  case notice(String)

  init(_ name: String, _ argument: String?, in state: ConversationState?) {
    let queue = state?.followUps ?? FollowUpQueue()
    switch name {
    case "queue": self = .notice(Self.listing(queue))
    case "resume":
      if queue.isEmpty {
        self = .notice(Self.nothingQueued)
      } else if queue.pause == nil {
        self = .notice("The queue is not paused: the next goes once the answer completes.")
      } else {
        self = .action(.resumeQueue)
      }
    default: self = Self.turnCommand(name, argument, queue)
    }
  }

  static let nothingQueued = "Nothing is queued: what you send while the agent answers waits here."

  /// `/unqueue N`, `/now N` and `/editq N TEXT`: each names one turn.
  private static func turnCommand(_ name: String, _ argument: String?, _ queue: FollowUpQueue) -> FollowUpCommand {
    guard !queue.isEmpty else { return .notice(nothingQueued) }
    let count = queue.turns.count
    let numbering = count == 1 ? "1 is the only one queued" : "the queued ones are 1 to \(count)"
    let usage = name == "editq" ? "/editq N TEXT" : "/\(name) N"
    let parts = (argument ?? "").split(separator: " ", maxSplits: 1)
    // Only /editq takes words after the number; `/now 2 please` is not a line to guess the meaning of.
    guard let number = parts.first.flatMap({ Int($0) }), name == "editq" || parts.count == 1 else {
      return .notice("Which one? \(usage), where \(numbering).")
    }
    guard (1...count).contains(number) else { return .notice("No turn \(number) is queued: \(numbering).") }
    let turn = queue.turns[number - 1].clientID
    switch name {
    case "unqueue": return .action(.removeQueued(turn))
    case "now": return .action(.sendQueuedNow(turn))
    default:
      let text = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
      guard !text.isEmpty else {
        return .notice("/editq \(number) needs the new text, for example /editq \(number) And the invoice?")
      }
      return .action(.editQueued(turn, text: text))
    }
  }

  /// The turns, numbered, one to a row, and what holds them when the queue is paused.
  private static func listing(_ queue: FollowUpQueue) -> String {
    guard !queue.isEmpty else { return nothingQueued }
    var lines = ["\(queue.turns.count) queued, each sent once the answer before it completed:"]
    for (index, turn) in queue.turns.enumerated() {
      // One row each: a line break inside a turn would look like another turn.
      lines.append("  \(index + 1). " + turn.text.split(whereSeparator: \.isNewline).joined(separator: " "))
    }
    lines.append(
      FollowUpLines.pauseText(queue) ?? "/unqueue N removes one, /now N sends it at once, /editq N TEXT rewrites it")
    return lines.joined(separator: "\n")
  }
}
