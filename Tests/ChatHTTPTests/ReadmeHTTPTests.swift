import ChatHTTP
import ConversationStore
import ConversationTesting
import Foundation
import Testing

// The README's HTTP example (below its imports, `ChatHTTP` and `ConversationStore`), compiled and run
// against the reference server; `readmeShowsIt` keeps the README's copy verbatim.
// README-HTTP-BEGIN
/// The host's token store: where the app keeps the bearer token its login gave it.
actor Tokens {
  private var token = "secret"
  private let renew: @Sendable () async throws -> String
  init(renew: @escaping @Sendable () async throws -> String) { self.renew = renew }
  func current() -> String { token }
  func refresh() async throws { token = try await renew() }
}

func startChat(server: URL, tokens: Tokens) throws -> ChatClient {
  let backend = try HTTPChatBackend(baseURL: server) {
    await tokens.current()  // read before every request, sent as "Authorization: Bearer"
  }
  // After a 401 the store calls this once, then sends again.
  return ChatClient(backend: backend, credentials: { try await tokens.refresh() })
}
// README-HTTP-END

@Suite("README HTTP example", .hangGuard)
struct ReadmeHTTPTests {
  @Test("the README's client chats with the reference server, and renews an expired token once")
  func exampleRuns() async throws {
    // Given the server, whose token expires at once and then accepts "t2"
    let server = try await ReferenceServer.start()
    try await server.faults(["expire_token_after_requests": 0])
    let tokens = Tokens {
      try await server.faults(["accepted_token": "t2"])
      return "t2"
    }

    // When the README's client sends
    let client = try startChat(server: server.baseURL, tokens: tokens)
    let chat = client.newConversation()
    chat.sendMessage("Hello from the README")

    // Then the reply arrives under the renewed token
    let answered = await chat.state(within: 30) { $0.messages.count == 2 && $0.streamingReply == nil }
    #expect(answered?.messages.last?.text.hasPrefix("You said: Hello from the README") == true)
    #expect(await tokens.current() == "t2")
    await client.close()
  }

  @Test("the article shows the HTTP example verbatim")
  func readmeShowsIt() throws {
    #expect(
      try ReadmeExcerpt(marker: "README-HTTP", in: #filePath).isShown(
        in: "Sources/ConversationStore/ConversationStore.docc/BackendsAndProtocols.md"))
  }
}
