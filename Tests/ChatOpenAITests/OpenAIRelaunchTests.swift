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

/// The conversation the model is sent is the one the user sees, after a relaunch too: `OpenAIBackend`
/// keeps nothing between requests, and a client on the same storage sends the stored exchange.
@Suite(
  "OpenAI backend after a relaunch", .enabled(if: AgentProducers.isInstalled, AgentProducers.skipReason),
  .hangGuard)
struct OpenAIRelaunchTests {
  let server: LocalServerProcess
  var base: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

  init() async throws { server = try await AgentProducers.shared("llmock_server.py") }

  func story(_ model: String, api: OpenAIAPI) -> RelaunchStory {
    let root = base.appendingPathComponent("v1")
    return RelaunchStory { try OpenAIBackend(baseURL: root, api: api, model: model, instructions: "Be brief.") }
  }

  /// The bodies of the requests LLMock received for `model`, oldest first.
  func bodies(_ model: String) async throws -> [[String: Any]] { try await Self.bodies(on: base, model: model) }

  /// The bodies of the requests the LLMock at `base` received for `model`, oldest first.
  static func bodies(on base: URL, model: String) async throws -> [[String: Any]] {
    var components = URLComponents(
      url: base.appendingPathComponent("_llmock/scoped/requests"), resolvingAgainstBaseURL: false)!
    components.queryItems = [URLQueryItem(name: "model", value: model)]
    let (data, _) = try await URLSession.shared.data(from: components.url!)
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    let records = object?["requests"] as? [[String: Any]] ?? []
    return records.compactMap { $0["body"] as? [String: Any] }
  }

  /// The texts of a request's history, in order: Chat Completions `messages`, Responses `input`.
  static func history(_ body: [String: Any], api: OpenAIAPI) -> [String] {
    let items = body[api == .chatCompletions ? "messages" : "input"] as? [[String: Any]] ?? []
    return items.map { item in
      if let text = item["content"] as? String { return text }
      let parts = item["content"] as? [[String: Any]] ?? []
      return parts.compactMap { $0["text"] as? String }.joined()
    }
  }

  @Test(
    "after a relaunch, the next request carries the earlier exchange the user sees",
    arguments: [OpenAIAPI.chatCompletions, .responses])
  func relaunchKeepsContext(api: OpenAIAPI) async throws {
    // Given a user who told the agent their name, then quit
    let model = "relaunch-\(UUID().uuidString.prefix(8).lowercased())"
    let story = story(model, api: api)
    defer { story.cleanUp() }
    let (id, first) = try await story.firstLaunch("My name is Zed and my order is 1042") {
      $0.messages.last?.reply == .completed
    }
    let firstAnswer = try #require(first.messages.last?.text)

    // When they relaunch, open the conversation and ask again
    #expect(try await story.relaunchAndSend(id, "What is my name?") != nil, "the second answer never completed")

    // Then the request the model received holds the earlier exchange, in the API's own history field
    let last = try #require(try await bodies(model).last)
    let history = Self.history(last, api: api)
    let expected =
      (api == .chatCompletions ? ["Be brief."] : [])
      + ["My name is Zed and my order is 1042", firstAnswer, "What is my name?"]
    #expect(history == expected)
  }

  @Test(
    "after a relaunch, regenerating the last answer sends the conversation through its prompt",
    arguments: [OpenAIAPI.chatCompletions, .responses])
  func relaunchThenRegenerate(api: OpenAIAPI) async throws {
    let model = "regen-\(UUID().uuidString.prefix(8).lowercased())"
    let story = story(model, api: api)
    defer { story.cleanUp() }
    let (id, _) = try await story.firstLaunch("My name is Zed") { $0.messages.last?.reply == .completed }

    // When the relaunched app regenerates the answer it restored
    let state = try await story.regenerateAfterRelaunch(id)

    // Then a new answer replaced it (no UNKNOWN_MESSAGE), asked with the prompt as the last message
    let done = try #require(state)
    #expect(done.messages.count == 2)
    #expect(done.messages.last?.reply == .completed)
    #expect(done.userError == nil)
    let last = try #require(try await bodies(model).last)
    #expect(Self.history(last, api: api).last == "My name is Zed")
  }

  @Test(
    "an app tool cut off by a relaunch is not run again; the model is sent that it stopped, and answers",
    arguments: [OpenAIAPI.chatCompletions, .responses])
  func toolInterrupted(api: OpenAIAPI) async throws {
    let model = "tool-\(UUID().uuidString.prefix(8).lowercased())"
    let root = base.appendingPathComponent("v1")
    let (done, runs) = try await RelaunchStory.toolInterruptedByRelaunch("Pick a color for me") {
      try OpenAIBackend(
        baseURL: root, api: api, model: model,
        tools: [OpenAITool(name: "pick_color", description: "Ask the user for a color")])
    }
    #expect(runs == 1, "the tool ran once, before the relaunch")
    #expect(done?.messages.last?.reply == .completed)
    // The continuation carried the call's outcome: the model's request holds the stopped tool's output
    let last = try #require(try await bodies(model).last)
    let items = last[api == .chatCompletions ? "messages" : "input"] as? [[String: Any]] ?? []
    let output = items.first { ($0["role"] as? String) == "tool" || ($0["type"] as? String) == "function_call_output" }
    let text = (output?["content"] as? String) ?? (output?["output"] as? String) ?? ""
    #expect(text.contains("not run again"), "\(items)")
  }

  @Test("a stored answer whose provider payload is corrupt is a typed error for that message, and the rest is sent")
  func corruptStoredPayload() async throws {
    // Given a stored exchange whose answer's Responses items were damaged on disk
    let model = "corrupt-\(UUID().uuidString.prefix(8).lowercased())"
    var answer = Message.server("Your order is 1042.", id: "a1", at: 2)
    answer.providerMetadata = ["openai.responses": ["output": "not a list of items"]]
    let state = ConversationState.existing(
      [.confirmed("What is my order?", clientID: "u1", serverID: "u1", at: 1), answer], id: "conv-corrupt")
    let backend = try OpenAIBackend(baseURL: base.appendingPathComponent("v1"), api: .responses, model: model)
    let store = ChatStore(state, backend: backend)
    defer { store.close() }

    // When the user asks again
    store.sendMessage("And when does it ship?")
    let done = try #require(
      await store.state(within: 60, where: { $0.messages.count == 4 && $0.messages.last?.reply == .completed }))

    // Then the store says which message could not be sent as stored, and the model got the rest
    #expect(done.backgroundError?.code == .invalidResponse)
    #expect(done.backgroundError?.message.contains(answer.clientID.rawValue) == true)
    let last = try #require(try await bodies(model).last)
    #expect(
      Self.history(last, api: .responses) == ["What is my order?", "Your order is 1042.", "And when does it ship?"])
  }
}
