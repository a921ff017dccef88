import ConversationTesting
import Foundation
import Persistence
import Testing

@testable import ConversationStore

/// A conversation's header and its row in the sidebar show one title: a rename in the list (here or on
/// another device) reaches the open conversation, and a conversation renamed while closed opens with it.
@Suite("ChatClient keeps a conversation's title and its row's title one", .hangGuard)
struct ChatClientTitleTests {
  /// Conversation c1, listed and open on screen, which the server named "Parcel".
  static func openParcel(_ harness: ClientHarness) async throws -> ChatStore {
    harness.client.list.send(
      .realtime(.conversationCreated(ConversationSummary(id: "c1", title: "Parcel", lastActivityAt: .story(1)))))
    let chat = harness.client.conversation("c1")
    _ = try #require(await chat.state(where: { $0.connection == .connected }))
    harness.socket.yield(.event("c1", .titleChanged("Parcel")))
    _ = try #require(await chat.state(where: { $0.title == "Parcel" }))
    return chat
  }

  @Test("a conversation open on screen takes the title the user gives it in the sidebar, and another device's")
  func openConversationTakesTheRename() async throws {
    // Given a conversation the server named "Parcel", open on screen and listed
    let harness = try await ClientHarness.start(identity: UserIdentity(userID: "ana"))
    let client = harness.client
    let chat = try await Self.openParcel(harness)

    // When the user renames it in the sidebar
    client.list.send(.change("c1", .title("Lost parcel")))

    // Then the open conversation's header shows the new title
    #expect(await chat.state(where: { $0.title == "Lost parcel" }) != nil)

    // When the user renames it again on their phone (the backend kept the first rename on the device, so
    // nothing here waits to be sent)
    #expect(await waitUntil { client.list.state.edits.isEmpty })
    client.list.send(.realtime(.conversationChanged("c1", .title("Parcel to Lyon"))))

    // Then the header follows, and the row and the header agree
    #expect(await chat.state(where: { $0.title == "Parcel to Lyon" }) != nil)
    #expect(client.list.state.conversations["c1"]?.title == "Parcel to Lyon")
    await client.close()
  }

  @Test("a title the list made up from the first message stays the list's: the header keeps none")
  func madeUpTitleStaysInTheList() async throws {
    // Given a new conversation the server has not named, open on screen, listed without a title
    let harness = try await ClientHarness.start(identity: UserIdentity(userID: "ana"))
    let client = harness.client
    client.list.send(.realtime(.conversationCreated(ConversationSummary(id: "c1", lastActivityAt: .story(1)))))
    let chat = client.conversation("c1")
    _ = try #require(await chat.state(where: { $0.connection == .connected }))

    // When the user writes, and the list titles the row after the message
    chat.sendMessage("Where is my parcel?")
    #expect(await waitUntil { client.list.state.conversations["c1"]?.title == "Where is my parcel?" })
    await client.settled()

    // Then the conversation still has no title of its own (the server has not named it)
    #expect(chat.state.title == nil)
    await client.close()
  }

  @Test("a conversation renamed while it was closed opens with the user's title, not the one its file kept")
  func renamedWhileClosed() async throws {
    let root = TemporaryRoot()
    // Given a conversation the server named "Parcel", stored on the device, and the app closed
    do {
      let harness = try await ClientHarness.start(identity: UserIdentity(userID: "ana"), root: root.path)
      _ = try await Self.openParcel(harness)
      await harness.client.close()
    }

    // When, after a relaunch, the user renames it in the sidebar before opening it
    let harness = try await ClientHarness.start(identity: UserIdentity(userID: "ana"), root: root.path)
    let client = harness.client
    #expect(client.list.state.conversations["c1"]?.title == "Parcel")
    client.list.send(.change("c1", .title("Lost parcel")))
    #expect(await waitUntil { client.list.state.edits.isEmpty })
    let chat = client.conversation("c1")

    // Then it opens with the user's title
    let opened = await chat.state(where: { !$0.isRestoring && $0.title == "Lost parcel" })
    #expect(opened != nil, "the header shows \(String(describing: chat.state.title))")
    await client.close()
  }

  @Test("a conversation the server creates on the first message is listed with that message as its title")
  func newConversationTitledByFirstMessage() async throws {
    // Given a client on an agent that answers at once
    let backend = try ScriptedBackend(
      clock: SystemChatClock(), replies: ["It ships today.|<finish>", "Yes.|<finish>"], interval: 0)
    let client = ChatClient(backend: backend)

    // When the user starts a conversation and writes twice
    let chat = client.newConversation()
    chat.sendMessage("Where is my order 1042?")
    let first = try #require(await chat.state(where: { $0.messages.last?.reply == .completed }))
    let id = try #require(first.conversationID)
    chat.sendMessage("Can it come sooner?")
    _ = await chat.state(where: { $0.messages.count == 4 && $0.messages.last?.reply == .completed })
    await client.settled()

    // Then its row is titled after the first message, not the second, and previews the newest
    #expect(await waitUntil { client.list.state.conversations[id]?.lastMessagePreview == "Yes." })
    #expect(client.list.state.conversations[id]?.title == "Where is my order 1042?")
    await client.close()
  }
}
