import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The interactive demo's hold on the terminal: raw input, the alternate screen (so the shell's screen comes
/// back untouched), no autowrap and a hidden cursor, and the way back from all of it.
enum FullScreen {
  /// What `leave` writes: reset the colors, autowrap and cursor back on, back to the normal screen. A
  /// computed `StaticString`, so a signal handler reaches the bytes with no lazy initializer and no allocation.
  static var restoreSequence: StaticString { "\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l" }

  static let enterSequence = ANSI.enterAlternateScreen + ANSI.autowrapOff + ANSI.hideCursor + ANSI.clearScreen

  /// Takes the terminal; false, with nothing changed, when stdin is not a terminal. An `exit()` from
  /// anywhere after this gives the terminal back too.
  static func enter() -> Bool {
    guard RawTerminal.enable() else { return false }
    _ = enterSequence.utf8CString.withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count - 1) }
    if !registeredAtExit.exchange(true, ordering: .relaxed) { atexit { FullScreen.leave() } }
    return true
  }

  /// Gives the terminal back, once: later calls do nothing, so the normal exit path and a signal handler can
  /// both call it. Async-signal-safe: `RawTerminal.restore` and one `write` of static bytes.
  static func leave() {
    guard RawTerminal.restore() else { return }
    _ = write(STDOUT_FILENO, restoreSequence.utf8Start, restoreSequence.utf8CodeUnitCount)
  }
}

private let registeredAtExit = Atomic<Bool>(false)
