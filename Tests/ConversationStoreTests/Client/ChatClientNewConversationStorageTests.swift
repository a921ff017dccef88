import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

@Suite("ChatClient keeps a new conversation", .hangGuard)
struct ChatClientNewConversationStorageTests {
  @Test("a conversation started with newConversation() is stored and comes back after a relaunch", arguments: 0..<12)
  func newConversationSurvivesRelaunch(_ attempt: Int) async throws {
    // Given a client with storage and an agent that answers at once
    let root = TemporaryRoot()
    let storage = try ChatStorage(root: root.path)
    var id: ConversationID?
    do {
      let backend = try ScriptedBackend(
        clock: SystemChatClock(), replies: ["Your order ships today.|<finish>"], interval: 0)
      let client = ChatClient(backend: backend, options: ChatClientOptions(workspace: "acme", storage: storage))
      // When the user starts a conversation, asks, and the answer completes
      let chat = client.newConversation()
      chat.sendMessage("Where is my order?")
      let answered = await chat.state(where: { $0.messages.last?.reply == .completed })
      id = answered?.conversationID
      await client.settled()
      await client.close()
    }
    // Then a new client on the same folder lists it and shows the exchange
    let conversationID = try #require(id)
    let backend = try ScriptedBackend(clock: SystemChatClock(), replies: [])
    let client = ChatClient(backend: backend, options: ChatClientOptions(workspace: "acme", storage: storage))
    #expect(client.list.state.conversations[conversationID] != nil, "the list file names it")
    let chat = client.conversation(conversationID)
    let restored = await chat.state(where: { !$0.isRestoring })
    #expect(restored?.messages.map(\.text) == ["Where is my order?", "Your order ships today."])
    await client.close()
  }
}
