/// One line of a frame as pieces of styled text. Widths are counted on the text alone; escape sequences are
/// added only by `rendered(color:)`, so padding can never be thrown off by them.
struct StyledLine: Equatable, Sendable {
  struct Span: Equatable, Sendable {
    var text: String
    var style: TextStyle
  }

  private(set) var spans: [Span] = []

  init() {}

  init(_ text: String, _ style: TextStyle = .plain) {
    append(text, style)
  }

  var columns: Int { spans.reduce(0) { $0 + TextWidth.columns(of: $1.text) } }

  /// The line without styles.
  var text: String { spans.map(\.text).joined() }

  /// Adds `text` made printable: every path into a frame goes through here, so no text from a message can
  /// move the cursor or restyle the terminal.
  mutating func append(_ text: some StringProtocol, _ style: TextStyle = .plain) {
    guard !text.isEmpty else { return }
    let printable = TextWidth.printable(text)
    if let last = spans.last, last.style == style {
      spans[spans.count - 1].text += printable
    } else {
      spans.append(Span(text: printable, style: style))
    }
  }

  mutating func append(_ line: StyledLine) {
    for span in line.spans { append(span.text, span.style) }
  }

  /// Exactly `width` columns: padded with spaces, or cut with "…". `style` goes under every span and the
  /// padding, so a selected row is reversed edge to edge.
  func fitted(to width: Int, style: TextStyle = .plain) -> StyledLine {
    var result = StyledLine()
    guard width > 0 else { return result }
    let budget = columns > width ? width - 1 : width
    var used = 0
    spans: for span in spans {
      let spanStyle = style.adding(span.style)
      var taken = ""
      for character in span.text {
        let characterColumns = TextWidth.columns(of: character)
        if used + characterColumns > budget {
          result.append(taken, spanStyle)
          result.append("…", spanStyle)
          used += 1
          break spans
        }
        taken.append(character)
        used += characterColumns
      }
      result.append(taken, spanStyle)
    }
    if used < width { result.append(String(repeating: " ", count: width - used), style) }
    return result
  }

  /// The line as printed: with SGR sequences around styled spans when `color` is on, as plain text otherwise.
  func rendered(color: Bool) -> String {
    guard color else { return text }
    var result = ""
    for span in spans {
      if span.style.isPlain {
        result += span.text
      } else {
        result += ANSI.style(span.style.sgr) + span.text + ANSI.reset
      }
    }
    return result
  }
}
