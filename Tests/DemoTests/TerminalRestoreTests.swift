import Foundation
import Testing

@testable import Demo

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The terminal is given back however the demo ends. Each case runs in a forked child whose stdin and stdout
/// are a pseudo-terminal, so the signal kills the child and not the test runner; the test then reads what
/// the child wrote and how it left the terminal.
// Each case forks the test process. A fork while other test threads are busy can copy a lock one of them held,
// and the child then hangs in the Swift runtime; so these cases run on their own, with nothing else running:
// `DEMO_FORK_TESTS=1 swift test --no-parallel --filter TerminalRestoreTests`, a step of `.ci/run`.
// ThreadSanitizer also changes how signals reach a forked child, so the sanitized run skips them too.
#if CONVERSATION_STORE_TSAN
  private let runsForkedCases = false
#else
  private let runsForkedCases = ProcessInfo.processInfo.environment["DEMO_FORK_TESTS"] == "1"
#endif

@Suite(
  "Giving the terminal back",
  .enabled(if: runsForkedCases, "forks the process: run alone with DEMO_FORK_TESTS=1 and --no-parallel"))
struct TerminalRestoreTests {
  /// How the child ends: by a signal under its default action, through a handler that was there before, by
  /// an ignored signal (and then on its own), or by leaving normally (twice).
  enum Ending: Sendable, CustomTestStringConvertible {
    case signal(Int32)
    case chainedHandler
    case ignoredHangUp
    case leave
    case exit

    var testDescription: String {
      switch self {
      case .signal(let number): return String(cString: strsignal(number))
      case .chainedHandler: return "SIGTERM with a handler installed before"
      case .ignoredHangUp: return "an ignored SIGHUP"
      case .leave: return "leaving twice"
      case .exit: return "exit()"
      }
    }
  }

  static let entered = ANSI.enterAlternateScreen + ANSI.autowrapOff + ANSI.hideCursor + ANSI.clearScreen
  static let restored = ANSI.reset + ANSI.autowrapOn + ANSI.showCursor + ANSI.leaveAlternateScreen

  @Test(
    "a signal that ends the demo restores the terminal, then ends it as the signal would have",
    arguments: TerminalSignals.restoring.map(Ending.signal))
  func signalRestores(ending: Ending) throws {
    guard case .signal(let number) = ending else { return }
    let pty = try PseudoTerminal()
    let status = try Self.runChild(on: pty, ending: ending)
    #expect(status.signal == number)
    #expect(pty.written() == Self.entered + Self.restored)
    #expect(!pty.isRaw)
  }

  @Test("the handler that was there before still runs, after the terminal is restored")
  func chainsToPreviousHandler() throws {
    let pty = try PseudoTerminal()
    let status = try Self.runChild(on: pty, ending: .chainedHandler)
    #expect(status.exitCode == 42)
    #expect(pty.written() == Self.entered + Self.restored)
    #expect(!pty.isRaw)
  }

  @Test("a signal ignored before the demo started stays ignored: the demo goes on, raw")
  func ignoredSignalStaysIgnored() throws {
    let pty = try PseudoTerminal()
    let status = try Self.runChild(on: pty, ending: .ignoredHangUp)
    #expect(status.exitCode == 43)
    #expect(pty.written() == Self.entered)
    #expect(pty.isRaw)
  }

  @Test("leaving restores the settings and the screen once, however often it is called")
  func leaveRestoresOnce() throws {
    let pty = try PseudoTerminal()
    let status = try Self.runChild(on: pty, ending: .leave)
    #expect(status.exitCode == 0)
    #expect(pty.written() == Self.entered + Self.restored)
    #expect(!pty.isRaw)
  }

  @Test("exit() from anywhere after entering gives the terminal back")
  func exitRestores() throws {
    let pty = try PseudoTerminal()
    let status = try Self.runChild(on: pty, ending: .exit)
    #expect(status.exitCode == 7)
    #expect(pty.written() == Self.entered + Self.restored)
    #expect(!pty.isRaw)
  }

  @Test("the bytes a signal handler writes are the ANSI sequences, in the order that undoes entering")
  func restoreSequence() {
    let sequence = FullScreen.restoreSequence
    let bytes = UnsafeBufferPointer(start: sequence.utf8Start, count: sequence.utf8CodeUnitCount)
    #expect(String(decoding: bytes, as: UTF8.self) == Self.restored)
  }

  struct Status {
    var signal: Int32?
    var exitCode: Int32?
  }

  /// Forks a child that takes `pty` full screen and ends as `ending` says; waits for it (10 s at most).
  static func runChild(on pty: PseudoTerminal, ending: Ending) throws -> Status {
    // What the child runs is warmed up here: after a fork only the forking thread exists, so the child
    // must not wait on a lazy initializer another thread of the test runner might have been inside.
    RawTerminal.prepareStorage()
    _ = FullScreen.enterSequence.utf8CString
    let terminal = pty.terminal
    let child = fork()
    if child == 0 { runInChild(terminal: terminal, ending: ending) }
    guard child > 0 else { throw PseudoTerminal.Failure(description: "fork failed: errno \(errno)") }
    var status: Int32 = 0
    for _ in 0..<1_000 {
      if waitpid(child, &status, WNOHANG) == child {
        let signal = status & 0x7F
        return signal == 0 ? Status(exitCode: (status >> 8) & 0xFF) : Status(signal: signal)
      }
      usleep(10_000)
    }
    kill(child, SIGKILL)
    _ = waitpid(child, &status, 0)
    throw PseudoTerminal.Failure(description: "the child did not end within 10 s")
  }

  private static func runInChild(terminal: Int32, ending: Ending) -> Never {
    dup2(terminal, STDIN_FILENO)
    dup2(terminal, STDOUT_FILENO)
    var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
    setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore)
    // The test runs on a worker thread that blocks signals; the demo's main thread does not.
    var none = sigset_t()
    sigemptyset(&none)
    sigprocmask(SIG_SETMASK, &none, nil)
    // The runner's own handlers (a crash backtracer) are not what the demo starts with.
    for signal in TerminalSignals.restoring { Glibc.signal(signal, SIG_DFL) }
    switch ending {
    case .chainedHandler: Glibc.signal(SIGTERM, exitWith42)
    case .ignoredHangUp: Glibc.signal(SIGHUP, SIG_IGN)
    case .signal, .leave, .exit: break
    }
    TerminalSignals.installRestoringHandlers()
    guard FullScreen.enter() else { _exit(90) }
    var settings = termios()
    tcgetattr(STDIN_FILENO, &settings)
    guard settings.c_lflag & tcflag_t(ICANON | ECHO | ISIG) == 0 else { _exit(91) }
    switch ending {
    case .signal(let number): raise(number)
    case .chainedHandler: raise(SIGTERM)
    case .ignoredHangUp:
      raise(SIGHUP)
      _exit(43)
    case .leave:
      FullScreen.leave()
      FullScreen.leave()
      _exit(0)
    case .exit:
      exit(7)
    }
    _exit(92)  // the signal should have ended the child
  }
}

private func exitWith42(_: Int32) {
  _exit(42)
}
