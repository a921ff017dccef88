import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// The client's storage window and the agent's context, together: a conversation reopens with the window
/// the host chose, and a request that needs more than it holds reads the rest from disk.
@Suite("A client's storage window and the agent's context", .hangGuard)
struct AgentContextClientTests {
  @Test("reopened with a window of 5, the conversation holds 5; a request under newest(10) still carries 10")
  func windowAndContext() async throws {
    let root = TemporaryRoot()
    // Given a conversation of 20 stored messages (10 exchanges)
    let first = ChatClient(
      backend: RecordingAgent(), options: ChatClientOptions(storage: try ChatStorage(root: root.path)))
    let chat = first.newConversation()
    for turn in 1...10 {
      chat.sendMessage("question \(turn)")
      _ = await chat.state(where: { $0.messages.count == turn * 2 && $0.messages.last?.reply == .completed })
    }
    let id = try #require(chat.state.conversationID)
    await first.close()

    // When the app relaunches with a window of 5 and asks again under a 10-message context
    let agent = RecordingAgent(.newest(10))
    let second = ChatClient(
      backend: agent, options: ChatClientOptions(storage: try ChatStorage(root: root.path), storageWindow: 5))
    let reopened = second.conversation(id)
    let restored = try #require(await reopened.state(where: { !$0.isRestoring }))
    #expect(restored.messages.count == 5)
    #expect(restored.history.hasStoredHistory)
    reopened.sendMessage("question 11")
    _ = await reopened.state(where: { $0.messages.last?.reply == .completed && $0.messages.count == 7 })

    // Then the agent got the newest 10 stored messages, 5 of them read from disk, oldest first
    let context = try #require(agent.requests.first?.context)
    #expect(context.messages.count == 10)
    #expect(context.messages.first?.text == "question 6")
    #expect(context.messages.last?.text == "ok")
    await second.close()
  }
}
