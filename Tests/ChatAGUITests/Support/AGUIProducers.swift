import ChatAGUI
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The AG-UI tests' name for the shared producers (`Tests/AgentProducers`).
typealias AGUIProducers = AgentProducers

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
