import ConversationState
package import ConversationTesting
package import Foundation
package import Testing

/// The real agent producers under `Tests/AgentProducers/` (Pydantic AI's AG-UI and Vercel AI adapters,
/// ag-ui-protocol's encoder, LLMock), started on 127.0.0.1 from the pinned virtual environment
/// `Tests/AgentProducers/make-venv.sh` builds (`.ci/run` builds it; so can anyone, in under a minute).
package enum AgentProducers {
  package static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("AgentProducers")

  /// The repository's root, for commands that run from it.
  package static let repository = directory.deletingLastPathComponent().deletingLastPathComponent()

  /// The environment's python: `AGENT_VENV_PYTHON`, else `<repo>/.build/agent-venv/bin/python`.
  package static let python: String = {
    if let given = ProcessInfo.processInfo.environment["AGENT_VENV_PYTHON"], !given.isEmpty { return given }
    // Not standardized: that would resolve the environment's `python` link to the interpreter it points to,
    // which runs outside the environment.
    return repository.appendingPathComponent(".build/agent-venv/bin/python").path
  }()

  /// The environment's own commands (`llmock`), next to its python.
  package static func command(_ name: String) -> String {
    URL(fileURLWithPath: python).deletingLastPathComponent().appendingPathComponent(name).path
  }

  package static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: python) }

  /// Why the producer tests skip, for the test list.
  package static let skipReason: Comment =
    "the agent producers' virtual environment is missing: run Tests/AgentProducers/make-venv.sh"

  /// Set (to 1) where the producers must run, as in CI: a missing environment then fails instead of skipping.
  package static var isRequired: Bool { ProcessInfo.processInfo.environment["AGENT_PRODUCERS_REQUIRED"] == "1" }

  package static func start(_ script: String, _ arguments: [String] = []) throws -> LocalServerProcess {
    try LocalServerProcess([python, directory.appendingPathComponent(script).path, "--port", "0"] + arguments)
  }

  /// One server per script (and arguments) for the whole test process, started off the cooperative pool:
  /// Pydantic AI takes a second or two to import, and a start blocks its thread until the server says
  /// `LISTENING` (two such waits at once would stall every other test's tasks on a 2-core machine). It exits
  /// with the process (its stdin closes). Tests on it keep apart by their conversations.
  ///
  /// The start runs under the registry's lock so that two tests asking at once start one server, not two;
  /// it is test-only code on a thread of its own, and nothing else waits on that lock but other starts.
  package static func shared(_ script: String, _ arguments: [String] = []) async throws -> LocalServerProcess {
    let key = ([script] + arguments).joined(separator: " ")
    let result = await offThePool {
      servers.withLock { servers in
        if let running = servers[key] { return running }
        let started = Result { try start(script, arguments) }
        servers[key] = started
        return started
      }
    }
    return try result.get()
  }

  private static let servers = StateLock<[String: Result<LocalServerProcess, any Error>]>([:])
}
