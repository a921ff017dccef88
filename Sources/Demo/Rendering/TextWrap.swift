/// Breaks text into lines that fit a pane.
enum TextWrap {
  /// `text` in lines of at most `width` columns, broken between words where it can be and inside a word
  /// only when the word alone is wider; the text's own line breaks are kept. Runs of spaces fold into one.
  static func lines(_ text: String, width: Int) -> [String] { layout(text, width: width).lines }

  /// The lines of `lines(_:width:)`, and where in `text` the last one begins. Every line before the last is
  /// final however the text goes on (greedy breaking decides a line by what precedes it and by the word
  /// that did not fit, and a word that grows fits less), so text streamed in can be wrapped from there on.
  static func layout(_ text: String, width: Int) -> (lines: [String], lastLineStart: String.Index) {
    let width = max(1, width)
    var lines: [String] = []
    var lineStart = text.startIndex
    for paragraph in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
      var line = ""
      var lineColumns = 0
      lineStart = paragraph.startIndex
      for word in paragraph.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
        let wordColumns = TextWidth.columns(of: word)
        if lineColumns > 0 && lineColumns + 1 + wordColumns <= width {
          line += " " + word
          lineColumns += 1 + wordColumns
          continue
        }
        if lineColumns > 0 { lines.append(line) }
        (line, lineColumns) = ("", 0)
        lineStart = word.startIndex
        for index in word.indices {
          let character = word[index]
          let characterColumns = TextWidth.columns(of: character)
          // A character wider than the whole pane still gets a line of its own rather than none.
          if lineColumns > 0 && lineColumns + characterColumns > width {
            lines.append(line)
            (line, lineColumns) = ("", 0)
            lineStart = index
          }
          line.append(character)
          lineColumns += characterColumns
        }
      }
      lines.append(line)
    }
    return (lines, lineStart)
  }
}
