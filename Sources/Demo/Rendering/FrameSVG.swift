/// A frame as an SVG picture of a dark terminal: what the README shows of the demo. Drawn from the same
/// styled lines the terminal gets, so the picture is the renderer's output, not a drawing of it; a test keeps
/// the committed picture equal to what this draws (`Docs/Pictures/demo.svg`).
enum FrameSVG {
  /// Pixels of one terminal cell, and the margin around the frame.
  static let cellWidth = 8.4
  static let cellHeight = 18.0
  static let margin = 12.0

  static func svg(_ lines: [StyledLine], columns: Int) -> String {
    let width = Double(columns) * cellWidth + 2 * margin
    let height = Double(lines.count) * cellHeight + 2 * margin
    var body = ""
    for (row, line) in lines.enumerated() {
      var column = 0
      let top = margin + Double(row) * cellHeight
      for span in line.spans {
        let columns = TextWidth.columns(of: span.text)
        defer { column += columns }
        let left = margin + Double(column) * cellWidth
        let (foreground, background) = colors(span.style)
        if let background {
          body += "<rect x=\"\(format(left))\" y=\"\(format(top))\" width=\"\(format(Double(columns) * cellWidth))\" "
          body += "height=\"\(format(cellHeight))\" fill=\"\(background)\"/>\n"
        }
        guard !span.text.allSatisfy({ $0 == " " }) else { continue }
        body += "<text x=\"\(format(left))\" y=\"\(format(top + cellHeight * 0.75))\" fill=\"\(foreground)\""
        if span.style.bold { body += " font-weight=\"bold\"" }
        body += " textLength=\"\(format(Double(columns) * cellWidth))\">\(escaped(span.text))</text>\n"
      }
    }
    return """
      <svg xmlns="http://www.w3.org/2000/svg" width="\(format(width))" height="\(format(height))" \
      viewBox="0 0 \(format(width)) \(format(height))">
      <rect width="100%" height="100%" rx="6" fill="#1e1e1e"/>
      <g font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="14" xml:space="preserve">
      \(body)</g>
      </svg>

      """
  }

  /// The text color and, for a reversed span, the cell color.
  private static func colors(_ style: TextStyle) -> (foreground: String, background: String?) {
    var foreground =
      switch style.color {
      case .red: "#f14c4c"
      case .green: "#23d18b"
      case .yellow: "#f5f543"
      case .cyan: "#29b8db"
      case nil: "#d4d4d4"
      }
    if style.dim { foreground = style.color == nil ? "#8a8a8a" : foreground }
    return style.reverse ? ("#1e1e1e", foreground) : (foreground, nil)
  }

  private static func escaped(_ text: String) -> String {
    var result = ""
    for character in text {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      default: result.append(character)
      }
    }
    return result
  }

  /// A pixel position with at most one decimal, so the picture's text is the same on every machine.
  private static func format(_ value: Double) -> String {
    let tenths = (value * 10).rounded()
    return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))" : "\(tenths / 10)"
  }
}
