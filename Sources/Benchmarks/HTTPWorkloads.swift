import ChatHTTP
import ConversationStore
import ConversationTesting
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
      _ = server.process  // kept alive for as long as the workload is
      guard let backend = try? HTTPChatBackend(baseURL: server.baseURL, token: { "secret" }) else { return (0, 0) }
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
struct LocalServer {
  let baseURL: URL
  let process: LocalServerProcess

  init() throws {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Tests/ChatHTTPTests/ReferenceServer/reference_server.py").standardizedFileURL
    process = try LocalServerProcess(["python3", script.path, "--port", "0", "--delay-ms", "0"])
    baseURL = URL(string: "http://127.0.0.1:\(process.port)/v1")!
  }
}
