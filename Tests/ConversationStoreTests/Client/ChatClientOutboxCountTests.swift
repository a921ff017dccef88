import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

/// A banner on a screen with no conversation open ("3 changes waiting to be sent"), bound to the client's
/// snapshots: `ClientState.outboxCount` follows the durable outbox as it fills, drains, and changes person.
@Suite("ChatClient outbox count", .hangGuard)
struct ChatClientOutboxCountTests {
  /// The next state from `states` that `matches`, or nil if the stream ended first.
  static func next(
    _ states: inout AsyncStream<ClientState>.Iterator, where matches: (ClientState) -> Bool
  ) async -> ClientState? {
    while let state = await states.next() {
      if matches(state) { return state }
    }
    return nil
  }

  @Test("a banner watching the client counts what waits offline, and counts down as the server takes it")
  func bannerCountsDown() async throws {
    // Given a signed-in user with storage whose screen watches the client
    let root = TemporaryRoot()
    var harness = try await ChatClientOutboxTests.writtenOffline([], root: root)
    let client = harness.client
    var states = client.snapshots().makeAsyncIterator()
    #expect(await states.next()?.outboxCount == 0, "an empty outbox, counted")

    // When they write three messages offline
    let chat = client.conversation("c1")
    for text in ["one", "two", "three"] { chat.sendMessage(text) }

    // Then the banner says three wait (the first is already in a batch on its way: it counts until taken)
    #expect(await Self.next(&states, where: { $0.outboxCount == 3 }) != nil)

    // When the server takes the batches as they come
    var taken = 0
    while taken < 3 {
      let (batch, answer) = try await harness.nextBatch()
      taken += batch.operations.count
      answer.resume(returning: OutboxReceipt())
      // Then the banner counts down to what is left
      let left = 3 - taken
      #expect(await Self.next(&states, where: { $0.outboxCount == left }) != nil, "\(left) left")
    }
    #expect(client.state.outboxCount == 0)
    await client.close()
  }

  @Test("after a relaunch the banner says what still waits before anything is sent")
  func relaunchCounts() async throws {
    // Given two messages written offline, and the app killed before the server took them
    let root = TemporaryRoot()
    do {
      let harness = try await ChatClientOutboxTests.writtenOffline(["first", "second"], root: root)
      await harness.client.close()
    }

    // When the app starts again
    let harness = try await ClientHarness.start(identity: UserIdentity(userID: "u-1"), root: root.path)

    // Then its first state counts them, read from the outbox file as the client opened
    var states = harness.client.snapshots().makeAsyncIterator()
    #expect(await states.next()?.outboxCount == 2)
    await harness.client.close()
  }

  @Test("signing out ends the queue, and the banner shows the signed-out scope's empty outbox")
  func signOutEmpties() async throws {
    // Given a message waiting offline
    let root = TemporaryRoot()
    let harness = try await ChatClientOutboxTests.writtenOffline(["unsent"], root: root)
    let client = harness.client
    #expect(await waitUntil { client.state.outboxCount == 1 })

    // When the person signs out
    client.signOut()

    // Then nothing of theirs is counted as waiting
    #expect(await waitUntil { client.state.identity == nil && client.state.outboxCount == 0 })
    await client.close()
  }

  @Test("a client that keeps no storage has no outbox to count")
  func noStorageNoCount() async throws {
    let harness = try await ClientHarness.start(identity: UserIdentity(userID: "u-1"))
    await harness.client.settled()
    #expect(harness.client.state.outboxCount == nil)
    await harness.client.close()
  }
}
