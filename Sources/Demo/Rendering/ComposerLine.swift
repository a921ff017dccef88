/// The line the user types in: a prompt and the text, with the cursor just after it. A text longer than the
/// line shows its end, where the typing is.
enum ComposerLine {
  static let prompt = "> "

  static func line(_ composer: String, width: Int) -> (line: StyledLine, cursorColumn: Int) {
    let text = TextWidth.printable(composer)
    let promptColumns = TextWidth.columns(of: prompt)
    // One cell stays free after the text for the cursor.
    let room = width - promptColumns - 1
    var line = StyledLine(prompt, .bold)
    var shown = text
    if TextWidth.columns(of: text) > room {
      var tail = ""
      var columns = 0
      for character in text.reversed() {
        let characterColumns = TextWidth.columns(of: character)
        if columns + characterColumns > room - 1 { break }
        tail.insert(character, at: tail.startIndex)
        columns += characterColumns
      }
      line.append("…", .dim)
      shown = tail
    }
    line.append(shown)
    return (line, max(0, min(width - 1, line.columns)))
  }
}
