import ChatAISDK
import ConversationStore
import ConversationTesting
import Foundation
import Testing

// The Swift examples of the ChatAISDK module's doc comments, compiled between `DOCC-` markers
// (`DocumentationCodeTests` checks each doc comment's Swift blocks against them) and run.

/// The host's token store, as the backends' examples use one.
private actor TokenStore {
  func current() -> String { "secret" }
}
private let tokens = TokenStore()

@Suite("ChatAISDK's doc-comment examples")
struct ChatAISDKDocCommentTests {
  @Test("an AI SDK client is made from the route's endpoint and the tools the app runs")
  func aisdkBackend() async throws {
    // DOCC-AISDKBACKEND-BEGIN
    let agent = try AISDKBackend(
      endpoint: URL(string: "https://app.example.com/api/chat")!, appTools: ["pick_color"],
      token: { await tokens.current() })
    let client = ChatClient(backend: agent)
    // DOCC-AISDKBACKEND-END
    await client.close()
  }

  @Test("a chunk decodes from its JSON")
  func uiMessageChunk() throws {
    // DOCC-UIMESSAGECHUNK-BEGIN
    let chunk = try UIMessageChunk(json: #"{"type":"text-delta","id":"t1","delta":"Hi"}"#)
    // chunk == .textDelta(id: "t1", delta: "Hi")
    // DOCC-UIMESSAGECHUNK-END
    #expect(chunk == .textDelta(id: "t1", delta: "Hi"))
  }
}
