import ChatAGUI
import ChatAISDK
import ChatOpenAI
import ConversationStore
import Foundation

/// An agent server the demo talks to instead of the simulated agent (`--agui`, `--aisdk`, `--openai`).
enum AgentEndpoint: Equatable {
  /// An AG-UI 1.0 agent endpoint.
  case agui(URL)
  /// An AI SDK UI message stream route (`useChat`'s `api`).
  case aisdk(URL)
  /// An OpenAI-compatible API root (`…/v1`), the API to use and the model to ask.
  case openai(URL, api: OpenAIAPI, model: String)

  var url: URL {
    switch self {
    case .agui(let url), .aisdk(let url), .openai(let url, _, _): url
    }
  }

  /// The status bar's name for it.
  var workspace: String {
    switch self {
    case .agui(let url): "agui \(url.absoluteString)"
    case .aisdk(let url): "aisdk \(url.absoluteString)"
    case .openai(let url, let api, let model):
      "openai \(api == .responses ? "responses" : "chat") \(model) \(url.absoluteString)"
    }
  }
}

extension DemoSession {
  static let lookupOrderName = "lookupOrder"
  static let lookupOrderDescription = "Looks up an order by its number: its status and when it arrives."
  static let lookupOrderParameters: JSONValue = [
    "type": "object", "properties": ["id": ["type": "string"]], "required": ["id"],
  ]

  /// A session on an agent server: the demo's own tool (`lookupOrder`, the handler the simulated agent's
  /// calls reach) is the app's; its results go back on the next request, as these protocols do; answers are
  /// timed on `environment`'s clock.
  static func agent(_ endpoint: AgentEndpoint, environment: StoreEnvironment, storage: ChatStorage?, user: String?)
    throws(ChatError) -> DemoSession
  {
    let clock = environment.clock
    let backend: any ChatBackend
    switch endpoint {
    case .agui(let url):
      backend = try AGUIBackend(
        endpoint: url,
        tools: [
          AGUITool(name: lookupOrderName, description: lookupOrderDescription, parameters: lookupOrderParameters)
        ],
        now: { clock.now() }, makeID: environment.makeID)
    case .aisdk(let url):
      backend = try AISDKBackend(
        endpoint: url, appTools: [lookupOrderName], now: { clock.now() }, makeID: environment.makeID)
    case .openai(let url, let api, let model):
      let key = ProcessInfo.processInfo.environment["OPENAI_API_KEY"]
      backend = try OpenAIBackend(
        baseURL: url, api: api, model: model, instructions: "You are the support agent of a small online shop.",
        tools: [
          OpenAITool(name: lookupOrderName, description: lookupOrderDescription, parameters: lookupOrderParameters)
        ],
        now: { clock.now() }, makeID: environment.makeID, token: { key })
    }
    // The agent backend decides how tool results go back (`AgentBackend.toolResultDelivery`).
    return DemoSession(
      backend: backend, agent: nil, environment: environment, storage: storage, user: user,
      workspace: endpoint.workspace, policy: ChatPolicy())
  }
}
