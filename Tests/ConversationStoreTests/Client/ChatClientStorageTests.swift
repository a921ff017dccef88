import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

@Suite("ChatClient storage", .hangGuard)
struct ChatClientStorageTests {
  @Test("after a restart the conversation, its draft and the message written offline come back, and it goes out")
  func restartRestores() async throws {
    // Given a signed-in user whose connection dropped, with a draft and a message written meanwhile
    let root = TemporaryRoot()
    let user = UserIdentity(userID: "u-1042")
    do {
      let harness = try await ClientHarness.start(identity: user, root: root.path)
      let chat = harness.client.conversation("c1")
      _ = await chat.state(where: { $0.connection == .connected })
      harness.socket.yield(.event("c1", .messageCreated(.server("How can I help?", id: "s1", at: 1))))
      _ = await chat.state(where: { $0.messages.count == 1 })
      harness.socket.finish(throwing: ChatError(.network, "tunnel"))
      _ = await chat.state(where: { $0.connection.isOffline })
      chat.sendMessage("Written in the tunnel")
      chat.send(.setDraft("and one more th"))
      _ = await chat.state(where: { $0.draft == "and one more th" })

      // When the app is killed (the client goes, everything written)
      await harness.client.close()
    }

    // Then a new client on the same storage shows it all, and the waiting message goes out once connected
    var harness = try await ClientHarness.start(identity: user, root: root.path)
    let chat = harness.client.conversation("c1")
    await harness.client.settled()  // the stored copy is read on the client's worker
    #expect(chat.state.draft == "and one more th")
    #expect(chat.state.messages.map(\.text) == ["How can I help?", "Written in the tunnel"])
    #expect(chat.state.messages[1].delivery == .queued, "kept in the durable outbox")
    let (batch, answer) = try await harness.nextBatch()
    #expect(batch.operations.map(\.conversationID) == ["c1"])
    answer.resume(returning: OutboxReceipt())
    await harness.client.close()
  }

  @Test(
    "opening a stored conversation does not wait for the disk; what the user does meanwhile lands on top and is kept")
  func openDoesNotWaitForDisk() async throws {
    // Given a conversation stored by an earlier run
    let root = TemporaryRoot()
    let user = UserIdentity(userID: "u-1042")
    do {
      let harness = try await ClientHarness.start(identity: user, root: root.path)
      let chat = harness.client.conversation("c1")
      _ = await chat.state(where: { $0.connection == .connected })
      harness.socket.yield(.event("c1", .messageCreated(.server("How can I help?", id: "s1", at: 1))))
      _ = await chat.state(where: { $0.messages.count == 1 })
      await harness.client.close()
    }

    // When a new run opens it while the client's worker (where files are read) is still busy
    let harness = try await ClientHarness.start(identity: user, root: root.path)
    let gate = DispatchSemaphore(value: 0)
    harness.client.worker.async { gate.wait() }
    let chat = harness.client.conversation("c1")

    // Then the store is there at once, restoring, and takes what the user does
    #expect(chat.state.isRestoring)
    #expect(chat.state.messages.isEmpty)
    chat.send(.setDraft("typed at once"))
    #expect(chat.state.draft == "typed at once")

    // And once the file is read, the stored messages are there under the draft typed meanwhile
    gate.signal()
    await harness.client.settled()
    #expect(!chat.state.isRestoring)
    #expect(chat.state.messages.map(\.text) == ["How can I help?"])
    #expect(chat.state.draft == "typed at once")
    await harness.client.close()

    // And the file kept both: the empty state of the first moment was never written over it
    let again = try await ClientHarness.start(identity: user, root: root.path)
    let reopened = again.client.conversation("c1")
    await again.client.settled()
    #expect(reopened.state.messages.map(\.text) == ["How can I help?"])
    #expect(reopened.state.draft == "typed at once")
    await again.client.close()
  }

  @Test("after sign-out nothing of the user is visible, in the stores or in storage; signing in again brings it back")
  func signOutIsolates() async throws {
    // Given user A with a listed conversation that has a message, stored
    let root = TemporaryRoot()
    var harness = try await ClientHarness.start(identity: UserIdentity(userID: "alice"), root: root.path)
    let client = harness.client
    try await harness.loadList([.row("c1", at: 1)])
    let alices = client.conversation("c1")
    _ = await alices.state(where: { $0.connection == .connected })
    harness.socket.yield(.event("c1", .messageCreated(.server("Alice's secret order", id: "s1", at: 1))))
    _ = await alices.state(where: { $0.messages.count == 1 })

    // When A signs out
    client.signOut()
    await client.settled()

    // Then the store A's screen held is cleared and closed, and the anonymous user finds nothing of A
    #expect(alices.isClosed)
    #expect(alices.state.messages.isEmpty)
    #expect(client.identity == nil)
    #expect(client.conversation("c1").state.messages.isEmpty)
    #expect(client.list.state.conversations.isEmpty)

    // When B signs in, B finds nothing of A either
    client.identify(UserIdentity(userID: "bob"))
    await client.settled()
    #expect(client.conversation("c1").state.messages.isEmpty)

    // And nothing of A's list reached the other scopes' list files
    let storage = try ChatStorage(root: root.path)
    for other in [StorageScope(workspace: "acme"), StorageScope(workspace: "acme", userID: "bob")] {
      let list = try storage.scope(other).conversationList.load()
      #expect(list?.conversations[ConversationID("c1")] == nil, "\(other)")
    }

    // And when A signs in again, A's conversation is restored from A's scope
    client.identify(UserIdentity(userID: "alice"))
    let again = client.conversation("c1")
    await client.settled()
    #expect(again.state.messages.map(\.text) == ["Alice's secret order"])
    await client.close()
  }

  @Test("a guest who signs up keeps the conversation, which from then on is stored as the account's")
  func upgradeKeepsTheChat() async throws {
    // Given an anonymous user chatting
    let root = TemporaryRoot()
    let account = UserIdentity(userID: "new-account")
    do {
      let harness = try await ClientHarness.start(root: root.path)
      let chat = harness.client.conversation("c1")
      _ = await chat.state(where: { $0.connection == .connected })
      harness.socket.yield(.event("c1", .messageCreated(.server("Welcome!", id: "s1", at: 1))))
      _ = await chat.state(where: { $0.messages.count == 1 })

      // When they sign up keeping the conversation
      harness.client.identify(account, keepingGuestConversation: true)

      // Then the same store goes on, as the account, with its messages
      #expect(harness.client.conversation("c1") === chat)
      #expect(!chat.isClosed)
      _ = await chat.state(where: { $0.identity == account })
      #expect(chat.state.messages.map(\.text) == ["Welcome!"])
      chat.send(.setDraft("now as a member"))
      _ = await chat.state(where: { $0.draft == "now as a member" })
      await harness.client.close()
    }

    // And the account's storage has it after a restart
    let harness = try await ClientHarness.start(identity: account, root: root.path)
    let reopened = harness.client.conversation("c1")
    await harness.client.settled()
    let restored = reopened.state
    #expect(restored.messages.map(\.text) == ["Welcome!"])
    #expect(restored.draft == "now as a member")
    await harness.client.close()
  }

  @Test(
    "a guest who signs in keeps the chat by default; one who declines leaves nothing behind to reappear after a sign-out",
    arguments: [true, false])
  func guestSignsIn(declines: Bool) async throws {
    // Given a guest chatting, with storage
    let root = TemporaryRoot()
    let harness = try await ClientHarness.start(root: root.path)
    let client = harness.client
    let chat = client.conversation("c1")
    _ = await chat.state(where: { $0.connection == .connected })
    harness.socket.yield(.event("c1", .messageCreated(.server("Welcome, guest!", id: "s1", at: 1))))
    _ = await chat.state(where: { $0.messages.count == 1 })
    await client.settled()

    // When they sign in, with the default or declining to keep the chat
    let account = UserIdentity(userID: "ana")
    if declines {
      client.identify(account, keepingGuestConversation: false)
    } else {
      client.identify(account)
    }
    await client.settled()

    // Then by default the chat goes on as the account's; declined, it is closed and cleared
    #expect(chat.isClosed == declines)
    #expect(client.conversation("c1").state.messages.map(\.text) == (declines ? [] : ["Welcome, guest!"]))

    // And after a sign-out the anonymous user finds nothing of the guest, either way
    client.signOut()
    await client.settled()
    let anonymous = client.conversation("c1")
    await client.settled()
    #expect(anonymous.state.messages.isEmpty)
    #expect(client.list.state.conversations.isEmpty)
    await client.close()
  }
}
