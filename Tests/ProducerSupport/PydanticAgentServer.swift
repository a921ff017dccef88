package import ConversationState
package import ConversationStore
package import ConversationTesting
package import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Pydantic AI's server (`Tests/AgentProducers/pydantic_agent_server.py`) as the approval stories use it:
/// what it received, and the gates its "wait <gate>" approvals wait on.
package struct PydanticAgentServer: Sendable {
  package let process: LocalServerProcess
  package var base: URL { URL(string: "http://127.0.0.1:\(process.port)")! }

  /// The process's shared server.
  package static func shared() async throws -> PydanticAgentServer {
    PydanticAgentServer(process: try await AgentProducers.shared("pydantic_agent_server.py"))
  }

  /// A gate of the caller's own: the server is shared by every test in the process.
  package static func gate() -> String { "gate-\(UUID().uuidString.prefix(8).lowercased())" }

  /// The bodies of the requests the server received on `path`, oldest first.
  package func bodies(at path: String) async throws -> [[String: Any]] {
    let (data, _) = try await URLSession.shared.data(from: base.appendingPathComponent("requests"))
    let all = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    return all.filter { $0["path"] as? String == path }.compactMap { $0["body"] as? [String: Any] }
  }

  /// Opens `gate`: the request that waits on it (or will) goes on.
  package func open(_ gate: String) async throws {
    var request = URLRequest(url: base.appendingPathComponent("gates/\(gate)"))
    request.httpMethod = "POST"
    let (_, response) = try await URLSession.shared.data(for: request)
    guard (response as? HTTPURLResponse)?.statusCode == 200 else {
      throw RelaunchStoryError("the server did not open \(gate): \(String(describing: response))")
    }
  }
}

extension ConversationState {
  /// What the latest answer asks, while it waits for input; empty otherwise.
  package var waitingRequests: [InputRequest] {
    guard case .awaitingInput(let requests)? = messages.last?.reply else { return [] }
    return requests
  }
}

extension ChatStore {
  /// The state once the conversation holds `count` messages and the last one waits: for the user (a request
  /// open, nothing on its way), or, every request answered, for its continuation; nil after a minute.
  package func waiting(_ count: Int) async -> ConversationState? {
    await state(where: { state in
      state.messages.count == count && !state.waitingRequests.isEmpty
        && (state.isSettled || state.waitingRequests.allSatisfy { $0.answer != nil })
    })
  }

  /// The state once the conversation holds `count` messages, the last one completed, with nothing on its
  /// way; nil after a minute.
  package func completed(_ count: Int) async -> ConversationState? {
    await state(where: { state in
      state.messages.count == count && state.messages.last?.reply == .completed && state.isSettled
        && state.streamingReply == nil
    })
  }
}
