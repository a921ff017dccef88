import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The keys typed on a terminal (in raw mode, see `RawTerminal`), read on a thread of its own so a blocking
/// read never holds up the demo's tasks.
enum TerminalInput {
  /// Keys from `fileDescriptor` until it ends or the stream is dropped. An ESC followed by nothing for
  /// `escapeDelay` milliseconds is the Esc key; within it, the start of a sequence such as an arrow key's.
  static func keys(fileDescriptor: Int32 = STDIN_FILENO, escapeDelay: Int32 = 30) -> AsyncStream<Key> {
    let (stream, continuation) = AsyncStream<Key>.makeStream()
    let stopped = StopFlag()
    continuation.onTermination = { _ in stopped.flag.store(true, ordering: .releasing) }
    let reader = Thread {
      readKeys(from: fileDescriptor, escapeDelay: escapeDelay, into: continuation, until: stopped)
    }
    reader.name = "demo.keys"
    reader.start()
    return stream
  }
}

private final class StopFlag: Sendable {
  let flag = Atomic<Bool>(false)
}

private func readKeys(
  from fileDescriptor: Int32, escapeDelay: Int32, into keys: AsyncStream<Key>.Continuation, until stopped: StopFlag
) {
  var decoder = KeyDecoder()
  var buffer = [UInt8](repeating: 0, count: 256)
  // Polls with a timeout rather than blocking in read, so a dropped stream stops the thread soon and a
  // later reader gets the bytes.
  while !stopped.flag.load(ordering: .acquiring) {
    var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
    let ready = poll(&descriptor, 1, decoder.hasLoneEscape ? escapeDelay : 100)
    if ready < 0 && errno == EINTR { continue }
    if ready < 0 { break }
    if ready == 0 {
      if decoder.hasLoneEscape { for key in decoder.flush() { keys.yield(key) } }
      continue
    }
    let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
    if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
    if count <= 0 { break }
    for key in decoder.decode(buffer[..<count]) { keys.yield(key) }
  }
  for key in decoder.flush() { keys.yield(key) }
  keys.finish()
}
