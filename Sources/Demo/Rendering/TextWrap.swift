/// Breaks text into lines that fit a pane.
enum TextWrap {
  /// `text` in lines of at most `width` columns, broken between words where it can be and inside a word
  /// only when the word alone is wider; the text's own line breaks are kept. Runs of spaces fold into one.
  static func lines(_ text: String, width: Int) -> [String] {
    let width = max(1, width)
    var lines: [String] = []
    for paragraph in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
      var line = ""
      var lineColumns = 0
      for word in paragraph.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
        let wordColumns = TextWidth.columns(of: word)
        if lineColumns > 0 && lineColumns + 1 + wordColumns <= width {
          line += " " + word
          lineColumns += 1 + wordColumns
          continue
        }
        if lineColumns > 0 { lines.append(line) }
        (line, lineColumns) = ("", 0)
        for character in word {
          let characterColumns = TextWidth.columns(of: character)
          // A character wider than the whole pane still gets a line of its own rather than none.
          if lineColumns > 0 && lineColumns + characterColumns > width {
            lines.append(line)
            (line, lineColumns) = ("", 0)
          }
          line.append(character)
          lineColumns += characterColumns
        }
      }
      lines.append(line)
    }
    return lines
  }
}
