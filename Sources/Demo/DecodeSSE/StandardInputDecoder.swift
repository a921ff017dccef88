import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs `SSEDecodeCommand` on standard input as bytes arrive, so `curl -N URL | demo decode-sse` prints
/// each event while the stream is still open.
enum StandardInputDecoder {
  /// Reads `fileDescriptor` to its end, writing each line to standard output as soon as it is complete.
  /// Returns a description of the read error that ended it early, if one did.
  static func run(fileDescriptor: Int32 = STDIN_FILENO) -> String? {
    var command = SSEDecodeCommand()
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      // read(2) returns what has arrived, however little: waiting to fill the buffer would hold events back.
      let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      if count < 0 { return String(cString: strerror(errno)) }
      if count == 0 { break }
      for line in command.lines(for: Array(buffer[..<count])) { writeLine(line) }
    }
    writeLine(command.finish())
    return nil
  }

  /// One write per line, unbuffered, so a reader sees every event the moment it is decoded.
  private static func writeLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
  }
}
