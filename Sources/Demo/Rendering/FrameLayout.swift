/// Where each part of a frame goes on a terminal of a given size. The renderer and the cursor position both
/// read it, so the cursor always lands on the composer line that was drawn.
///
/// Top to bottom: status bar, pane headers, panes, a rule, notices, the composer, help. On small terminals
/// the help, rule and headers go first; the composer goes last.
struct FrameLayout: Equatable, Sendable {
  var statusRow: Int?
  var headerRow: Int?
  var bodyRows: Range<Int>
  var ruleRow: Int?
  var noticeRows: Range<Int>
  var composerRow: Int?
  var helpRows: Range<Int>
  /// 0 when the list is hidden.
  var listWidth: Int
  /// 0 when the conversation is hidden.
  var conversationWidth: Int

  /// Below this width the panes do not fit side by side, so only the focused one is shown.
  static let twoPaneMinimumWidth = 60

  init(width: Int, height: Int, notices: Int, helpLines: Int, focus: DemoScreen.Focus) {
    let height = max(0, height)
    let width = max(0, width)
    let composer = height >= 1 ? 1 : 0
    let status = height >= 2 ? 1 : 0
    let help = min(helpLines, Self.helpCapacity(height: height))
    let header = height >= 5 ? 1 : 0
    let rule = height >= 8 ? 1 : 0
    let remaining = height - composer - status - help - header - rule
    // A notice never takes the last row the conversation has.
    let noticeCount = min(notices, max(0, remaining - 1))
    let body = remaining - noticeCount

    var row = 0
    func take(_ count: Int) -> Range<Int> {
      defer { row += count }
      return row..<(row + count)
    }
    statusRow = take(status).first
    headerRow = take(header).first
    bodyRows = take(body)
    ruleRow = take(rule).first
    noticeRows = take(noticeCount)
    composerRow = take(composer).first
    helpRows = take(help)

    if width >= Self.twoPaneMinimumWidth {
      listWidth = min(40, max(20, width / 3))
      conversationWidth = width - listWidth - 1
    } else {
      listWidth = focus == .list ? width : 0
      conversationWidth = focus == .list ? 0 : width
    }
  }

  /// How many help lines a terminal this tall can spare.
  static func helpCapacity(height: Int) -> Int {
    height >= 16 ? 2 : height >= 6 ? 1 : 0
  }

  /// Whether both panes are shown, with a separator column between them.
  var hasSeparator: Bool { listWidth > 0 && conversationWidth > 0 }
}
