import ChatHTTP
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// The credential goes only to the configured origin: a redirect elsewhere is refused before anything,
/// not even a connection, reaches the other host.
@Suite("A misbehaving server's redirects", .hangGuard)
struct RedirectTests {
  @Test(
    "a redirect to another origin fails with REDIRECT_REFUSED, and nothing reaches that origin",
    arguments: ["redirect-cross-origin", "redirect-cross-origin-302", "redirect-cross-origin-308"])
  func crossOrigin(name: String) async throws {
    // Given a server whose every answer redirects to another port of this machine
    let server = try await MisbehavingServer.start()
    let backend = try server.backend(name)

    // When the app sends a message and loads history
    let (_, sendError) = await collect(
      backend.send(SendPayload(conversationID: nil, clientID: "c-1", text: "Hi", attachments: [])))
    var historyError: ChatError?
    do {
      _ = try await backend.history(of: "conv-1", before: nil, limit: 20)
    } catch {
      historyError = error as? ChatError
    }

    // Then both fail with REDIRECT_REFUSED, keeping the redirect's status
    #expect(sendError?.code == .redirectRefused)
    #expect(historyError?.code == .redirectRefused)
    #expect([302, 307, 308].contains(historyError?.status ?? 0))
    // And the other origin saw no connection at all; the token went only to the origin it was given for
    let log = try await server.log()
    #expect(log.otherOrigin.isEmpty, "connections to the other origin: \(log.otherOrigin.count)")
    #expect(log.requests.count >= 2)
    #expect(log.requests.allSatisfy { $0.authorization == "Bearer secret" })
  }

  @Test("a conversation in a ChatClient whose server redirects elsewhere shows the send failed, off-origin nothing")
  func clientCrossOrigin() async throws {
    let server = try await MisbehavingServer.start()
    let client = ChatClient(backend: try server.backend("redirect-cross-origin"))
    let chat = client.newConversation()

    chat.sendMessage("Where is my order?")
    let failed = await chat.state(within: 30) { failure(in: $0) != nil }
    await client.close()

    #expect(failed.flatMap(failure(in:))?.code == .redirectRefused)
    #expect(try await server.log().otherOrigin.isEmpty)
  }

  @Test("a redirect within the origin is followed, and the call succeeds with the token still on it")
  func sameOrigin() async throws {
    let server = try await MisbehavingServer.start()
    let backend = try server.backend("redirect-same-origin")

    let page = try await backend.history(of: "conv-1", before: nil, limit: 20)

    #expect(page.messages.isEmpty && !page.hasMore)
    let log = try await server.log()
    #expect(log.requests.count == 2, "the redirect, then the page")
    #expect(log.requests.allSatisfy { $0.authorization == "Bearer secret" })
  }

  @Test("a redirect loop ends after a few redirects with REDIRECT_REFUSED")
  func loop() async throws {
    let server = try await MisbehavingServer.start()
    // A timeout long enough that only the redirect limit ends the calls, however loaded the machine
    var policy = MisbehavingServer.policy
    policy.requestTimeout = 60
    let backend = try server.backend("redirect-loop", policy: policy)

    await #expect(throws: ChatError.self) { _ = try await backend.history(of: "conv-1", before: nil, limit: 20) }
    do {
      _ = try await backend.history(of: "conv-1", before: nil, limit: 20)
    } catch let error as ChatError {
      #expect(error.code == .redirectRefused)
    }
    // Redirects served: a request the loaded server dropped before answering (`time_limit`) and the
    // transport sent again is not a redirect followed.
    let requests = try await server.log().requests
    let served = requests.filter { $0.outcome == "complete" }
    #expect(served.count <= 2 * 6, "at most five redirects per call: \(requests.map { "\($0.outcome ?? "-")" })")
  }
}
