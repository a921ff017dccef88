import ChatAGUI
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The real AG-UI producers under `Producers/`, started on 127.0.0.1 from the pinned virtual environment
/// `Producers/make-venv.sh` builds (`.ci/run` builds it; so can anyone, in about fifteen seconds).
enum AGUIProducers {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Producers")

  /// The environment's python: `AGUI_VENV_PYTHON`, else `<repo>/.build/agui-venv/bin/python`.
  static let python: String = {
    if let given = ProcessInfo.processInfo.environment["AGUI_VENV_PYTHON"], !given.isEmpty { return given }
    // Not standardized: that would resolve the environment's `python` link to the interpreter it points to,
    // which runs outside the environment.
    let repository = directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return repository.appendingPathComponent(".build/agui-venv/bin/python").path
  }()

  static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: python) }

  /// Why the producer tests skip, for the test list.
  static let skipReason: Comment =
    "the AG-UI producers' virtual environment is missing: run Tests/ChatAGUITests/Producers/make-venv.sh"

  /// Set (to 1) where the producers must run, as in CI: a missing environment then fails instead of skipping.
  static var isRequired: Bool { ProcessInfo.processInfo.environment["AGUI_PRODUCERS_REQUIRED"] == "1" }

  static func start(_ script: String) throws -> LocalServerProcess {
    try LocalServerProcess([python, directory.appendingPathComponent(script).path, "--port", "0"])
  }

  /// One server per script for the whole test process, started off the cooperative pool: Pydantic AI takes a
  /// second or two to import, and a start blocks its thread until the server says `LISTENING` (two such
  /// waits at once would stall every other test's tasks on a 2-core machine). It exits with the process
  /// (its stdin closes). Tests on it keep apart by their conversations.
  static func shared(_ script: String) async throws -> LocalServerProcess {
    let result: Result<LocalServerProcess, any Error> = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        let result = servers.withLock { servers in
          if let running = servers[script] { return running }
          let started = Result { try start(script) }
          servers[script] = started
          return started
        }
        continuation.resume(returning: result)
      }
    }
    return try result.get()
  }

  private static let servers = StateLock<[String: Result<LocalServerProcess, any Error>]>([:])
}

/// The scripted server (ag-ui-protocol's own encoder) and what it was sent.
struct ScriptedAGUIServer {
  let process: LocalServerProcess
  var base: URL { URL(string: "http://127.0.0.1:\(process.port)")! }

  /// The process's shared scripted server.
  static func shared() async throws -> ScriptedAGUIServer {
    ScriptedAGUIServer(process: try await AGUIProducers.shared("scripted_server.py"))
  }

  func endpoint(_ scenario: String) -> URL { base.appendingPathComponent("scenario/\(scenario)") }

  /// Every request body so far (from every test on this server), oldest first, with what came with it.
  func requests() async throws -> [[String: Any]] {
    let (data, _) = try await URLSession.shared.data(for: URLRequest(url: base.appendingPathComponent("requests")))
    return try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
  }
}

extension ChatStore {
  /// A store on `backend` as an AG-UI host sets one up: the app's results go back in the next run.
  static func onAGUI(
    _ backend: AGUIBackend, tools: [String: ConversationRuntime<ConversationReducer>.ToolHandler] = [:]
  )
    -> ChatStore
  {
    var policy = ChatPolicy()
    policy.toolResultDelivery = .nextRun
    return ChatStore(policy: policy, backend: backend, tools: tools)
  }

  /// The state once the latest answer has ended (and nothing is in flight), or nil after `seconds`.
  func answered(_ count: Int = 2, within seconds: Double = 60) async -> ConversationState? {
    await state(within: seconds, where: { $0.streamingReply == nil && $0.messages.count == count && $0.isSettled })
  }
}
