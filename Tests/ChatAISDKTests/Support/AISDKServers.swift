import ChatAISDK
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The scripted UI message stream server (`Tests/AgentProducers/aisdk_scripted_server.py`) and what it was sent.
struct ScriptedAISDKServer {
  let process: LocalServerProcess
  var base: URL { URL(string: "http://127.0.0.1:\(process.port)")! }

  static func shared() async throws -> ScriptedAISDKServer {
    ScriptedAISDKServer(process: try await AgentProducers.shared("aisdk_scripted_server.py"))
  }

  func endpoint(_ scenario: String, _ query: String = "") -> URL {
    URL(string: "\(base.absoluteString)/scenario/\(scenario)\(query.isEmpty ? "" : "?\(query)")")!
  }

  /// Every request so far (from every test on this server), oldest first.
  func requests() async throws -> [[String: Any]] {
    let (data, _) = try await URLSession.shared.data(for: URLRequest(url: base.appendingPathComponent("requests")))
    return try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
  }
}

extension ChatStore {
  /// A store on `backend` as an AI SDK host sets one up: the app's results and the user's approvals go back
  /// in the next request.
  static func onAISDK(
    _ backend: AISDKBackend, tools: [String: ConversationRuntime<ConversationReducer>.ToolHandler] = [:]
  ) -> ChatStore {
    var policy = ChatPolicy()
    policy.toolResultDelivery = .nextRun
    return ChatStore(policy: policy, backend: backend, tools: tools)
  }

  /// The state once the latest answer has ended (and nothing is in flight), or nil after `seconds`.
  func ended(_ count: Int = 2, within seconds: Double = 60) async -> ConversationState? {
    await state(within: seconds, where: { $0.streamingReply == nil && $0.messages.count == count && $0.isSettled })
  }
}
