import ConversationStore
import ConversationTesting
import Foundation
import Testing

private func page(_ ids: ClosedRange<Int>, cursor: String?, hasMore: Bool) -> ConversationPage {
  ConversationPage(
    conversations: ids.map {
      ConversationSummary(
        id: ConversationID("c\($0)"), title: "Conversation \($0)", lastActivityAt: .story(Double(-$0)))
    },
    nextCursor: cursor.map(PageCursor.init), hasMore: hasMore)
}

@Suite("Conversation list store", .hangGuard)
struct ConversationListStoreTests {
  @Test("paging through a real store and a backend")
  func pagingThroughStore() async {
    let backend = ControlledBackend()
    let store = ConversationListStore(backend: backend, environment: .deterministic())
    var calls = backend.calls.makeAsyncIterator()

    store.send(.load(pageSize: 2))
    guard case .conversations(nil, 2, let first) = await calls.next() else { return }
    first.resume(returning: page(1...2, cursor: "p2", hasMore: true))
    _ = await store.state { $0.conversations.count == 2 }

    store.send(.loadMore(pageSize: 2))
    guard case .conversations("p2", 2, let second) = await calls.next() else { return }
    second.resume(throwing: ChatError(.network, "offline"))
    let failed = await store.state { $0.error != nil }
    #expect(failed?.conversations.count == 2)
    #expect(failed?.error?.code == .network)
  }
}
