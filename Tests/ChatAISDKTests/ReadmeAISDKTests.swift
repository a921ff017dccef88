import ChatAISDK
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

// The README's AI SDK example (below its imports), compiled and run against Pydantic AI's Vercel adapter;
// `shown` keeps the README's copy verbatim.
// README-AISDK-BEGIN
func routeChat(route: URL) throws -> ChatStore {
  let backend = try AISDKBackend(
    endpoint: route,  // e.g. http://127.0.0.1:8765/vercel/v6/chat
    appTools: ["pick_color"])  // the tools the app runs itself (useChat's onToolCall)
  // Results and approvals go back in the resent message: the backend decides, not the store's policy.
  return ChatStore(backend: backend, tools: ["pick_color": { _ in "teal" }])
}
// README-AISDK-END

@Suite("README: an AI SDK chat route")
struct ReadmeAISDKTests {
  @Test("the article shows the AI SDK example as this file compiles it")
  func shown() throws {
    #expect(
      try ReadmeExcerpt(marker: "README-AISDK", in: #filePath).isShown(
        in: "Sources/ConversationStore/ConversationStore.docc/BackendsAndProtocols.md"))
  }

  @Test(
    "the README's store answers the route's call to the app's tool and gets the answer",
    .enabled(if: AgentProducers.isInstalled, AgentProducers.skipReason), .hangGuard)
  func runs() async throws {
    let server = try await AgentProducers.shared("pydantic_agent_server.py")
    let store = try routeChat(route: URL(string: "http://127.0.0.1:\(server.port)/vercel/v6/chat")!)
    defer { store.close() }
    store.sendMessage("pick a color")
    let answer = try #require(await store.ended()?.messages.last)
    #expect(answer.text == "The pick_color tool said: teal")
  }
}
