import ConversationStore
import Foundation

/// What is happening now, below the messages: the reply being streamed (its tool calls, its text so far and
/// a cursor), the agent thinking, what waits to be sent after it, people typing, a ticket, and the feedback
/// question.
enum ConversationActivity {
  static let cursor = "▌"
  static let feedbackCommands = "/feedback good|bad|dismiss"

  /// `replyLayout`, when given, keeps the streamed reply's wrapped lines from frame to frame, so each frame
  /// wraps only what was appended (the lines are the same either way).
  static func lines(
    _ state: ConversationState, now: Date, width: Int, replyLayout: ReplyLayoutCache? = nil,
    showsReasoning: Bool = false
  ) -> [StyledLine] {
    var lines: [StyledLine] = []
    // Older replies still streaming beside the newest, each as it stands (no cached layout: rare).
    for reply in state.overlappingReplies {
      lines += replyLines(reply, activity: .generating, width: width, layout: nil, showsReasoning: showsReasoning)
    }
    if let reply = state.streamingReply {
      lines += replyLines(
        reply, activity: state.agentActivity, width: width, layout: replyLayout, showsReasoning: showsReasoning)
    } else if let waiting = activityLine(state.agentActivity) {
      lines.append(waiting)
    }
    lines += FollowUpLines.lines(state.followUps, width: width)
    // Expired indicators are only dropped when the reducer's timer fires; the screen should not wait for it.
    let typing = state.typing.values.filter { $0 > now }.count
    if typing == 1 { lines.append(StyledLine("agent is typing…", .dim)) }
    if typing > 1 { lines.append(StyledLine("\(typing) people are typing…", .dim)) }
    if let escalation = state.escalation { lines.append(escalationLine(escalation)) }
    if let moment = state.feedbackMoment { lines += feedbackLines(moment, width: width) }
    return lines
  }

  private static func replyLines(
    _ reply: StreamingReply, activity: AgentActivity, width: Int, layout: ReplyLayoutCache?, showsReasoning: Bool
  ) -> [StyledLine] {
    var lines = [StyledLine(reply.agent?.name ?? "Assistant", .bold)]
    let indent = MessageLines.indent
    // Reasoning shows as it streams, dimmed: collapsed to its newest words, or whole when asked (never its
    // encrypted value).
    for part in reply.parts where part.kind == .reasoning {
      if showsReasoning {
        let text = "💭 " + part.text.string + (part.isOpen ? "…" : "")
        lines += TextWrap.lines(text, width: width - indent.count).map { StyledLine(indent + $0, .dim) }
        continue
      }
      let tail = part.text.substring(fromUTF8: max(0, part.text.utf8Count - 4 * width))
      let words = tail.split(whereSeparator: \.isWhitespace).suffix(12).joined(separator: " ")
      lines.append(StyledLine("\(indent)💭 \(words)\(part.isOpen ? "…" : "")", .dim))
    }
    for call in reply.toolCalls {
      var line = StyledLine(indent)
      if call.outcome == .inputStreaming, let input = reply.parts.last(where: { $0.kind == .toolCall(call.id) }) {
        // Its arguments as they arrive: the newest of them, raw.
        let raw = input.text.substring(fromUTF8: max(0, input.text.utf8Count - 2 * width))
        line.append(StyledLine("⚙ \(call.name)(\(raw)…", .yellow))
      } else {
        line.append(toolCallLine(call))
      }
      lines.append(line)
    }
    let text = reply.presentedText
    if !text.isEmpty {
      // Shown as it arrives: wrap only what was appended since the last frame. Paced or held back, the text
      // shown is a prefix that is not the whole text, and is wrapped whole.
      var wrapped =
        if let layout, reply.presentedUTF8Count == nil {
          layout.lines(of: reply.text, reply: reply.clientID, width: width - indent.count)
        } else {
          TextWrap.lines(text, width: width - indent.count)
        }
      if TextWidth.columns(of: wrapped[wrapped.count - 1]) < width - indent.count {
        wrapped[wrapped.count - 1] += cursor
      } else {
        wrapped.append(cursor)
      }
      lines += wrapped.map { StyledLine(indent + $0) }
    } else if !reply.toolCalls.contains(where: { $0.outcome == .running }) {
      var line = StyledLine(indent)
      line.append(activityLine(activity) ?? StyledLine(cursor))
      lines.append(line)
    }
    return lines
  }

  /// The agent at work with no text to show yet. Generating counts as thinking: text that is held back
  /// (paced presentation) or not yet arrived shows nothing else.
  private static func activityLine(_ activity: AgentActivity) -> StyledLine? {
    switch activity {
    case .thinking, .generating: return StyledLine("thinking…", .dim)
    case .runningTool(let name): return StyledLine("⚙ \(ToolCallDescription.words(name: name, input: nil))…", .yellow)
    case .idle: return nil
    }
  }

  private static func toolCallLine(_ call: ToolCall) -> StyledLine {
    let status = ToolCallDescription.status(call)
    return StyledLine(status.text, status.style)
  }

  private static func escalationLine(_ escalation: Escalation) -> StyledLine {
    switch escalation {
    case .creating: return StyledLine("creating a ticket…", .dim)
    case .created(let receipt): return StyledLine("✓ ticket \(receipt.ticketID) created", .green)
    case .failed(_, let error): return StyledLine("✗ ticket not created: \(MessageLines.reason(error))", .red)
    }
  }

  private static func feedbackLines(_ moment: FeedbackMoment, width: Int) -> [StyledLine] {
    switch moment.phase {
    case .open:
      var lines = TextWrap.lines(moment.question, width: width).map { StyledLine($0, .bold) }
      if lines[lines.count - 1].columns + 1 + feedbackCommands.count <= width {
        lines[lines.count - 1].append(" \(feedbackCommands)", .dim)
      } else {
        lines.append(StyledLine(feedbackCommands, .dim))
      }
      return lines
    case .rated(let rating, _):
      let emoji = rating == .up ? " 👍" : rating == .down ? " 👎" : ""
      return [StyledLine("Thanks for your feedback\(emoji)", .dim)]
    case .dismissed:
      return []
    }
  }
}
