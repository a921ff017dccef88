import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

@Suite("ChatClient: the shared connection and the client's lifetime", .hangGuard)
struct ChatClientLifecycleTests {
  @Test("an expired token stops the shared connection visibly; a fresh credential brings the list's events back")
  func expiredTokenThenRefresh() async throws {
    // Given a client whose list shows c9, a conversation no screen has open
    var harness = try await ClientHarness.start(identity: UserIdentity(userID: "u-1"))
    let client = harness.client
    try await harness.loadList([.row("c9", at: 1)])

    // When the server refuses the credential on the shared connection
    harness.socket.finish(throwing: ChatError(.unauthorized, "expired", status: 401))

    // Then the client says it needs credentials, and nothing reconnects on its own
    #expect(await waitUntil { client.state.needsCredentials && client.state.connection == .closed })
    _ = await harness.clock.run(step: 1, limit: 120) { false }
    #expect(client.realtimeConnectionsOpened == 1)

    // When the host has a fresh credential
    client.credentialsRefreshed()

    // Then the connection opens again, and c9's messages reach the list
    guard case .realtime(nil, let socket) = await harness.nextCall() else {
      Issue.record("the shared connection was not opened again")
      return
    }
    socket.yield(.opened)
    #expect(await waitUntil { client.state.connection == .connected && !client.state.needsCredentials })
    socket.yield(.event("c9", .messageCreated(.server("Your refund is on its way", id: "s1", at: 5))))
    let moved = await client.list.state(where: { $0.conversations["c9"]?.unreadCount == 1 })
    #expect(moved?.conversations["c9"]?.lastMessagePreview == "Your refund is on its way")
    await client.close()
  }

  @Test("a dropped connection backs off and comes back; the stores that lost it resume with it")
  func dropThenBack() async throws {
    var harness = try await ClientHarness.start()
    let client = harness.client
    let chat = client.conversation("c1")
    _ = await chat.state(where: { $0.connection == .connected })

    harness.socket.finish(throwing: ChatError(.network, "tunnel"))
    _ = await chat.state(where: { $0.connection.isOffline })
    #expect(await waitUntil { if case .reconnecting = client.state.connection { true } else { false } })

    // The backoff's wait (1 s × jitter 0.5) passes: one new connection, and the store is live again
    harness.clock.advance(by: 1)
    guard case .realtime(nil, let socket) = await harness.nextCall() else {
      Issue.record("the shared connection did not come back")
      return
    }
    socket.yield(.opened)
    let live = await chat.state(where: { $0.connection == .connected })
    #expect(live != nil)
    #expect(client.realtimeConnectionsOpened == 2)
    await client.close()
  }

  @Test("a frame the backend could not read is a background error; the shared connection goes on")
  func rejectedFrame() async throws {
    let harness = try await ClientHarness.start()
    let client = harness.client
    let chat = client.conversation("c1")
    _ = await chat.state(where: { $0.connection == .connected })

    harness.socket.yield(.rejected(ChatError(.invalidEvent, "not JSON")))
    harness.socket.yield(.event("c1", .messageCreated(.server("still here", id: "s1", at: 2))))

    let delivered = await chat.state(where: { $0.messages.count == 1 })
    #expect(delivered?.messages.map(\.text) == ["still here"])
    #expect(await waitUntil { client.state.backgroundError?.code == .invalidEvent })
    #expect(client.state.connection == .connected)
    #expect(client.realtimeConnectionsOpened == 1)
    await client.close()
  }

  @Test("a client dropped without close() stops: its stores close and its connection is let go")
  func droppedClientDies() async throws {
    // Given a client with an open conversation and a live shared connection
    let backend = ControlledBackend()
    var calls = backend.calls.makeAsyncIterator()
    let released = StateLock(false)
    let dropped = WeakClient()
    let chat: ChatStore
    do {
      let client = ChatClient(backend: backend, environment: .deterministic(clock: TestClock()))
      guard case .realtime(nil, let socket) = await calls.next() else {
        Issue.record("no shared connection")
        return
      }
      socket.onTermination = { _ in released.withLock { $0 = true } }
      socket.yield(.opened)
      chat = client.conversation("c1")
      _ = await chat.state(where: { $0.connection == .connected })
      dropped.client = client
    }

    // When the host lets go of the client (but still holds a store)
    // Then the client is freed, the store it held refuses actions, and the server's stream is let go
    #expect(await waitUntil { dropped.client == nil })
    #expect(await waitUntil { chat.isClosed })
    #expect(await waitUntil { released.withLock { $0 } })
  }
}

/// A client held weakly, readable from any thread.
final class WeakClient: Sendable {
  private let stored = StateLock<Weak>(Weak())
  private struct Weak { weak var client: ChatClient? }
  var client: ChatClient? {
    get { stored.withLock { $0.client } }
    set { stored.withLock { $0.client = newValue } }
  }
}
