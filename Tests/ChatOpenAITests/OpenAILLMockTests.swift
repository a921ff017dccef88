import ChatOpenAI
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `OpenAIBackend` against LLMock (`Tests/AgentProducers/llmock_server.py`), a real OpenAI-compatible server
/// that scripts replies and injects faults, and grades the client. Each test asks for a model of its own, so
/// its faults and its verdict are its own on the shared server.
@Suite(
  "OpenAI backend against LLMock", .enabled(if: AgentProducers.isInstalled, AgentProducers.skipReason),
  .hangGuard)
struct OpenAILLMockTests {
  let server: LocalServerProcess
  var base: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

  init() async throws { server = try await AgentProducers.shared("llmock_server.py") }

  static func model(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8).lowercased())" }

  func store(
    _ model: String, api: OpenAIAPI = .chatCompletions, tools: [OpenAITool] = [], policy: ChatPolicy = ChatPolicy(),
    handlers: [String: ConversationRuntime<ConversationReducer>.ToolHandler] = [:]
  ) throws -> ChatStore {
    var policy = policy
    policy.toolResultDelivery = .nextRun
    let backend = try OpenAIBackend(
      baseURL: base.appendingPathComponent("v1"), api: api, model: model, tools: tools, policy: policy)
    return ChatStore(policy: policy, backend: backend, tools: handlers)
  }

  /// Queues LLMock behaviours for `model` only.
  func script(_ model: String, _ behaviors: [[String: Any]]) async throws {
    var request = URLRequest(url: base.appendingPathComponent("_llmock/scenario"))
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    let scoped = behaviors.map { behavior in
      var behavior = behavior
      var match = behavior["match"] as? [String: Any] ?? [:]
      match["model"] = model
      behavior["match"] = match
      return behavior
    }
    request.httpBody = try JSONSerialization.data(withJSONObject: ["behaviors": scoped])
    let (_, response) = try await URLSession.shared.data(for: request)
    #expect((200..<300).contains((response as? HTTPURLResponse)?.statusCode ?? 0))
  }

  /// LLMock's grade of what the client did with `model`'s requests.
  func verdict(_ model: String) async throws -> [String: Any] {
    var components = URLComponents(
      url: base.appendingPathComponent("_llmock/scoped/verdict"), resolvingAgainstBaseURL: false)!
    components.queryItems = [URLQueryItem(name: "model", value: model)]
    let (data, _) = try await URLSession.shared.data(from: components.url!)
    return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
  }

  /// The codes of the verdict's errors (client faults); warnings are listed apart.
  func faults(_ model: String) async throws -> (errors: [String], warnings: [String]) {
    let findings = try await verdict(model)["findings"] as? [[String: Any]] ?? []
    let codes = { (severity: String) in
      findings.filter { $0["severity"] as? String == severity }.compactMap { $0["code"] as? String }
    }
    return (codes("error"), codes("warning"))
  }

  static func ended(_ store: ChatStore, _ count: Int = 2) async throws -> ConversationState {
    try #require(
      await store.state(within: 60, where: { $0.streamingReply == nil && $0.messages.count == count && $0.isSettled }))
  }

  @Test(
    "a text answer streams and completes, with usage, over either API",
    arguments: [OpenAIAPI.chatCompletions, .responses])
  func text(api: OpenAIAPI) async throws {
    let model = Self.model("text")
    let store = try store(model, api: api)
    defer { store.close() }
    store.sendMessage("Say hi")
    let answer = try #require(try await Self.ended(store).messages.last)
    #expect(answer.reply == .completed)
    #expect(answer.text == "Hello! You said: Say hi")
    #expect(answer.finishReason == .stop)
    #expect(try await faults(model).errors == [])
  }

  @Test(
    "a conversation goes on: the second request carries the first exchange",
    arguments: [OpenAIAPI.chatCompletions, .responses])
  func severalTurns(api: OpenAIAPI) async throws {
    let store = try store(Self.model("turns"), api: api)
    defer { store.close() }
    store.sendMessage("one")
    _ = try await Self.ended(store)
    store.sendMessage("two")
    let answer = try #require(try await Self.ended(store, 4).messages.last)
    #expect(answer.text.hasPrefix("Hello! You said: one Hello! You said: one two"), "\(answer.text)")
  }

  @Test(
    "the model calls the app's tool; its result goes back on the next request and the answer continues in its row",
    arguments: [OpenAIAPI.chatCompletions, .responses])
  func appTool(api: OpenAIAPI) async throws {
    let model = Self.model("tools")
    let weather = OpenAITool(
      name: "get_weather", description: "The weather in a city",
      parameters: ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]])
    let store = try store(model, api: api, tools: [weather], handlers: ["get_weather": { _ in "sunny" }])
    defer { store.close() }
    store.sendMessage("What is the weather in Paris?")
    let state = try await Self.ended(store)
    let answer = try #require(state.messages.last)
    #expect(answer.reply == .completed)
    #expect(answer.toolCalls.map(\.name) == ["get_weather"])
    #expect(answer.toolCalls.first?.execution == .client)
    #expect(answer.toolCalls.first?.outcome == .succeeded("sunny"))
    #expect(!answer.text.isEmpty, "the model answered after the result")
    #expect(try await faults(model).errors == [])
  }

  @Test(
    "a 429 fails the send RATE_LIMITED with the server's Retry-After; a retry after it succeeds, and LLMock finds no fault"
  )
  func rateLimited() async throws {
    let model = Self.model("rate")
    try await script(model, [["type": "fail", "status": 429, "retry_after": 1.5]])
    let store = try store(model)
    defer { store.close() }
    let sent = store.sendMessage("hello")
    let failed = try #require(
      await store.state(
        within: 30, where: { if case .failed = $0.messages.first?.delivery { $0.isSettled } else { false } }))
    guard case .failed(let error)? = failed.messages.first?.delivery else { return }
    #expect(error.code == .rateLimited)
    let wait = try #require(error.retryAfter)
    #expect(wait >= 1.5)
    // When the user retries once the server's wait is over
    try await Task.sleep(for: .seconds(wait + 0.2))
    store.send(.retry(sent))
    let answer = try #require(try await Self.ended(store).messages.last)
    #expect(answer.reply == .completed)
    #expect(try await faults(model).errors == [])
  }

  @Test(
    "a stream that breaks ends the answer truncated or rejected, never complete, with its text; regenerating it gets the whole answer",
    arguments: [("disconnect", "truncated"), ("truncate", "truncated"), ("malformed", "rejected")])
  func brokenStream(kind: String, outcome: String) async throws {
    let model = Self.model(kind)
    try await script(model, [["type": "stream_fault", "kind": kind, "after_chunks": 3, "match": ["stream": true]]])
    let store = try store(model)
    defer { store.close() }
    store.sendMessage("tell me something")
    let broken = try #require(try await Self.ended(store).messages.last)
    switch broken.reply {
    case .truncated?: #expect(outcome == "truncated")
    case .rejected(let error)?: #expect(outcome == "rejected" && error.code == .invalidEvent)
    default: Issue.record("\(kind) ended the answer \(String(describing: broken.reply))")
    }
    #expect(!broken.text.isEmpty, "the text that streamed is kept")
    // When the user asks for the answer again, the same request goes out and completes
    store.send(.regenerate(broken.clientID))
    let answer = try #require(
      await store.state(within: 30, where: { $0.messages.last?.reply == .completed && $0.isSettled })?.messages.last)
    #expect(answer.text == "Hello! You said: tell me something")
    let verdict = try await faults(model)
    #expect(verdict.errors == [], "LLMock: \(verdict)")
  }

  @Test("a stalled stream hits the idle timeout instead of hanging, and the answer keeps what came")
  func stall() async throws {
    let model = Self.model("stall")
    try await script(
      model,
      [["type": "stream_fault", "kind": "stall", "after_chunks": 2, "stall_seconds": 20, "match": ["stream": true]]])
    var policy = ChatPolicy()
    policy.idleTimeout = 1
    let store = try store(model, policy: policy)
    defer { store.close() }
    store.sendMessage("wait for it")
    let answer = try #require(try await Self.ended(store).messages.last)
    #expect(answer.reply != .completed && answer.reply != nil, "\(String(describing: answer.reply))")
    let verdict = try await faults(model)
    #expect(!verdict.warnings.contains("no_read_timeout"), "LLMock: \(verdict)")
  }
}
