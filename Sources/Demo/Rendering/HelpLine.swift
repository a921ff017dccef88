/// The commands and keys, in short form, at the bottom of the frame.
enum HelpLine {
  static let commands = [
    "/new", "/open N", "/older", "/retry", "/discard", "/regen", "/stop", "/approve", "/deny",
    "/answer TEXT", "/up", "/down",
    "/feedback good|bad|dismiss", "/ticket", "/signin NAME", "/signout", "/drop", "/fail", "/quit",
  ]
  static let keys = ["Tab focus", "↑↓ move", "PgUp older", "Esc stop", "^R thoughts", "^C quit"]

  /// The items wrapped into at most `maximum` lines; what does not fit runs off the last line, which the
  /// frame cuts with "…".
  static func lines(width: Int, maximum: Int) -> [StyledLine] {
    guard maximum > 0 else { return [] }
    var lines: [String] = []
    var line = ""
    for item in commands + keys {
      let candidate = line.isEmpty ? item : line + " " + item
      if TextWidth.columns(of: candidate) <= width || line.isEmpty || lines.count == maximum - 1 {
        line = candidate
      } else {
        lines.append(line)
        line = item
      }
    }
    lines.append(line)
    return lines.map { StyledLine($0, .dim) }
  }
}
