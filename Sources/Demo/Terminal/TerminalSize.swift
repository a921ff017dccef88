#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The terminal's size in character cells.
struct TerminalSize: Equatable, Sendable {
  var width: Int
  var height: Int

  /// What the demo assumes when the terminal does not say: the classic VT100 screen.
  static let fallback = TerminalSize(width: 80, height: 24)

  /// The size of the terminal behind `fileDescriptor` (TIOCGWINSZ); `fallback` when it is not a terminal or
  /// reports no size (some serial consoles and CI runners report 0 x 0).
  static func current(fileDescriptor: Int32 = STDOUT_FILENO) -> TerminalSize {
    var size = winsize()
    let result = withUnsafeMutablePointer(to: &size) { ioctl(fileDescriptor, UInt(TIOCGWINSZ), $0) }
    guard result == 0, size.ws_col > 0, size.ws_row > 0 else { return fallback }
    return TerminalSize(width: Int(size.ws_col), height: Int(size.ws_row))
  }
}
