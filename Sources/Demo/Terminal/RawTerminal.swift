import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Raw mode on the terminal behind stdin: keys arrive one by one as they are pressed, unechoed, and Ctrl-C
/// arrives as a key rather than a signal.
///
/// The settings from before are kept in process-wide storage that `restore()` reads without locks or
/// allocation, so it can run from a signal handler (see `TerminalSignals`).
enum RawTerminal {
  /// Switches `fileDescriptor`'s terminal to raw mode; false when it is not a terminal. Only the first call
  /// saves the settings to go back to, so enabling again (after a suspend) cannot save raw ones.
  @discardableResult
  static func enable(fileDescriptor: Int32 = STDIN_FILENO) -> Bool {
    var settings = termios()
    guard tcgetattr(fileDescriptor, &settings) == 0 else { return false }
    if !hasSaved.load(ordering: .acquiring) {
      saved.pointee = settings
      savedDescriptor.store(fileDescriptor, ordering: .relaxed)
      // Publishes the two stores above to a signal handler on any thread that sees `hasSaved`.
      hasSaved.store(true, ordering: .releasing)
    }
    var raw = settings
    // Input: no CR-to-NL translation (Enter arrives as CR), no XON/XOFF so Ctrl-S and Ctrl-Q are keys.
    raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
    // Output processing stays on, so a stray "\n" still returns the carriage.
    raw.c_cflag |= tcflag_t(CS8)
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
    // A read waits for at least one byte, with no timer: the reader polls instead.
    withUnsafeMutableBytes(of: &raw.c_cc) { controlCharacters in
      controlCharacters[Int(VMIN)] = 1
      controlCharacters[Int(VTIME)] = 0
    }
    guard tcsetattr(fileDescriptor, TCSAFLUSH, &raw) == 0 else { return false }
    isRaw.store(true, ordering: .releasing)
    return true
  }

  /// Puts back the settings saved by `enable`; true when it did, false when raw mode was not on.
  ///
  /// Async-signal-safe: atomics, a read of preallocated memory and `tcsetattr`, nothing else.
  @discardableResult
  static func restore() -> Bool {
    guard isRaw.exchange(false, ordering: .acquiringAndReleasing), hasSaved.load(ordering: .acquiring) else {
      return false
    }
    return tcsetattr(savedDescriptor.load(ordering: .relaxed), TCSAFLUSH, saved) == 0
  }

  /// Whether raw mode is on (enabled and not yet restored).
  static var isEnabled: Bool { isRaw.load(ordering: .acquiring) }

  /// Runs the lazy initializers of the storage below, which may allocate: a signal handler must find them
  /// done. `TerminalSignals.installRestoringHandlers` calls this before installing any handler.
  static func prepareStorage() {
    _ = hasSaved.load(ordering: .relaxed)
    _ = isRaw.load(ordering: .relaxed)
    _ = savedDescriptor.load(ordering: .relaxed)
    _ = saved
  }
}

/// Set once, by the first `enable`, then only read.
private let hasSaved = Atomic<Bool>(false)
private let isRaw = Atomic<Bool>(false)
private let savedDescriptor = Atomic<Int32>(STDIN_FILENO)
// Why `nonisolated(unsafe)` is safe here: the pointer itself never changes (a `let`, allocated once and
// never freed). The memory it points to is written once, by the first `RawTerminal.enable`, before the
// releasing store to `hasSaved`; every reader (`restore`, possibly in a signal handler on another thread)
// first does an acquiring load of `hasSaved` and reads only when it is true, so it sees the finished write
// and no write can follow. A raw pointer also has no exclusivity check that a signal could trip over.
nonisolated(unsafe) private let saved = UnsafeMutablePointer<termios>.allocate(capacity: 1)
