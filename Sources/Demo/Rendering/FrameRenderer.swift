import ConversationStore

/// Draws a `DemoScreen` as the lines of a terminal of a given size: a pure function, so frames can be
/// compared as text in tests and printed as they are by script mode.
enum FrameRenderer {
  /// Exactly `height` lines, each exactly `width` columns wide when printed. With `color` off there is no
  /// escape sequence in them at all. `replyLayout` keeps a streamed reply's wrapping between frames (the
  /// frame is the same with or without it).
  static func render(
    _ screen: DemoScreen, width: Int, height: Int, color: Bool, replyLayout: ReplyLayoutCache? = nil
  ) -> [String] {
    styledLines(screen, width: width, height: height, replyLayout: replyLayout).map { $0.rendered(color: color) }
  }

  /// The frame's lines with their styles, as `render` draws them (for a picture of the frame: `FrameSVG`).
  static func styled(_ screen: DemoScreen, width: Int, height: Int) -> [StyledLine] {
    styledLines(screen, width: width, height: height, replyLayout: nil)
  }

  /// Where the terminal's cursor goes: just after the composer's text. Nil when the terminal has no room.
  static func cursor(_ screen: DemoScreen, width: Int, height: Int) -> CursorPosition? {
    let (layout, _, _) = layout(screen, width: width, height: height)
    guard let row = layout.composerRow else { return nil }
    return CursorPosition(row: row, column: ComposerLine.line(screen.composer, width: width).cursorColumn)
  }

  private static func styledLines(_ screen: DemoScreen, width: Int, height: Int, replyLayout: ReplyLayoutCache?)
    -> [StyledLine]
  {
    let width = max(0, width)
    let (layout, notices, help) = layout(screen, width: width, height: height)
    var lines = Array(repeating: StyledLine(), count: max(0, height))
    if let row = layout.statusRow { lines[row] = StatusBar.line(screen).fitted(to: width, style: .reverse) }
    if let row = layout.headerRow {
      lines[row] = panes(layout, ListPane.header(screen), ConversationPane.header(screen), separator: "│")
    }
    let rows = layout.bodyRows.count
    let list = layout.listWidth > 0 ? ListPane.lines(screen, width: layout.listWidth, height: rows) : []
    let conversation =
      layout.conversationWidth > 0
      ? ConversationPane.lines(screen, width: layout.conversationWidth, height: rows, replyLayout: replyLayout) : []
    for (offset, row) in layout.bodyRows.enumerated() {
      lines[row] = panes(
        layout, list.isEmpty ? StyledLine() : list[offset],
        conversation.isEmpty ? StyledLine() : conversation[offset], separator: "│")
    }
    if let row = layout.ruleRow {
      lines[row] = panes(
        layout, StyledLine(String(repeating: "─", count: layout.listWidth), .dim),
        StyledLine(String(repeating: "─", count: layout.conversationWidth), .dim), separator: "┴")
    }
    for (offset, row) in layout.noticeRows.enumerated() { lines[row] = notices[offset] }
    if let row = layout.composerRow { lines[row] = ComposerLine.line(screen.composer, width: width).line }
    for (offset, row) in layout.helpRows.enumerated() { lines[row] = help[offset] }
    return lines.map { $0.fitted(to: width) }
  }

  private static func layout(_ screen: DemoScreen, width: Int, height: Int) -> (
    FrameLayout, notices: [StyledLine], help: [StyledLine]
  ) {
    let notices = noticeLines(screen)
    let help = HelpLine.lines(width: width, maximum: FrameLayout.helpCapacity(height: height))
    let layout = FrameLayout(
      width: width, height: height, notices: notices.count, helpLines: help.count, focus: screen.focus)
    return (layout, notices, help)
  }

  /// The refusal of what the user last asked for, in red (the conversation's, then the list's), the offer
  /// to undo a deletion, then the session's own notice.
  private static func noticeLines(_ screen: DemoScreen) -> [StyledLine] {
    var lines: [StyledLine] = []
    for error in [screen.conversation?.userError, screen.list.shownError].compactMap(\.self) {
      lines.append(StyledLine("✗ \(MessageLines.reason(error))", .red))
    }
    if let undo = screen.undoNotice { lines.append(StyledLine(undo, .yellow)) }
    // A notice may be several lines (`/search` results), each a row.
    for line in (screen.notice ?? "").split(separator: "\n") { lines.append(StyledLine(String(line), .yellow)) }
    return lines
  }

  /// The list and conversation pane parts of one row side by side, or the one pane that is shown.
  private static func panes(_ layout: FrameLayout, _ list: StyledLine, _ conversation: StyledLine, separator: String)
    -> StyledLine
  {
    var line = StyledLine()
    if layout.listWidth > 0 { line.append(list.fitted(to: layout.listWidth)) }
    if layout.hasSeparator { line.append(separator, .dim) }
    if layout.conversationWidth > 0 { line.append(conversation.fitted(to: layout.conversationWidth)) }
    return line
  }
}
