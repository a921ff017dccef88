import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Resizes of the terminal window.
enum TerminalResize {
  /// One element per terminal resize (SIGWINCH), coalesced: a burst while the user drags the window edge is
  /// one redraw, at the size it ends at (read it with `TerminalSize.current()`).
  static func resizes() -> AsyncStream<Void> {
    let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let source = ResizeSource()
    source.signals.setEventHandler { continuation.yield() }
    continuation.onTermination = { _ in source.signals.cancel() }
    source.signals.resume()
    return stream
  }
}

/// Dispatch sources are thread-safe (their handlers are set, resumed and cancelled from any thread), but
/// the overlay does not mark the protocol `Sendable`; this box says so for the one source it holds.
private final class ResizeSource: @unchecked Sendable {
  let signals = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: DispatchQueue(label: "demo.resize"))
}
