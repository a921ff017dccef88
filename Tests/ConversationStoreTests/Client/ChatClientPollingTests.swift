import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

@Suite("ChatClient on a backend with no realtime channel", .hangGuard)
struct ChatClientPollingTests {
  @Test("no realtime connection is opened; an open conversation hears new messages by polling every interval")
  func pollsInsteadOfRealtime() async throws {
    // Given a client whose policy says the backend has no realtime channel, polling every 2 s
    let backend = ControlledBackend()
    var calls = backend.calls.makeAsyncIterator()
    let clock = TestClock()
    var policy = ChatPolicy(pollInterval: 2)
    policy.connectionMode = .polling
    let client = ChatClient(
      backend: backend, options: ChatClientOptions(workspace: "acme", policy: policy),
      environment: .deterministic(clock: clock))

    // When the user opens a conversation and its newest page loads
    let chat = client.conversation("c1")
    chat.send(.loadHistory(pageSize: 20))
    guard case .history("c1", nil, 20, let page) = await calls.next() else {
      Issue.record("the first call should be the history page: no realtime connection is opened")
      return await client.close()
    }
    page.resume(returning: HistoryPage(messages: [.server("Hello!", id: "s1", at: 1)], nextCursor: nil, hasMore: false))
    _ = await chat.state(where: { $0.messages.count == 1 })

    // And time passes until the conversation polls (the timer is armed on the client's worker, so time
    // moves in steps rather than at once; a connect that the worker performs after the page came catches
    // up at once instead, which asks the same). The worker settles first: time moved before it armed the
    // poll would pass the poll by.
    await client.settled()
    #expect(await clock.run(step: 0.5, limit: 30) { chat.state.requests.values.contains(.sync) })

    // Then the conversation asks what came after its newest message, and shows it
    guard case .messagesAfter("c1", "s1", let poll) = await calls.next() else {
      Issue.record("expected a poll after s1")
      return await client.close()
    }
    poll.resume(returning: [.server("An agent will be with you.", id: "s2", at: 2)])
    let heard = try #require(await chat.state(where: { $0.messages.count == 2 }))
    #expect(heard.messages.last?.text == "An agent will be with you.")
    #expect(heard.connection == .connected)

    // And the next poll asks after that one; nothing ever asked for a realtime connection
    await client.settled()
    #expect(await clock.run(step: 0.5, limit: 30) { chat.state.requests.values.contains(.sync) })
    guard case .messagesAfter("c1", "s2", let next) = await calls.next() else {
      Issue.record("expected the next poll after s2")
      return await client.close()
    }
    next.resume(returning: [])
    #expect(backend.realtimeStreams.opened == 0)
    #expect(client.state.connection == .idle)
    await client.close()
  }
}
