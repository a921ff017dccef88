import ConversationTesting
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("demo decode-sse, the binary", .hangGuard)
struct DecodeSSEBinaryTests {
  @Test("an event is printed while the stream is still open, and the closing line when it ends")
  func printsAsEventsArrive() async throws {
    let demo = try #require(BuiltProduct.url(named: "demo"), "the demo is not built next to the tests; run swift build")
    let (first, rest) = try await offThePool {
      let run = try DemoProcess(demo, arguments: ["decode-sse"])
      // The first event arrives in pieces, with pauses a slow server or network would make.
      for piece in ["event: text-delta\n", "data: {\"delta\":\"It ", "ships\"}\r", "\nid: 1\r\n", "\n"] {
        try run.write(piece)
        Thread.sleep(forTimeInterval: 0.05)
      }
      let first = run.readLine(timeout: 20)
      // Then the server asks for a slower reconnect, sends one more event and closes the stream mid-block.
      try run.write("retry: 3000\n\ndata: done\n\n")
      Thread.sleep(forTimeInterval: 0.05)
      try run.write("data: cut off")
      return (first, run.finish())
    }

    #expect(first == #"{"event": "text-delta", "data": "{\"delta\":\"It ships\"}", "id": "1"}"#)
    #expect(rest.status == 0, "\(rest.errors)")
    #expect(
      rest.lines == [#"{"event": "message", "data": "done", "id": "1"}"#, #"{"retry": [3000], "lastEventId": "1"}"#])
    #expect(rest.errors.isEmpty)
  }

  @Test("the terminal demo article's example prints what the article says")
  func readmeExample() async throws {
    let demo = try #require(BuiltProduct.url(named: "demo"), "the demo is not built next to the tests; run swift build")
    let result = try await offThePool {
      let run = try DemoProcess(demo, arguments: ["decode-sse"])
      try run.write("event: text-delta\ndata: {\"delta\":\"Hi\"}\nid: 1\n\n")
      return run.finish()
    }

    let readme = try String(
      contentsOf: packageRoot.appendingPathComponent(
        "Sources/ConversationStore/ConversationStore.docc/TheTerminalDemo.md"), encoding: .utf8)
    let printed = result.lines.joined(separator: "\n")
    #expect(
      readme.contains("```\n\(printed)\n```"),
      "The terminal demo article should show this output of its decode-sse example:\n\(printed)")
  }

  @Test("an argument after decode-sse is one line on stderr and exit status 2")
  func badArgument() async throws {
    let demo = try #require(BuiltProduct.url(named: "demo"), "the demo is not built next to the tests; run swift build")
    let result = try await offThePool { try DemoProcess(demo, arguments: ["decode-sse", "--seed", "1"]).finish() }

    #expect(result.status == 2)
    #expect(
      result.errors
        == "demo: decode-sse takes no arguments, it reads the event stream on stdin (got \"--seed\")\n")
    #expect(result.lines.isEmpty)
  }
}

private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent()

/// The demo running with pipes on stdin, stdout and stderr, its output read a line at a time as it comes. Its
/// reads and waits block: use it off the cooperative pool.
private final class DemoProcess {
  private let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  private let errors = Pipe()
  private var pending: [UInt8] = []

  init(_ executable: URL, arguments: [String]) throws {
    // A demo that exits early must fail the test with a write error, not kill the test runner with SIGPIPE.
    signal(SIGPIPE, SIG_IGN)
    process.executableURL = executable
    process.arguments = arguments
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    try process.run()
  }

  func write(_ text: String) throws {
    try input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
  }

  /// The next line of output, without its newline, or nil if none is complete within `timeout` seconds.
  func readLine(timeout: Double) -> String? {
    let deadline = Date().addingTimeInterval(timeout)
    let descriptor = output.fileHandleForReading.fileDescriptor
    while true {
      if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        defer { pending.removeSubrange(...newline) }
        return String(decoding: pending[..<newline], as: UTF8.self)
      }
      let remaining = deadline.timeIntervalSinceNow
      guard remaining > 0 else { return nil }
      var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&ready, 1, Int32(remaining * 1000)) > 0 else { continue }
      var buffer = [UInt8](repeating: 0, count: 4096)
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { return nil }
      pending += buffer[..<count]
    }
  }

  /// Closes stdin, waits for the exit, and returns the lines not read yet, the exit status and stderr.
  func finish() -> (lines: [String], status: Int32, errors: String) {
    try? input.fileHandleForWriting.close()
    let rest = pending + output.fileHandleForReading.readDataToEndOfFile()
    let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let text = String(decoding: rest, as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    return (lines, process.terminationStatus, errorText)
  }
}
