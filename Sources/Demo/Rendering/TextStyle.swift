/// How a piece of a frame looks when color is on; with color off every style prints as plain text.
struct TextStyle: Hashable, Sendable {
  enum Color: Hashable, Sendable {
    case red
    case green
    case yellow
    case cyan
  }

  var bold = false
  var dim = false
  var reverse = false
  var color: Color?

  static let plain = TextStyle()
  static let bold = TextStyle(bold: true)
  /// Metadata: delivery states, previews, hints.
  static let dim = TextStyle(dim: true)
  /// The selection and the status bar.
  static let reverse = TextStyle(reverse: true)
  /// Failures.
  static let red = TextStyle(color: .red)
  static let green = TextStyle(color: .green)
  static let yellow = TextStyle(color: .yellow)
  static let cyan = TextStyle(color: .cyan)

  var isPlain: Bool { self == .plain }

  /// This style under `other`: the attributes of both, and `other`'s color where it has one.
  func adding(_ other: TextStyle) -> TextStyle {
    TextStyle(
      bold: bold || other.bold, dim: dim || other.dim, reverse: reverse || other.reverse,
      color: other.color ?? color)
  }

  var sgr: [ANSI.SGR] {
    var codes: [ANSI.SGR] = []
    if bold { codes.append(.bold) }
    if dim { codes.append(.dim) }
    if reverse { codes.append(.reverse) }
    switch color {
    case .red: codes.append(.red)
    case .green: codes.append(.green)
    case .yellow: codes.append(.yellow)
    case .cyan: codes.append(.cyan)
    case nil: break
    }
    return codes
  }
}
