import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

@Suite("ChatClient: identifying again", .hangGuard)
struct ChatClientIdentityTests {
  @Test(
    "identifying the person already signed in (as apps do on every launch) keeps the stores, the connection and the conversation"
  )
  func identifyAgainIsIdempotent() async throws {
    // Given Alice signed in with a conversation open, connected, and a draft in it
    let harness = try await ClientHarness.start(identity: UserIdentity(userID: "alice"))
    let client = harness.client
    let chat = client.conversation("c1")
    chat.send(.setDraft("Where is my ord"))
    let before = try #require(await chat.state { $0.connection == .connected && !$0.draft.isEmpty })

    // When the app identifies her again, now with a display name
    client.identify(UserIdentity(userID: "alice", displayName: "Alice"))

    // Then the same store goes on: same epoch, same message, still connected, and the name is taken
    #expect(client.conversation("c1") === chat)
    let after = try #require(await chat.state { $0.identity?.displayName == "Alice" })
    #expect(after.epoch == before.epoch)
    #expect(after.draft == "Where is my ord")
    #expect(after.connection == .connected)
    #expect(client.identity?.displayName == "Alice")
    #expect(client.realtimeConnectionsOpened == 1, "no reconnect")
    await client.close()
  }

  @Test("identifying someone else still clears: a new epoch, the old conversation closed")
  func identifySomeoneElseClears() async throws {
    let harness = try await ClientHarness.start(identity: UserIdentity(userID: "alice"))
    let client = harness.client
    let chat = client.conversation("c1")
    let epoch = chat.state.epoch

    client.identify(UserIdentity(userID: "alice", workspaceID: "other-workspace"))

    let cleared = await chat.state { $0.epoch != epoch || $0.identity?.workspaceID == "other-workspace" }
    #expect(cleared?.epoch != epoch, "another workspace is another person's data")
    #expect(client.conversation("c1") !== chat)
    await client.close()
  }

  @Test(
    "the backend is told the outbox epoch when storage opens and when a sign-out raises it, not on a change of person")
  func backendToldTheEpoch() async throws {
    // Given Alice signed in, with storage
    let root = TemporaryRoot()
    let harness = try await ClientHarness.start(identity: UserIdentity(userID: "alice"), root: root.path)
    let client = harness.client
    #expect(harness.backend.toldOutboxEpochs == [1])

    // When Bob takes over without a sign-out, then signs out
    client.identify(UserIdentity(userID: "bob"))
    await client.settled()
    #expect(harness.backend.toldOutboxEpochs == [1], "a change of person keeps the epoch (MyBot's rule)")
    client.signOut()
    await client.settled()

    // Then only the sign-out raised it, and the backend was told
    #expect(harness.backend.toldOutboxEpochs == [1, 2])
    await client.close()
  }
}
