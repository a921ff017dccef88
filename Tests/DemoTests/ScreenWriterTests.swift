import ConversationState
import Testing

@testable import Demo

@Suite("Writing frames")
struct ScreenWriterTests {
  final class Output: Sendable {
    let writes = StateLock<[String]>([])
    func take() -> [String] {
      writes.withLock { writes in
        defer { writes = [] }
        return writes
      }
    }
  }

  static let hide = "\u{1B}[?25l"
  static let show = "\u{1B}[?25h"

  @Test("the first frame is drawn in full; the next writes only the lines that changed")
  func onlyChangedLines() {
    let output = Output()
    let writer = ScreenWriter { text in output.writes.withLock { $0.append(text) } }
    writer.write(["one  ", "two  ", "three"], cursor: CursorPosition(row: 2, column: 5))
    #expect(
      output.take() == [
        Self.hide + "\u{1B}[0m\u{1B}[2J" + "\u{1B}[1;1Hone  " + "\u{1B}[2;1Htwo  " + "\u{1B}[3;1Hthree"
          + "\u{1B}[3;6H" + Self.show
      ])
    writer.write(["one  ", "TWO  ", "three"], cursor: CursorPosition(row: 2, column: 5))
    #expect(output.take() == [Self.hide + "\u{1B}[2;1H\u{1B}[2KTWO  " + "\u{1B}[3;6H" + Self.show])
  }

  @Test("an unchanged frame writes nothing; a moved cursor only moves the cursor")
  func nothingChanged() {
    let output = Output()
    let writer = ScreenWriter { text in output.writes.withLock { $0.append(text) } }
    writer.write(["a", "b"], cursor: CursorPosition(row: 1, column: 0))
    _ = output.take()
    writer.write(["a", "b"], cursor: CursorPosition(row: 1, column: 0))
    #expect(output.take().isEmpty)
    writer.write(["a", "b"], cursor: CursorPosition(row: 1, column: 1))
    #expect(output.take() == [Self.hide + "\u{1B}[2;2H" + Self.show])
    writer.write(["a", "b"], cursor: nil)
    #expect(output.take() == [Self.hide])
  }

  @Test("after invalidate, or a frame with another number of lines, the next frame is drawn in full")
  func fullRedraw() {
    let output = Output()
    let writer = ScreenWriter { text in output.writes.withLock { $0.append(text) } }
    writer.write(["a", "b"], cursor: nil)
    writer.invalidate()
    writer.write(["a", "b"], cursor: nil)
    writer.write(["a", "b", "c"], cursor: nil)
    let writes = output.take()
    #expect(writes.count == 3)
    #expect(writes.allSatisfy { $0.contains("\u{1B}[2J") && $0.contains("\u{1B}[1;1Ha") })
  }

  @Test("real frames: typing one character rewrites the composer line only")
  func typing() {
    let output = Output()
    let writer = ScreenWriter { text in output.writes.withLock { $0.append(text) } }
    var screen = ScreenFixtures.screen
    writer.write(
      FrameRenderer.render(screen, width: 80, height: 24, color: true),
      cursor: FrameRenderer.cursor(screen, width: 80, height: 24))
    _ = output.take()
    screen.composer += "?"
    writer.write(
      FrameRenderer.render(screen, width: 80, height: 24, color: true),
      cursor: FrameRenderer.cursor(screen, width: 80, height: 24))
    let composer = FrameRenderer.render(screen, width: 80, height: 24, color: true)[21]
    #expect(output.take() == [Self.hide + "\u{1B}[22;1H\u{1B}[2K" + composer + "\u{1B}[22;11H" + Self.show])
  }
}
