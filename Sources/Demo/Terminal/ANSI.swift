/// The few escape sequences the demo writes (ECMA-48 / xterm), so no other file spells out an escape byte.
enum ANSI {
  /// Select Graphic Rendition parameters: the styles and foreground colors the renderer uses.
  enum SGR: Int, Sendable {
    case reset = 0
    case bold = 1
    case dim = 2
    case reverse = 7
    case red = 31
    case green = 32
    case yellow = 33
    case cyan = 36
  }

  static let escape = "\u{1B}"
  static let clearScreen = "\u{1B}[2J"
  static let clearLine = "\u{1B}[2K"
  static let hideCursor = "\u{1B}[?25l"
  static let showCursor = "\u{1B}[?25h"
  /// xterm's 1049 also saves the cursor, so leaving puts the shell's prompt back where it was.
  static let enterAlternateScreen = "\u{1B}[?1049h"
  static let leaveAlternateScreen = "\u{1B}[?1049l"
  static let reset = "\u{1B}[0m"
  /// With autowrap off, a line the terminal draws wider than counted is clipped at the edge instead of
  /// wrapping and shifting every line below it.
  static let autowrapOff = "\u{1B}[?7l"
  static let autowrapOn = "\u{1B}[?7h"

  /// Moves the cursor to `row` and `column`, counted from 0 (the terminal counts from 1).
  static func moveTo(row: Int, column: Int) -> String {
    "\u{1B}[\(row + 1);\(column + 1)H"
  }

  /// One SGR sequence setting all of `codes`; an empty list would mean reset, so it is written as one.
  static func style(_ codes: [SGR]) -> String {
    let parameters = codes.isEmpty ? "0" : codes.map { String($0.rawValue) }.joined(separator: ";")
    return "\u{1B}[\(parameters)m"
  }
}
