import ChatAGUI
import ChatHTTP
import ConversationStore
import ConversationTesting
import Foundation
import Testing

// The Swift examples of the ChatAGUI module's doc comments (and of `AgentContextPolicy`'s, which builds an
// `AGUIBackend`), compiled between `DOCC-` markers (`DocumentationCodeTests` checks each doc comment's Swift
// blocks against them) and run where that is cheap.

/// The host's token store, as the backends' examples use one.
private actor TokenStore {
  func current() -> String { "secret" }
}
private let tokens = TokenStore()
private let historyServer = URL(string: "https://chat.example.com/v1")!
private let url = URL(string: "https://agents.example.com/support")!

private func apply(_ frame: AGUIFrame) {}
private func showCutOff() {}

/// Makes a client of an AG-UI agent with a history server: compiled and built, never connected.
private func aguiBackendExample() throws -> ChatClient {
  // DOCC-AGUIBACKEND-BEGIN
  let agent = try AGUIBackend(
    endpoint: URL(string: "https://agents.example.com/support")!,
    tools: [AGUITool(name: "pick_color", description: "Ask the user for a color")],
    companion: try HTTPChatBackend(baseURL: historyServer) { await tokens.current() },
    token: { await tokens.current() })
  let client = ChatClient(backend: agent)
  // DOCC-AGUIBACKEND-END
  return client
}

@Suite("ChatAGUI's doc-comment examples")
struct ChatAGUIDocCommentTests {
  @Test("an AG-UI client is made from the agent's endpoint, its tools and a history server")
  func aguiBackend() async throws {
    let client = try aguiBackendExample()
    await client.close()
  }

  @Test("a context policy keeps the newest messages within a budget, without system notes")
  func agentContextPolicy() throws {
    // DOCC-AGENTCONTEXTPOLICY-BEGIN
    var context = AgentContextPolicy.newest(30)
    context.maximumTextBytes = 60_000
    context.transform = { messages in messages.filter { $0.role != .system } }
    let agent = try AGUIBackend(endpoint: url, contextPolicy: context)
    // DOCC-AGENTCONTEXTPOLICY-END
    #expect(agent.contextPolicy.maximumMessages == 30)
    #expect(agent.contextPolicy.maximumTextBytes == 60_000)
  }

  @Test("a frame decodes from its JSON")
  func aguiFrame() throws {
    // DOCC-AGUIFRAME-BEGIN
    let frame = try AGUIFrame(json: #"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}"#)
    // frame.event == .textMessageContent(messageID: "m1", delta: "Hi")
    // DOCC-AGUIFRAME-END
    #expect(frame.event == .textMessageContent(messageID: "m1", delta: "Hi"))
  }

  @Test("a body that ends inside a run is truncated")
  func aguiStreamVerifier() throws {
    let frames = try [
      #"{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}"#,
      #"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
    ].map { try AGUIFrame(json: $0) }
    var cutOff = false
    func showCutOff() { cutOff = true }
    // DOCC-AGUISTREAMVERIFIER-BEGIN
    var verifier = AGUIStreamVerifier()
    for frame in frames { for expanded in try verifier.accept(frame) { apply(expanded) } }
    if verifier.finish() == .truncated { showCutOff() }  // the body ended inside a run
    // DOCC-AGUISTREAMVERIFIER-END
    #expect(cutOff)
  }

  @Test("a run's body carries the thread and the tools")
  func runAgentInput() throws {
    let thread = AGUIThread()
    let tools = [AGUITool(name: "pick_color", description: "Ask the user for a color")]
    // DOCC-RUNAGENTINPUT-BEGIN
    let body = RunAgentInput(threadID: "conv-1", runID: "run-7", thread: thread, tools: tools).json()
    // DOCC-RUNAGENTINPUT-END
    let json = String(decoding: body, as: UTF8.self)
    #expect(json.contains(#""threadId":"conv-1""#))
    #expect(json.contains("pick_color"))
  }
}
