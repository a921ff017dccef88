import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A pseudo-terminal for tests: code under test gets `terminal`, a real terminal device; the test reads
/// what was written to it from `controller`.
final class PseudoTerminal {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  let controller: Int32
  let terminal: Int32

  init() throws {
    // posix_openpt, grantpt and unlockpt are not visible to Swift; these are the Linux calls they make.
    let unlock: UInt = 0x4004_5431  // TIOCSPTLCK
    let number: UInt = 0x8004_5430  // TIOCGPTN
    controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    var locked: Int32 = 0
    var index: UInt32 = 0
    guard controller >= 0, ioctl(controller, unlock, &locked) == 0, ioctl(controller, number, &index) == 0 else {
      throw Failure(description: "no pseudo-terminal: errno \(errno)")
    }
    terminal = open("/dev/pts/\(index)", O_RDWR | O_NOCTTY)
    guard terminal >= 0 else { throw Failure(description: "cannot open /dev/pts/\(index): errno \(errno)") }
    _ = fcntl(controller, F_SETFL, fcntl(controller, F_GETFL) | O_NONBLOCK)
  }

  deinit {
    close(terminal)
    close(controller)
  }

  var settings: termios {
    var settings = termios()
    tcgetattr(terminal, &settings)
    return settings
  }

  var isRaw: Bool { settings.c_lflag & tcflag_t(ICANON | ECHO) == 0 }

  func resize(width: UInt16, height: UInt16) {
    var size = winsize(ws_row: height, ws_col: width, ws_xpixel: 0, ws_ypixel: 0)
    _ = withUnsafeMutablePointer(to: &size) { ioctl(terminal, UInt(TIOCSWINSZ), $0) }
  }

  /// Everything written to the terminal side so far.
  func written() -> String {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(controller, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
