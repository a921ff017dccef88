/// How many terminal columns text takes, counted per `Character` the way common terminals draw it: East
/// Asian wide characters and emoji take two, combining marks and other zero-width scalars none.
///
/// A simple range check, not the full East Asian Width table: close enough for chat text, and the renderer
/// pads and cuts by this same count, so a miscounted character shifts its own line at worst.
enum TextWidth {
  static func columns(of text: some StringProtocol) -> Int {
    text.reduce(0) { $0 + columns(of: $1) }
  }

  static func columns(of character: Character) -> Int {
    let scalars = character.unicodeScalars
    guard let first = scalars.first, !isZeroWidth(first) else { return 0 }
    if isWide(first) { return 2 }
    // Variation selector 16 asks for emoji presentation ("❤️"), which terminals draw two columns wide.
    if scalars.contains("\u{FE0F}") { return 2 }
    return 1
  }

  /// `text` on one line with nothing a terminal would act on: line breaks and tabs become spaces, other
  /// control characters (an escape byte in a message must not reach the terminal) become "�".
  static func printable(_ text: some StringProtocol) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for character in text {
      if character.isNewline || character == "\t" {
        result.append(" ")
      } else if character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
        result.append("\u{FFFD}")
      } else {
        result.append(character)
      }
    }
    return result
  }

  private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .control, .format: return true
    default: return false
    }
  }

  private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.properties.isEmojiPresentation { return true }
    switch scalar.value {
    case 0x1100...0x115F,  // Hangul Jamo initials
      0x2E80...0x303E,  // CJK radicals, punctuation
      0x3041...0x33FF,  // kana, CJK symbols
      0x3400...0x4DBF, 0x4E00...0x9FFF,  // CJK ideographs
      0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,  // Yi, Hangul
      0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,  // compatibility ideographs, vertical forms
      0xFF00...0xFF60, 0xFFE0...0xFFE6,  // fullwidth forms
      0x1F300...0x1F64F, 0x1F900...0x1F9FF,  // pictographs, also the ones without emoji presentation
      0x20000...0x3FFFD:  // CJK extension planes
      return true
    default:
      return false
    }
  }
}
