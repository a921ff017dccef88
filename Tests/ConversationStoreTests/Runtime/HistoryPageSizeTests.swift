import ConversationStore
import ConversationTesting
import Foundation
import Testing

@Suite("Runtime: a history page larger than asked for")
struct HistoryPageSizeTests {
  @Test("a page with more messages than the page size is refused with INVALID_RESPONSE, and nothing of it is merged")
  func oversizedPage() async throws {
    // Given a conversation and a backend that ignores the page size
    let backend = ControlledBackend()
    let store = ChatStore(ConversationState(conversationID: "c1"), backend: backend, environment: .deterministic())
    defer { store.close() }
    var calls = backend.calls.makeAsyncIterator()

    // When the user loads a page of 2 and the server sends 3
    store.send(.loadHistory(pageSize: 2))
    guard case .history(_, _, let limit, let answer) = await calls.next() else {
      Issue.record("no history request")
      return
    }
    #expect(limit == 2)
    answer.resume(
      returning: HistoryPage(
        messages: [.server("a", id: "s1", at: 1), .server("b", id: "s2", at: 2), .server("c", id: "s3", at: 3)],
        nextCursor: "p2", hasMore: true))

    // Then the load fails with a typed error and the conversation holds none of the page
    let failed = await store.state { $0.userError != nil }
    #expect(failed?.userError?.code == .invalidResponse)
    #expect(failed?.messages.isEmpty == true)
    #expect(failed?.history.isLoadingHistory == false)
  }
}
