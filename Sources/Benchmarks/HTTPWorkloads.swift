import ChatHTTP
import ConversationStore
import Foundation

/// End to end over a real socket: the repository's reference server streams replies word by word (no pause
/// between frames), `HTTPChatBackend` decodes them as they arrive, and a store commits them.
enum HTTPWorkloads {
  /// `http.delta.local`: nanoseconds per streamed delta from the reference server on 127.0.0.1 into a store,
  /// over `replies` replies of about 60 words each. Reported, no target: it includes the Python server's time.
  static func deltaLocal(replies: Int) -> Workload {
    let server: LocalServer
    do {
      server = try LocalServer()
    } catch {
      FileHandle.standardError.write(Data("benchmarks: http.delta.local skipped: \(error)\n".utf8))
      return Workload(name: "http.delta.local") { (0, 0) }
    }
    return Workload(name: "http.delta.local") {
      let backend = HTTPChatBackend(baseURL: server.baseURL) { "secret" }
      let store = ChatStore(backend: backend)
      defer { store.close() }
      var deltas = 0
      let nanoseconds = await Harness.timeAsync {
        for turn in 0..<replies {
          store.sendMessage("Benchmark question \(turn)")
          let answered = await settled(store, replies: turn + 1)
          deltas += answered?.messages.last?.text.split(separator: " ").count ?? 0
        }
      }
      return (deltas, nanoseconds)
    }
  }

  /// The first state with `replies` finished replies, or nil after 30 s.
  private static func settled(_ store: ChatStore, replies: Int) async -> ConversationState? {
    let snapshots = store.snapshots()
    return await withTaskGroup(of: ConversationState?.self) { group in
      group.addTask {
        for await snapshot in snapshots {
          let state = snapshot.state
          if state.streamingReply == nil, state.messages.count == replies * 2 { return state }
        }
        return nil
      }
      group.addTask {
        try? await Task.sleep(for: .seconds(30))
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
  }
}

/// The reference server, started for the benchmark run; it exits when this process does (its stdin closes).
final class LocalServer: Sendable {
  let baseURL: URL
  private let process: Process
  private let input: Pipe

  init() throws {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "../../Tests/ChatHTTPTests/ReferenceServer/reference_server.py"
    ).standardizedFileURL
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script.path, "--port", "0", "--delay-ms", "0"]
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
      throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the reference server did not start"])
    }
    baseURL = URL(string: "http://127.0.0.1:\(port)/v1")!
    self.process = process
    self.input = input
  }

  deinit {
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
  }
}
