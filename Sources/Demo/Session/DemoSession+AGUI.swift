import ChatAGUI
import ConversationStore
import Foundation

extension DemoSession {
  /// The demo's own tool, advertised to an AG-UI agent: the agent may call it, and the demo answers it (the
  /// same handler the simulated agent's calls reach).
  static let lookupOrderTool = AGUITool(
    name: "lookupOrder", description: "Looks up an order by its number: its status and when it arrives.",
    parameters: ["type": "object", "properties": ["id": ["type": "string"]], "required": ["id"]])

  /// A session on the AG-UI agent at `endpoint` (`demo --agui URL`): its runs end with the app's calls
  /// pending, so results go back in the next run; the agent's answers are timed on `environment`'s clock.
  static func agui(endpoint: URL, environment: StoreEnvironment, storage: ChatStorage?, user: String?)
    throws(ChatError) -> DemoSession
  {
    let clock = environment.clock
    let backend = try AGUIBackend(
      endpoint: endpoint, tools: [lookupOrderTool], now: { clock.now() }, makeID: environment.makeID)
    var policy = ChatPolicy()
    policy.toolResultDelivery = .nextRun
    return DemoSession(
      backend: backend, agent: nil, environment: environment, storage: storage, user: user,
      workspace: "agui \(endpoint.absoluteString)", policy: policy)
  }
}
