import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether the demo's output should be colored.
enum ColorSupport {
  /// Color unless `NO_COLOR` is set to anything but the empty string (no-color.org), `TERM` is unset or
  /// `dumb`, or the output is not a terminal.
  static func isEnabled(
    environment: [String: String] = ProcessInfo.processInfo.environment,
    outputIsTerminal: Bool = isatty(STDOUT_FILENO) == 1
  ) -> Bool {
    if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
    guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return false }
    return outputIsTerminal
  }
}
