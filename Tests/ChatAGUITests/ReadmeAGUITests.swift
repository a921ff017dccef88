import ChatAGUI
import ConversationStore
import ConversationTesting
import Foundation
import Testing

// The README's AG-UI example (below its imports, `ChatAGUI` and `ConversationStore`), compiled and run
// against Pydantic AI's adapter; `shown` keeps the README's copy verbatim.
// README-AGUI-BEGIN
func agentChat(agent: URL) throws -> ChatStore {
  let backend = try AGUIBackend(
    endpoint: agent,  // e.g. http://127.0.0.1:8765/agent
    tools: [AGUITool(name: "pick_color", description: "Ask the user for a color")])
  // AG-UI runs end with the app's calls pending: the backend makes the store send results in the next run.
  return ChatStore(backend: backend, tools: ["pick_color": { _ in "teal" }])
}
// README-AGUI-END

// README-AGUI-STORAGE-BEGIN
func agentClient(agent: URL, dataFolder: String) throws -> ChatClient {
  let backend = try AGUIBackend(endpoint: agent, contextPolicy: .newest(30))
  return ChatClient(
    backend: backend,
    options: ChatClientOptions(workspace: "acme", storage: try ChatStorage(root: dataFolder)),
    tools: ["pick_color": { _ in "teal" }])
}
// README-AGUI-STORAGE-END

@Suite("README: an AG-UI agent")
struct ReadmeAGUITests {
  @Test("the article shows the AG-UI example as this file compiles it")
  func shown() throws {
    #expect(
      try ReadmeExcerpt(marker: "README-AGUI", in: #filePath).isShown(
        in: "Sources/ConversationStore/ConversationStore.docc/BackendsAndProtocols.md"))
    #expect(
      try ReadmeExcerpt(marker: "README-AGUI-STORAGE", in: #filePath).isShown(
        in: "Sources/ConversationStore/ConversationStore.docc/BackendsAndProtocols.md"))
  }

  @Test(
    "the README's AG-UI store answers the agent's call to the app's tool and gets the answer",
    .enabled(if: AGUIProducers.isInstalled, AGUIProducers.skipReason), .hangGuard)
  func runs() async throws {
    let server = try await AGUIProducers.shared("pydantic_agent_server.py")
    let store = try agentChat(agent: URL(string: "http://127.0.0.1:\(server.port)/agent")!)
    defer { store.close() }
    store.sendMessage("pick a color")
    let answer = try #require(await store.answered()?.messages.last)
    #expect(answer.text == "The pick_color tool said: teal")
  }
}
