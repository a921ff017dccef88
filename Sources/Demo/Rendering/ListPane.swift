import ConversationStore

/// The left pane: the user's conversations, most recent first as the list state orders them, two lines each
/// (title with its unread badge, then the preview). The row under the cursor is reversed.
enum ListPane {
  static func header(_ screen: DemoScreen) -> StyledLine {
    var line = StyledLine(screen.focus == .list ? "▸" : " ", .bold)
    line.append("Conversations", .bold)
    if screen.list.conversations.count > 0 { line.append(" (\(screen.list.conversations.count))", .dim) }
    return line
  }

  /// Exactly `height` lines of exactly `width` columns.
  static func lines(_ screen: DemoScreen, width: Int, height: Int) -> [StyledLine] {
    let list = screen.list
    var lines: [StyledLine] = []
    if let error = list.error { lines.append(StyledLine("✗ \(MessageLines.reason(error))", .red)) }
    if list.conversations.isEmpty {
      lines.append(StyledLine(list.isLoading ? " loading…" : " no conversations yet", .dim))
    }
    let room = max(0, height - lines.count)
    let rowHeight = room >= 2 ? 2 : 1
    let visibleRows = room / rowHeight
    // Scrolled just enough to keep the cursor's row in view.
    let firstRow = max(0, screen.selectedRow - visibleRows + 1)
    for (offset, summary) in list.conversations.dropFirst(firstRow).prefix(visibleRows).enumerated() {
      let isSelected = firstRow + offset == screen.selectedRow
      let isOpen = summary.id == screen.conversation?.conversationID
      let rowLines = row(summary, isOpen: isOpen, width: width).prefix(rowHeight)
      lines += rowLines.map { $0.fitted(to: width, style: isSelected ? .reverse : .plain) }
    }
    return (lines + Array(repeating: StyledLine(), count: max(0, height - lines.count))).prefix(height)
      .map { $0.fitted(to: width) }
  }

  private static func row(_ summary: ConversationSummary, isOpen: Bool, width: Int) -> [StyledLine] {
    let badge = summary.unreadCount > 0 ? "(\(summary.unreadCount))" : ""
    let badgeColumns = badge.isEmpty ? 0 : TextWidth.columns(of: badge) + 1
    let title = summary.title.isEmpty ? "Untitled" : summary.title
    var first = StyledLine(isOpen ? "•" : " ", .bold)
    first.append(StyledLine(title, .bold).fitted(to: max(0, width - 1 - badgeColumns)))
    if !badge.isEmpty { first.append(" \(badge)", TextStyle(bold: true, color: .yellow)) }

    var second = StyledLine("  ")
    if summary.status != .ongoing { second.append("\(ConversationPane.words(for: summary.status)) · ", .dim) }
    second.append(summary.lastMessagePreview ?? "", .dim)
    return [first, second]
  }
}
