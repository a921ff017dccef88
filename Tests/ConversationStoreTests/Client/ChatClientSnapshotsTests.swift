import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// The client's own state watched as a store's is: a banner on a screen with no conversation open.
@Suite("ChatClient snapshots", .hangGuard)
struct ChatClientSnapshotsTests {
  @Test("a watcher sees the shared connection drop and come back, and the stream ends when the client closes")
  func connectionBanner() async throws {
    // Given a signed-in client whose shared connection is up, and a screen watching it
    var harness = try await ClientHarness.start(identity: UserIdentity(userID: "u-1"))
    let client = harness.client
    var states = client.snapshots().makeAsyncIterator()
    let first = await states.next()
    #expect(first == client.state)

    // When the connection drops
    #expect(await harness.drop(harness.socket, throwing: ChatError(.network, "tunnel")))

    // Then the watcher sees it offline, without polling
    var sawOffline = false
    while let state = await states.next() {
      if state.connection.isOffline {
        sawOffline = true
        break
      }
    }
    #expect(sawOffline)

    // When it comes back
    _ = await harness.reconnect(after: 1)

    // Then the watcher sees it connected again
    var sawConnected = false
    while let state = await states.next() {
      if state.connection == .connected {
        sawConnected = true
        break
      }
    }
    #expect(sawConnected)

    // And when the client closes, the stream ends
    await client.close()
    while await states.next() != nil {}
  }

  @Test("a watcher that stops reading is let go; a client closed before anyone watched gives its last state once")
  func watchersComeAndGo() async throws {
    let harness = try await ClientHarness.start(identity: UserIdentity(userID: "u-1"))
    let client = harness.client
    // A reader that stops
    let reader = Task {
      for await _ in client.snapshots() {}
    }
    reader.cancel()
    await reader.value
    await client.close()
    // A late watcher gets the closed state, then the end
    var late = client.snapshots().makeAsyncIterator()
    #expect(await late.next()?.isClosed == true)
    #expect(await late.next() == nil)
  }
}
