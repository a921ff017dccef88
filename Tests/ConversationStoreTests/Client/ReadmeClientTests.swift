import ConversationStore
import ConversationTesting
import Foundation
import Testing

// The README's client example, compiled and run as a test; `readmeShowsIt` keeps the README's copy verbatim.
// README-CLIENT-BEGIN
/// The app's one client, made at launch and kept for the app's life.
func startChat(backend: any ChatBackend, dataFolder: String) throws -> ChatClient {
  let client = ChatClient(
    backend: backend,
    options: ChatClientOptions(workspace: "acme", storage: try ChatStorage(root: dataFolder)))
  client.list.send(.load(pageSize: 30))  // the list screen: rows move as messages come and go
  let chat = client.newConversation()  // the chat screen: the same store for every screen that asks
  chat.sendMessage("Where is my order?")  // restored after a relaunch; queued durably when offline
  return client
}
// README-CLIENT-END

@Suite("README client example", .hangGuard)
struct ReadmeClientTests {
  @Test("the README's client starts a conversation that shows in the list, and a guest's chat survives sign-up")
  func clientExampleRuns() async throws {
    let root = TemporaryRoot()
    let backend = try ScriptedBackend(
      clock: SystemChatClock(), replies: ["Your order |ships today.|<finish>"], interval: 0.01)

    let client = try startChat(backend: backend, dataFolder: root.path)

    let chat = client.newConversation()
    // 30 s, not the default 5: CI runs this beside the whole suite and 200 kills of the crash test, and a
    // scripted reply that streams and is stored on a real clock once took longer there.
    let answered = await chat.state(within: 30, where: { $0.messages.last?.text == "Your order ships today." })
    let conversationID = try #require(answered?.conversationID)
    #expect(await client.list.state(where: { $0.conversations[conversationID] != nil }) != nil)
    client.identify(UserIdentity(userID: "u-1042"), keepingGuestConversation: true)
    #expect(client.conversation(conversationID) === chat)
    await client.close()
  }

  @Test("the article shows the client example verbatim")
  func readmeShowsIt() throws {
    #expect(
      try ReadmeExcerpt(marker: "README-CLIENT", in: #filePath).isShown(
        in: "Sources/ConversationStore/ConversationStore.docc/GettingStarted.md"))
  }
}
