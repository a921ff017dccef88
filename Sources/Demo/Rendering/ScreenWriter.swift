import ConversationState

/// Puts frames on the terminal, writing only the lines that changed since the previous frame (cursor move,
/// clear line, line), all of a frame in one write so it never shows half drawn.
///
/// Safe to call from several tasks (the session's redraws, resizes, a clock tick): frames are written one at
/// a time, each diffed against the one written just before it.
final class ScreenWriter: Sendable {
  private struct State {
    /// Nil before the first frame and after `invalidate()`: the next frame is drawn in full.
    var lines: [String]?
    var cursor: CursorPosition?
  }

  private let state = StateLock(State())
  private let sink: @Sendable (String) -> Void

  /// `sink` receives the bytes to write, at most once per frame.
  init(_ sink: @escaping @Sendable (String) -> Void) {
    self.sink = sink
  }

  /// Draws `lines` (each exactly as wide as the terminal) and leaves the cursor at `cursor`, hidden when nil.
  func write(_ lines: [String], cursor: CursorPosition?) {
    state.withLock { state in
      let output = Self.output(from: state, to: lines, cursor: cursor)
      state = State(lines: lines, cursor: cursor)
      if !output.isEmpty { sink(output) }
    }
  }

  /// Makes the next frame a full redraw: after a resize, the terminal may have moved or cut what was drawn.
  func invalidate() {
    state.withLock { $0.lines = nil }
  }

  private static func output(from previous: State, to lines: [String], cursor: CursorPosition?) -> String {
    var changes = ""
    if let old = previous.lines, old.count == lines.count {
      for (row, line) in lines.enumerated() where line != old[row] {
        changes += ANSI.moveTo(row: row, column: 0) + ANSI.clearLine + line
      }
      if changes.isEmpty && cursor == previous.cursor { return "" }
    } else {
      changes = ANSI.reset + ANSI.clearScreen
      for (row, line) in lines.enumerated() { changes += ANSI.moveTo(row: row, column: 0) + line }
    }
    // Hidden while lines are drawn, so it does not flicker across the screen.
    var output = ANSI.hideCursor + changes
    if let cursor { output += ANSI.moveTo(row: cursor.row, column: cursor.column) + ANSI.showCursor }
    return output
  }
}
