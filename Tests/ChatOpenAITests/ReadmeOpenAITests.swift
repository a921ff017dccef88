import ChatOpenAI
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

// The README's OpenAI example (below its imports), compiled and run against LLMock; `shown` keeps the
// README's copy verbatim.
// README-OPENAI-BEGIN
func modelChat(server: URL) throws -> ChatStore {
  let backend = try OpenAIBackend(
    baseURL: server,  // the API root, e.g. https://api.openai.com/v1
    api: .chatCompletions, model: "gpt-4o-mini",
    tools: [OpenAITool(name: "pick_color", description: "Ask the user for a color")])
  return ChatStore(backend: backend, tools: ["pick_color": { _ in "teal" }])  // results go on the next request
}
// README-OPENAI-END

@Suite("README: an OpenAI-compatible server")
struct ReadmeOpenAITests {
  @Test("the article shows the OpenAI example as this file compiles it")
  func shown() throws {
    #expect(
      try ReadmeExcerpt(marker: "README-OPENAI", in: #filePath).isShown(
        in: "Sources/ConversationStore/ConversationStore.docc/BackendsAndProtocols.md"))
  }

  @Test(
    "the README's store answers the model's call to the app's tool and gets an answer",
    .enabled(if: AgentProducers.isInstalled, AgentProducers.skipReason), .hangGuard)
  func runs() async throws {
    let server = try await AgentProducers.shared("llmock_server.py")
    let store = try modelChat(server: URL(string: "http://127.0.0.1:\(server.port)/v1")!)
    defer { store.close() }
    store.sendMessage("Pick a color for me")
    let state = try #require(
      await store.state(within: 60, where: { $0.messages.last?.reply == .completed && $0.isSettled }))
    #expect(state.messages.last?.toolCalls.first?.outcome == .succeeded("teal"))
    #expect(state.messages.last?.text.isEmpty == false)
  }
}
