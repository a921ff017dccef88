import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Signals that end the demo give the terminal back first: whatever kills it, the shell is never left in raw
/// mode on the alternate screen with the cursor hidden.
enum TerminalSignals {
  /// The signals that end the process by default and can be caught.
  static let restoring: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGSEGV, SIGBUS, SIGABRT, SIGILL]

  /// Installs, once, handlers that call `FullScreen.leave()` and then raise the signal again under the action
  /// it had before: the default (the process ends as it would have), or the Swift runtime's crash
  /// backtracer, which then still prints its backtrace. A signal that was ignored when the demo started (a
  /// `nohup`'s SIGHUP) stays ignored.
  static func installRestoringHandlers() {
    guard !installed.exchange(true, ordering: .acquiringAndReleasing) else { return }
    RawTerminal.prepareStorage()
    for signal in restoring {
      let previous = previousActions + Int(signal)
      guard sigaction(signal, nil, previous) == 0, !isIgnored(previous.pointee) else { continue }
      var action = sigaction()
      setHandler(restoreAndReraise, in: &action)
      sigemptyset(&action.sa_mask)
      // On the alternate signal stack when the thread has one: a stack overflow's SIGSEGV has no stack left.
      action.sa_flags = Int32(SA_ONSTACK)
      sigaction(signal, &action, nil)
    }
  }
}

private let installed = Atomic<Bool>(false)
/// Every catchable signal the demo restores on is below 32 on Linux and Darwin alike.
private let actionSlots = 32
// Why `nonisolated(unsafe)` is safe here: the pointer never changes (a `let`, allocated once, never freed).
// The slot of a signal is written only by `installRestoringHandlers`, which runs once, and only before the
// `sigaction` call that installs the handler for that signal; that system call orders the write before any
// delivery of the signal to the handler, the only reader, and nothing writes the slot afterwards.
nonisolated(unsafe) private let previousActions: UnsafeMutablePointer<sigaction> = {
  let actions = UnsafeMutablePointer<sigaction>.allocate(capacity: actionSlots)
  actions.initialize(repeating: sigaction(), count: actionSlots)
  return actions
}()

/// Async-signal-safe throughout: `FullScreen.leave`, `sigaction`, `raise`; no allocation, no locks.
private func restoreAndReraise(_ signal: Int32) {
  FullScreen.leave()
  sigaction(signal, previousActions + Int(signal), nil)
  // Blocked while this handler runs, so it is delivered, under the previous action, as the handler returns.
  raise(signal)
}

private func isIgnored(_ action: sigaction) -> Bool {
  #if os(Linux)
    return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == 1  // SIG_IGN
  #else
    return unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self) == 1  // SIG_IGN
  #endif
}

private func setHandler(_ handler: @escaping @convention(c) (Int32) -> Void, in action: inout sigaction) {
  #if os(Linux)
    action.__sigaction_handler.sa_handler = handler
  #else
    action.__sigaction_u.__sa_handler = handler
  #endif
}
