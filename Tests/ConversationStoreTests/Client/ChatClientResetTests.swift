import ConversationTesting
import Foundation
import Persistence
import Testing

@testable import ConversationStore

/// `resetSession()`, as a support widget's "end chat" (DobroDesk's `resetSession()`) uses it: the person
/// discards what they have here and starts afresh, still signed in.
@Suite("ChatClient resets the session", .hangGuard)
struct ChatClientResetTests {
  @Test(
    "a reset discards the conversations, their files, search entries and queued work; the person, their approvals and the outbox's numbering stay"
  )
  func discardsAndStartsAfresh() async throws {
    // Given a signed-in person with a conversation on disk, a message written offline waiting in the
    // outbox, and a standing approval
    let root = TemporaryRoot()
    var harness = try await ClientHarness.start(identity: UserIdentity(userID: "ana"), root: root.path)
    let client = harness.client
    let chat = client.conversation("c1")
    _ = await chat.state(where: { $0.connection == .connected })
    harness.socket.yield(.event("c1", .messageCreated(.server("Your parcel is late", id: "s1", at: 1))))
    _ = await chat.state(where: { $0.messages.count == 1 })
    client.changeStandingApprovals(
      .granted(ApprovalGrant(toolName: "refund", grantedAt: Date(timeIntervalSince1970: 1))))
    #expect(await harness.drop(harness.socket, throwing: ChatError(.network, "tunnel")))
    // (the store hears of the drop after the client: a message written before would be sent, not queued)
    _ = try #require(await chat.state(where: { $0.connection.isOffline }))
    chat.sendMessage("Where is it now?")
    _ = try #require(await chat.state(where: { $0.messages.outgoing.first?.delivery == .queued }))
    await client.settled()
    let numbering = try #require(client.outboxSequencing)
    #expect(client.state.outboxCount == 1)

    // When the person ends the chat
    client.resetSession()
    await client.settled()

    // Then the store they held is cleared and closed, and asking again gives a fresh, empty conversation
    #expect(chat.isClosed && chat.state.messages.isEmpty)
    let again = client.conversation("c1")
    await client.settled()
    #expect(again.state.messages.isEmpty && !again.state.isRestoring)
    #expect(client.list.state.conversations.isEmpty)
    // And nothing of it is on disk: no search finds it, the outbox is empty
    let scope = try ChatStorage(root: root.path).scope(StorageScope(workspace: "acme", userID: "ana"))
    #expect(try scope.search("parcel", limit: 10).results.isEmpty)
    #expect(client.state.outboxCount == 0)
    // And they are still signed in, with their approvals, and the outbox numbers on in the same epoch
    #expect(client.identity?.userID == "ana")
    #expect(client.standingApprovals.map(\.toolName) == ["refund"])
    #expect(client.outboxSequencing?.epoch == numbering.epoch)
    // And the shared connection is opened again
    var reopened = false
    while let call = await harness.nextCall() {
      // (the upload begun before the reset may come first: it was cancelled, and its answer is not read)
      if case .realtime(nil, _) = call {
        reopened = true
        break
      }
    }
    #expect(reopened, "the connection was not opened again")
    await client.close()
  }
}
