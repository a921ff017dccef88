import Testing

@testable import Demo

@Suite("Every frame fits its terminal exactly")
struct FrameWidthTests {
  static let sizes: [(width: Int, height: Int)] = [
    (80, 24), (120, 40), (40, 10), (59, 30), (60, 30), (200, 60), (20, 5), (3, 3), (1, 1), (0, 0),
  ]

  @Test("exactly height lines, each exactly width columns once SGR is stripped", arguments: ScreenFixtures.all.map(\.0))
  func linesFillTheTerminal(name: String) {
    let screen = ScreenFixtures.all.first { $0.0 == name }!.1
    for (width, height) in Self.sizes {
      for color in [false, true] {
        let frame = FrameRenderer.render(screen, width: width, height: height, color: color)
        #expect(frame.count == height, "\(width)x\(height) color \(color)")
        for (row, line) in frame.enumerated() {
          let visible = FrameText.strippingSGR(line)
          #expect(!visible.contains("\u{1B}"), "row \(row) of \(width)x\(height) has an escape that is not SGR")
          #expect(
            TextWidth.columns(of: visible) == width, "row \(row) of \(width)x\(height), color \(color): \(visible)")
        }
      }
    }
  }

  @Test("without color there is no escape byte at all, even from a message that carries one", arguments: [false, true])
  func noEscapesWithoutColor(hostile: Bool) {
    let screen = hostile ? ScreenFixtures.hostile : ScreenFixtures.busy
    for (width, height) in Self.sizes {
      let frame = FrameRenderer.render(screen, width: width, height: height, color: false)
      #expect(!frame.joined().unicodeScalars.contains { $0.properties.generalCategory == .control })
    }
  }

  @Test("with color: failures red, the status bar and the selected row reversed, metadata dim")
  func colors() {
    let frame = FrameRenderer.render(ScreenFixtures.screen, width: 80, height: 24, color: true)
    #expect(frame[0].hasPrefix("\u{1B}[1;7m ConversationStore demo\u{1B}[0m\u{1B}[7m · \u{1B}[0m\u{1B}[7;32mconnected"))
    #expect(frame[6].contains("\u{1B}[31m✗ failed: No connection\u{1B}[0m"))
    #expect(frame[3].hasPrefix("\u{1B}[7m  \u{1B}[0m\u{1B}[2;7mPlease call me"))
    #expect(frame[22].hasPrefix("\u{1B}[2m/new"))
    #expect(
      FrameText.strippingSGR(frame[6])
        == FrameRenderer.render(ScreenFixtures.screen, width: 80, height: 24, color: false)[6])
  }

  @Test("wide characters and emoji take two columns: the padding after them is two shorter")
  func wideCharacters() {
    let frame = FrameRenderer.render(ScreenFixtures.hostile, width: 80, height: 24, color: false)
    // "> " 2 + 日本語 6 + " " + 👍🏽 2 + " " + é 1 = 13 columns.
    #expect(frame[21] == "> 日本語 👍🏽 e\u{301}" + String(repeating: " ", count: 67))
    #expect(FrameRenderer.cursor(ScreenFixtures.hostile, width: 80, height: 24) == CursorPosition(row: 21, column: 13))
    // The escape byte and the bell in the message are shown as "�", never sent to the terminal.
    #expect(frame[11].hasSuffix("│   �[31mred?� 🇯🇵 ❤️ 漢字の説明をお願いします" + String(repeating: " ", count: 9)))
  }
}
