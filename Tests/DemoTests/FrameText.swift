@testable import Demo

/// Helpers for reading frames in tests.
enum FrameText {
  /// `line` without its SGR sequences (`ESC [ … m`), the only escapes the renderer may write.
  static func strippingSGR(_ line: String) -> String {
    var result = ""
    var scalars = line.unicodeScalars.makeIterator()
    while let scalar = scalars.next() {
      guard scalar == "\u{1B}" else {
        result.unicodeScalars.append(scalar)
        continue
      }
      guard scalars.next() == "[" else { return result + "<not SGR>" }
      while let parameter = scalars.next(), parameter != "m" {
        guard parameter.properties.numericType != nil || parameter == ";" else { return result + "<not SGR>" }
      }
    }
    return result
  }

  /// The frame as it reads, without the padding at the ends of lines, so expected frames stay readable.
  static func trimmed(_ frame: [String]) -> [String] {
    frame.map { line in
      var line = Substring(line)
      while line.last == " " { line.removeLast() }
      return String(line)
    }
  }
}
