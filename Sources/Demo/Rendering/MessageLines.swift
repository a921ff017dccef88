import ConversationStore

/// One message as the conversation pane shows it: a line naming who wrote it and where it is on its way,
/// then its text, indented.
enum MessageLines {
  static let indent = "  "

  static func lines(
    _ message: Message, width: Int, isSelected: Bool, showsReasoning: Bool = false,
    place: ConversationBranches.Place? = nil
  ) -> [StyledLine] {
    var header = StyledLine()
    if isSelected { header.append("▸ ", TextStyle(bold: true, reverse: true)) }
    header.append(author(of: message), message.role == .user ? TextStyle(bold: true, color: .cyan) : .bold)
    var details = details(of: message)
    if let place { details.append((siblingMark(place), .dim)) }
    for (text, style) in details {
      header.append(" · ", .dim)
      header.append(text, style)
    }
    var lines = [header]
    lines += reasoningLines(message.parts, width: width, whole: showsReasoning)
    if !message.text.isEmpty {
      lines += TextWrap.lines(message.text, width: width - indent.count).map { StyledLine(indent + $0) }
    }
    for call in ToolCallDescription.shown(message) {
      let status = ToolCallDescription.status(call)
      lines.append(StyledLine(indent + status.text, status.style))
    }
    if case .awaitingInput(let requests) = message.reply { lines += requestLines(requests) }
    for attachment in message.attachments { lines.append(StyledLine("\(indent)📎 \(attachment.filename)", .dim)) }
    for source in message.sources { lines.append(StyledLine("\(indent)📚 \(source.title)", .dim)) }
    return lines
  }

  /// A committed answer's reasoning, dimmed: collapsed to one line each, or `whole` (the encrypted value is
  /// never shown).
  static func reasoningLines(_ parts: [MessagePart], width: Int, whole: Bool) -> [StyledLine] {
    parts.flatMap { part -> [StyledLine] in
      guard case .reasoning(let reasoning) = part.content else { return [] }
      guard whole else {
        let words = reasoning.text.split(whereSeparator: \.isWhitespace).count
        return [StyledLine("\(indent)💭 thought it through (\(words) words; ^R shows it)", .dim)]
      }
      return TextWrap.lines("💭 " + reasoning.text, width: width - indent.count).map { StyledLine(indent + $0, .dim) }
    }
  }

  /// What the agent asks and is still waiting for, each with the commands that answer it.
  static func requestLines(_ requests: [InputRequest]) -> [StyledLine] {
    requests.filter { $0.answer == nil }.map { request in
      StyledLine(
        "\(indent)❓ \(request.message ?? "The agent asks for your answer.") \(commands(for: request))", .yellow)
    }
  }

  /// The demo commands that answer `request`.
  static func commands(for request: InputRequest) -> String {
    if case .question = request.kind { "/answer TEXT or /deny" } else { "/approve or /deny [why]" }
  }

  /// A message's place among its siblings, as the picker shows it: `‹ 2/3 ›` (`/prev`, `/next`).
  static func siblingMark(_ place: ConversationBranches.Place) -> String { "‹ \(place.index + 1)/\(place.count) ›" }

  static func author(of message: Message) -> String {
    switch message.role {
    case .user: return "you"
    case .assistant: return message.agent?.name ?? "Assistant"
    case .humanAgent: return message.agent?.name ?? "Agent"
    case .system: return "system"
    }
  }

  /// What went wrong, in the server's words when it gave some.
  static func reason(_ error: ChatError) -> String {
    error.message.isEmpty ? error.code.rawValue : error.message
  }

  /// Delivery, the reply's outcome and the rating, in that order.
  private static func details(of message: Message) -> [(String, TextStyle)] {
    var details: [(String, TextStyle)] = []
    switch message.delivery {
    case .pending: details.append(("… waiting", .dim))
    case .sending: details.append(("… sending", .dim))
    case .queued: details.append(("⏳ queued", .yellow))
    case .failed(let error): details.append(("✗ failed: \(reason(error))", .red))
    case .sent: break
    }
    if let outcome = ReplyOutcomeWords.words(message.reply) { details.append(outcome) }
    switch message.rating {
    case .up: details.append(("👍", .plain))
    case .down: details.append(("👎", .plain))
    case .none: break
    }
    return details
  }

  /// The suggestions under an answer, numbered for `/suggest N`: "↳ 1 Track it · 2 Change it"; nil for none.
  static func suggestionsLine(_ suggestions: [String]) -> String? {
    guard !suggestions.isEmpty else { return nil }
    return "  ↳ " + suggestions.enumerated().map { "\($0.offset + 1) \($0.element)" }.joined(separator: " · ")
  }
}
