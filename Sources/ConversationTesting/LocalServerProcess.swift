import Foundation

/// A server run as a child process for a test or a benchmark: started on 127.0.0.1, it prints
/// `LISTENING <port>` as its first line, and it is stopped when this value goes away. It should also exit
/// by itself when its stdin closes (the repository's reference server does), so a test process that dies
/// never leaves it running.
///
/// ```swift
/// let server = try await LocalServerProcess.start(["python3", "reference_server.py", "--port", "0"])
/// let base = URL(string: "http://127.0.0.1:\(server.port)/v1")!
/// ```
package final class LocalServerProcess: Sendable {
  /// The port the server said it listens on.
  package let port: Int
  private let process: Process
  private let input: Pipe

  /// Runs `command` (looked up on `PATH`) and waits for its `LISTENING <port>` line off Swift's cooperative
  /// pool (see ``offThePool(_:)``): a Python server takes a moment to start, longer on a loaded machine.
  package static func start(_ command: [String]) async throws -> LocalServerProcess {
    try await offThePool { try LocalServerProcess(command) }
  }

  /// Runs `command` (looked up on `PATH`) and blocks the calling thread until its `LISTENING <port>` line;
  /// from async code use ``start(_:)``.
  package init(_ command: [String]) throws {
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

  /// Ends the server without waiting for it: the last reference often goes away on a cooperative thread, which
  /// must not block. Foundation reaps the child when it exits.
  deinit { end() }

  /// Closes the server's stdin and ends it; blocks until it has exited.
  package func stop() {
    end()
    process.waitUntilExit()
  }

  private func end() {
    try? input.fileHandleForWriting.close()
    if process.isRunning { process.terminate() }
  }
}

/// A local server that did not start.
package struct LocalServerError: Error, CustomStringConvertible {
  package let description: String
}
