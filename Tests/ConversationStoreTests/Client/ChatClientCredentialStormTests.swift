import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

/// A server that refuses every token must not make the client hammer it or the host's credential provider:
/// one refresh per failure, then `needsCredentials` and a wait for the host.
@Suite("ChatClient when every credential is refused", .hangGuard)
struct ChatClientCredentialStormTests {
  /// A client holding the list, one conversation and the shared connection, with a message sent against
  /// `server`, once it and the conversation wait for the host, and then left alone for `seconds` of real time
  /// (where a storm would show). The wait is for a state, not a time: on a loaded machine nothing may have
  /// happened yet after a fixed delay.
  static func leftAlone(
    with server: RefusingServer, for seconds: Double, provider: CountingProvider
  ) async throws -> (ChatClient, ChatStore) {
    let client = ChatClient(
      backend: server, identity: UserIdentity(userID: "u-1042"), options: ChatClientOptions(workspace: "acme"),
      credentials: provider.provider)
    client.list.send(.load(pageSize: 20))
    let chat = client.conversation("c1")
    chat.sendMessage("Where is my order?")
    let waiting = await waitUntil { client.state.awaitsHostCredentials && chat.state.needsCredentials }
    #expect(waiting, "the client and the conversation wait for the host")
    try await Task.sleep(for: .seconds(seconds))
    return (client, chat)
  }

  @Test(
    "every request refused: the provider is asked once, then everything waits for the host; each host refresh is one more round",
    arguments: [401, 403])
  func everythingRefused(status: Int) async throws {
    // Given a server that refuses every token, and a provider whose fresh token it refuses too
    let server = RefusingServer(status: status)
    let provider = CountingProvider()

    // When the app lists, opens a conversation, sends, and is left alone for two seconds after
    let (client, chat) = try await Self.leftAlone(with: server, for: 2, provider: provider)

    // Then a handful of requests went out, not a storm, and the provider was asked once (twice at most,
    // when the conversation's refusal overtakes the shared connection's)
    let first = server.counts
    #expect(first.total <= 8, "\(first)")
    #expect((1...2).contains(provider.count), "asked \(provider.count) times")
    // And the client and the conversation wait for the host, the message still there to go out later
    #expect(client.state.needsCredentials)
    #expect(chat.state.needsCredentials, "\(chat.state.credentials)")
    #expect(chat.state.messages.map(\.text) == ["Where is my order?"])

    // When another second passes, nothing more is asked
    try await Task.sleep(for: .seconds(1))
    #expect(server.counts.total == first.total, "\(server.counts) after \(first)")

    // When the host signs the user in again (and the server still refuses), one more round goes out
    let asked = provider.count
    client.credentialsRefreshed()
    _ = await waitUntil { server.counts.total > first.total }
    _ = await waitUntil { client.state.awaitsHostCredentials && chat.state.needsCredentials }
    try await Task.sleep(for: .seconds(1))
    let second = server.counts
    #expect(second.total > first.total, "the host's fresh credential is tried")
    #expect(second.total - first.total <= 6, "\(second) after \(first)")
    #expect(provider.count == asked, "the provider is not asked for the host's credential")
    #expect(chat.state.needsCredentials)
    await client.close()
  }

  @Test("the realtime endpoint refuses while sends succeed: the refusal holds the sends too, once")
  func realtimeRefusedSendsAccepted() async throws {
    // Given a server whose realtime endpoint refuses the token and whose send endpoint takes it
    let server = RefusingServer(refusing: .realtime)
    let provider = CountingProvider()

    // When the app is left alone
    let (client, chat) = try await Self.leftAlone(with: server, for: 2, provider: provider)

    // Then the connection was tried a bounded number of times, the provider asked once or twice, and the
    // client waits for the host (the credential is the same for every endpoint)
    let counts = server.counts
    #expect(counts.realtime <= 3, "\(counts)")
    #expect(counts.sends <= 2, "\(counts)")
    #expect((1...2).contains(provider.count), "asked \(provider.count) times")
    #expect(client.state.needsCredentials)
    try await Task.sleep(for: .seconds(1))
    #expect(server.counts.total == counts.total, "\(server.counts) after \(counts)")
    _ = chat
    await client.close()
  }
}
