import Testing

@testable import Demo

@Suite("Columns, padding and cutting")
struct TextWidthTests {
  @Test(
    "columns per character",
    arguments: [
      ("a", 1), ("é", 1), ("e\u{301}", 1), ("\u{301}", 0), ("\u{200B}", 0), ("日", 2), ("한", 2), ("Ａ", 2),
      ("👍", 2), ("👍🏽", 2), ("🇯🇵", 2), ("👩‍💻", 2), ("❤️", 2), ("❤", 1), ("⏳", 2), ("…", 1), ("▌", 1), ("─", 1),
      ("✗", 1),
    ] as [(Character, Int)])
  func characterColumns(character: Character, columns: Int) {
    #expect(TextWidth.columns(of: character) == columns)
  }

  @Test(
    "a line is padded to the width, or cut with … where a whole character still fits",
    arguments: [
      ("ab", 4, "ab  "), ("abcd", 4, "abcd"), ("abcdef", 4, "abc…"), ("日本語テキスト", 6, "日本… "),
      ("日本", 3, "日…"), ("日本", 4, "日本"), ("a👍b", 3, "a… "), ("abc", 1, "…"), ("abc", 0, ""),
    ])
  func fitted(text: String, width: Int, expected: String) {
    #expect(StyledLine(text).fitted(to: width).text == expected)
  }

  @Test("control characters never reach a line: breaks become spaces, the rest �")
  func printable() {
    #expect(StyledLine("a\nb\tc\u{1B}[2J\u{7}\u{9B}d").text == "a b c�[2J��d")
  }

  @Test(
    "wrapping breaks between words, inside a word only when it is longer than the line",
    arguments: [
      ("It ships today.", 8, ["It ships", "today."]),
      ("one  two", 20, ["one two"]),
      ("abcdefghij", 4, ["abcd", "efgh", "ij"]),
      ("first\nsecond", 20, ["first", "second"]),
      ("", 10, [""]),
      ("日本語のテキスト", 5, ["日本", "語の", "テキ", "スト"]),
      ("a 日本", 3, ["a", "日", "本"]),
    ])
  func wrap(text: String, width: Int, expected: [String]) {
    #expect(TextWrap.lines(text, width: width) == expected)
  }
}
