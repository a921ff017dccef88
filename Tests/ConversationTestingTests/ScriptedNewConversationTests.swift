import ConversationState
import ConversationStore
import ConversationTesting
import Testing

/// Each conversation a send creates on the scripted backend has its own ID, numbered as they are created, so
/// a host that starts two sees two rows in its list.
@Suite("Scripted backend: new conversations", .hangGuard)
struct ScriptedNewConversationTests {
  @Test("two conversations a host starts through the client are two rows of its list, each with its own ID")
  func twoNewConversationsAreTwoRows() async throws {
    // Given a client on the scripted backend
    let clock = TestClock()
    let backend = try ScriptedBackend(
      clock: clock, replies: ["Order 1042 has shipped.", "Your refund is on its way."], interval: 0.1)
    let client = ChatClient(
      backend: backend, options: ChatClientOptions(workspace: "acme"), environment: .deterministic(clock: clock))

    // When the user starts a conversation, then another
    let first = client.newConversation()
    first.sendMessage("Where is order 1042?")
    #expect(await clock.run { first.state.messages.last?.reply == .completed })
    let second = client.newConversation()
    second.sendMessage("Where is my refund?")
    #expect(await clock.run { second.state.messages.last?.reply == .completed })

    // Then each has its own ID, numbered as they were created, and the list shows both
    #expect(first.state.conversationID == "conv-scripted-1")
    #expect(second.state.conversationID == "conv-scripted-2")
    #expect(await clock.run { client.list.state.shown.count == 2 })
    #expect(Set(client.list.state.shown.map(\.id)) == ["conv-scripted-1", "conv-scripted-2"])
    await client.close()
  }

  @Test("a send that fails creates no conversation: its retry creates the first")
  func failedSendCreatesNone() async throws {
    // Given a new conversation whose first send the server refuses
    let clock = TestClock()
    let backend = try ScriptedBackend(
      clock: clock, replies: ["<error 503 SERVICE_UNAVAILABLE>", "Order 1042 has shipped."], interval: 0.1)
    let store = ChatStore(backend: backend, environment: .deterministic(clock: clock))
    defer { store.close() }
    let clientID = store.sendMessage("Where is order 1042?")
    #expect(await clock.run { store.state.userError != nil && store.state.isSettled })
    #expect(store.state.conversationID == nil)

    // When the user retries it
    store.send(.retry(clientID))

    // Then the conversation it creates is the first
    #expect(await clock.run { store.state.messages.last?.reply == .completed })
    #expect(store.state.conversationID == "conv-scripted-1")
  }
}
