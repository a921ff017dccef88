import CGtk

/// Runs Swift closures on GLib's default main context: the main thread, where GTK lives.
///
/// This program blocks the main thread in `g_main_loop_run`, so Swift's main-actor queue is never drained;
/// everything that must touch a widget comes back to the main thread through here instead. The closures are
/// `@MainActor` because they do run on the main thread: GLib dispatches the default context's sources on the
/// thread that runs it, which is the main thread (see `main.swift`).
enum GLibMainLoop {
  /// A closure waiting for its turn on the main loop.
  private final class Job: Sendable {
    let body: @Sendable @MainActor () -> Void
    init(_ body: @escaping @Sendable @MainActor () -> Void) { self.body = body }
  }

  /// Runs `body` once on the main loop, at idle priority: after pending input and after GTK's redraw
  /// (`GDK_PRIORITY_REDRAW` is higher), so a stream of updates cannot starve the frame clock. Callable from
  /// any thread.
  static func schedule(_ body: @escaping @Sendable @MainActor () -> Void) {
    let job = Unmanaged.passRetained(Job(body)).toOpaque()
    g_idle_add_full(
      G_PRIORITY_DEFAULT_IDLE,
      { data in
        let job = Unmanaged<Job>.fromOpaque(data!).takeRetainedValue()
        // GLib calls idle sources of the default context on the thread running it: the main thread.
        MainActor.assumeIsolated { job.body() }
        return 0  // G_SOURCE_REMOVE: once.
      }, job, nil)
  }

  /// Runs `body` on the main loop and returns its result, or its error, to the calling task.
  static func run<Value: Sendable, Failure: Error>(
    _ body: @escaping @Sendable @MainActor () throws(Failure) -> Value
  ) async throws(Failure) -> Value {
    let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
      schedule { continuation.resume(returning: Result { () throws(Failure) in try body() }) }
    }
    return try result.get()
  }
}
