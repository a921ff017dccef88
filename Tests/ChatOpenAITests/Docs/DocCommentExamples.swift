import ChatOpenAI
import ConversationStore
import Foundation
import Testing

// The Swift example of the ChatOpenAI module's doc comment, compiled between `DOCC-` markers
// (`DocumentationCodeTests` checks each doc comment's Swift blocks against them) and run.

/// The host's keychain, where the API key is kept.
private struct Keychain: Sendable {
  func apiKey() async throws -> String { "sk-test" }
}
private let keychain = Keychain()

@Suite("ChatOpenAI's doc-comment examples")
struct ChatOpenAIDocCommentTests {
  @Test("an OpenAI client is made from the model, its instructions and its tools")
  func openAIBackend() async throws {
    // DOCC-OPENAIBACKEND-BEGIN
    let model = try OpenAIBackend(
      baseURL: URL(string: "https://api.openai.com/v1")!, api: .responses, model: "gpt-5-mini",
      instructions: "You are a support agent for Example Inc.",
      tools: [OpenAITool(name: "order_status", description: "The status of an order")],
      token: { try await keychain.apiKey() })
    let client = ChatClient(backend: model)
    // DOCC-OPENAIBACKEND-END
    await client.close()
  }
}
