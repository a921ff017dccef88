import ConversationTesting
import Foundation
import Persistence
import Testing

@testable import ConversationStore

/// A user deleting a conversation from their sidebar, with a `ChatClient` keeping storage: the row goes at
/// once, an undo within the window brings it back, and once the deletion is done nothing of the
/// conversation is left on the device.
@Suite("ChatClient deletes a conversation from the list", .hangGuard)
struct ChatClientListDeleteTests {
  /// A signed-in person with conversation c1 on disk (an answer stored and searchable, a message written
  /// offline waiting in the outbox) and c2 beside it, both listed.
  static func given(_ root: TemporaryRoot) async throws -> (ClientHarness, ChatStore) {
    let harness = try await ClientHarness.start(identity: UserIdentity(userID: "ana"), root: root.path)
    let client = harness.client
    client.list.send(
      .realtime(.conversationCreated(ConversationSummary(id: "c2", title: "Other", lastActivityAt: .story(1)))))
    client.list.send(
      .realtime(.conversationCreated(ConversationSummary(id: "c1", title: "Parcel", lastActivityAt: .story(2)))))
    let chat = client.conversation("c1")
    _ = await chat.state(where: { $0.connection == .connected })
    harness.socket.yield(.event("c1", .messageCreated(.server("Your parcel is late", id: "s1", at: 3))))
    _ = await chat.state(where: { $0.messages.count == 1 })
    #expect(await harness.drop(harness.socket, throwing: ChatError(.network, "tunnel")))
    _ = try #require(await chat.state(where: { $0.connection.isOffline }))
    chat.sendMessage("Where is it now?")
    _ = try #require(await chat.state(where: { $0.messages.outgoing.first?.delivery == .queued }))
    await client.settled()
    #expect(client.state.outboxCount == 1)
    // A second, still waiting: the first went into a batch as soon as it was stored
    chat.sendMessage("Hello?")
    _ = try #require(await chat.state(where: { $0.messages.outgoing.count == 2 }))
    await client.settled()
    #expect(client.state.outboxCount == 2)
    return (harness, chat)
  }

  static func scope(_ root: TemporaryRoot) throws -> ScopeDirectory {
    try ChatStorage(root: root.path).scope(StorageScope(workspace: "acme", userID: "ana"))
  }

  @Test("deleted, a conversation leaves nothing on the device: no file, no search entry, no queued work")
  func leavesNothing() async throws {
    let root = TemporaryRoot()
    let given = try await Self.given(root)
    var harness = given.0
    let chat = given.1
    let client = harness.client
    #expect(try Self.scope(root).search("parcel", limit: 10).results.count == 1)

    // When the user deletes it, and the undo window passes (the backend keeps no list: the deletion is
    // this device's)
    client.list.send(.delete("c1"))
    #expect(client.list.state.conversations.map(\.id) == ["c2"], "gone from the list at once")
    await client.settled()
    harness.clock.advance(by: ChatPolicy().deleteUndoWindow)
    #expect(await waitUntil { client.list.state.deleted.contains("c1") })
    #expect(await waitUntil { chat.isClosed })
    await client.settled()

    // Then the store is closed, and nothing of it is on disk or in the search
    #expect(try Self.scope(root).search("parcel", limit: 10).results.isEmpty)
    // And of its queued work only the batch already begun is left (it goes out unchanged, so its sequence
    // numbers hold); once the server has it, nothing is
    #expect(client.state.outboxCount == 1)
    while let call = await harness.calls.next() {
      guard case .uploadOutbox(_, let answer) = call else { continue }
      answer.resume(returning: OutboxReceipt())
      break
    }
    #expect(await waitUntil { client.state.outboxCount == 0 })
    let files = try FileManager.default.subpathsOfDirectory(atPath: root.path)
    #expect(!files.contains { $0.hasSuffix("c1.conv") }, "\(files)")
    // And asking for it again gives a fresh, empty conversation
    let again = client.conversation("c1")
    await client.settled()
    #expect(again.state.messages.isEmpty)
    // And the other conversation is untouched
    #expect(client.list.state.conversations.map(\.id) == ["c2"])
    await client.close()
  }

  @Test("undone within the window, nothing is deleted")
  func undoKeepsEverything() async throws {
    let root = TemporaryRoot()
    let (harness, chat) = try await Self.given(root)
    let client = harness.client

    client.list.send(.delete("c1"))
    client.list.send(.undoDelete("c1"))
    await client.settled()
    harness.clock.advance(by: ChatPolicy().deleteUndoWindow * 2)
    await client.settled()

    #expect(client.list.state.conversations.map(\.id) == ["c1", "c2"])
    #expect(!chat.isClosed)
    #expect(try Self.scope(root).search("parcel", limit: 10).results.count == 1)
    #expect(client.state.outboxCount == 2)
    await client.close()
  }

  @Test("a pending change and deletion survive a relaunch and go out then")
  func survivesRelaunch() async throws {
    let root = TemporaryRoot()
    do {
      let harness = try await ClientHarness.start(identity: UserIdentity(userID: "ana"), root: root.path)
      let client = harness.client
      client.list.send(
        .realtime(.conversationCreated(ConversationSummary(id: "c1", title: "Parcel", lastActivityAt: .story(2)))))
      client.list.send(
        .realtime(.conversationCreated(ConversationSummary(id: "c2", title: "Other", lastActivityAt: .story(1)))))
      client.list.send(.change("c1", .title("Lost parcel")))
      client.list.send(.delete("c2"))
      await client.close()
    }
    // The relaunched client's list shows both at once, and sends them (the backend keeps no list: they
    // are done on this device)
    let harness = try await ClientHarness.start(identity: UserIdentity(userID: "ana"), root: root.path)
    let list = harness.client.list
    #expect(list.state.conversations.map(\.title) == ["Lost parcel"])
    #expect(await waitUntil { list.state.edits.isEmpty && list.state.deleting.isEmpty })
    #expect(list.state.deleted == ["c2"])
    await harness.client.close()
  }
}
