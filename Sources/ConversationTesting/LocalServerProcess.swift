import Foundation

/// A server run as a child process for a test or a benchmark: started on 127.0.0.1, it prints
/// `LISTENING <port>` as its first line, and it is stopped when this value goes away. It should also exit
/// by itself when its stdin closes (the repository's reference server does), so a test process that dies
/// never leaves it running.
///
/// ```swift
/// let server = try LocalServerProcess(["python3", "reference_server.py", "--port", "0"])
/// let base = URL(string: "http://127.0.0.1:\(server.port)/v1")!
/// ```
public final class LocalServerProcess: Sendable {
  /// The port the server said it listens on.
  public let port: Int
  private let process: Process
  private let input: Pipe

  /// Runs `command` (looked up on `PATH`) and waits for its `LISTENING <port>` line.
  public init(_ command: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = command
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      line.append(chunk)
    }
    let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    guard text.hasPrefix("LISTENING "), let port = Int(text.dropFirst("LISTENING ".count)) else {
      process.terminate()
      process.waitUntilExit()
      throw LocalServerError(description: "\(command.joined(separator: " ")) did not start: \"\(text)\"")
    }
    self.port = port
    self.process = process
    self.input = input
  }

  deinit { stop() }

  /// Closes the server's stdin and ends it; returns once it has exited.
  public func stop() {
    try? input.fileHandleForWriting.close()
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
  }
}

/// A local server that did not start.
public struct LocalServerError: Error, CustomStringConvertible {
  public let description: String
}
