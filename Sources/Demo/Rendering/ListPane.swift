import ConversationStore

/// The left pane: the user's conversations as a sidebar draws them (`ConversationListState.shown`: pinned
/// first, each with 📌, then the others by activity; under `/archived` only the archived ones), two lines
/// each (title with its unread badge or the user's unread mark, then the preview). The row under the cursor
/// is reversed. The list's refusals show with the notices, as the conversation's do.
enum ListPane {
  /// Put before a pinned row's title, here and in the transcript.
  static let pinMark = "📌"
  /// Put after the title of a row the user marked unread (`/unread`) that has nothing unread counted.
  static let unreadMark = "●"

  static func header(_ screen: DemoScreen) -> StyledLine {
    var line = StyledLine(screen.focus == .list ? "▸" : " ", .bold)
    let count = screen.list.shown.count
    line.append(screen.list.showsArchived ? "Archived" : "Conversations", .bold)
    if count > 0 { line.append(" (\(count))", .dim) }
    return line
  }

  /// Exactly `height` lines of exactly `width` columns.
  static func lines(_ screen: DemoScreen, width: Int, height: Int) -> [StyledLine] {
    let list = screen.list
    let rows = list.shown
    var lines: [StyledLine] = []
    if rows.isEmpty {
      let empty =
        list.showsArchived
        ? " nothing archived; /archived shows the others"
        : list.isLoading
          ? " loading…" : list.conversations.isEmpty ? " no conversations yet" : " all archived: /archived"
      lines.append(StyledLine(empty, .dim))
    }
    let room = max(0, height - lines.count)
    let rowHeight = room >= 2 ? 2 : 1
    let visibleRows = room / rowHeight
    // Scrolled just enough to keep the cursor's row in view.
    let firstRow = max(0, screen.selectedRow - visibleRows + 1)
    for (offset, summary) in rows.dropFirst(firstRow).prefix(visibleRows).enumerated() {
      let isSelected = firstRow + offset == screen.selectedRow
      let isOpen = summary.id == screen.conversation?.conversationID
      let rowLines = row(summary, isOpen: isOpen, width: width).prefix(rowHeight)
      lines += rowLines.map { $0.fitted(to: width, style: isSelected ? .reverse : .plain) }
    }
    return (lines + Array(repeating: StyledLine(), count: max(0, height - lines.count))).prefix(height)
      .map { $0.fitted(to: width) }
  }

  /// A row's title as the list draws it: "Untitled" for none, the pin before it.
  static func title(_ summary: ConversationSummary) -> String {
    let title = summary.title.isEmpty ? "Untitled" : TextWidth.printable(summary.title)
    return summary.isPinned ? "\(pinMark) \(title)" : title
  }

  private static func row(_ summary: ConversationSummary, isOpen: Bool, width: Int) -> [StyledLine] {
    let badge =
      summary.unreadCount > 0 ? "(\(summary.unreadCount))" : summary.isMarkedUnread ? unreadMark : ""
    let badgeColumns = badge.isEmpty ? 0 : TextWidth.columns(of: badge) + 1
    var first = StyledLine(isOpen ? "•" : " ", .bold)
    first.append(StyledLine(title(summary), .bold).fitted(to: max(0, width - 1 - badgeColumns)))
    if !badge.isEmpty { first.append(" \(badge)", TextStyle(bold: true, color: .yellow)) }

    var second = StyledLine("  ")
    if summary.status != .ongoing { second.append("\(ConversationPane.words(for: summary.status)) · ", .dim) }
    second.append(summary.lastMessagePreview ?? "", .dim)
    return [first, second]
  }
}
