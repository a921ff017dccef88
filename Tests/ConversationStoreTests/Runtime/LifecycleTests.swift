import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Defect 2 of the runtime: a store has a lifecycle. `close()`, or dropping the last reference, stops
/// everything it started.
@Suite("Store lifecycle")
struct LifecycleTests {
  @Test("close cancels the connection and requests, ends snapshot iterations and refuses later actions")
  func close() async {
    let backend = LedgerBackend()
    let store = ChatStore(
      .existing([.server("Hi", id: "s1", at: 1)]), backend: backend, environment: .deterministic())
    store.send(.connect)
    store.send(.loadMoreHistory(pageSize: 10))
    store.sendMessage("pending reply")
    #expect(await backend.eventually { backend.liveRealtime == 1 && backend.liveHistory == 1 })

    let ended = Task {
      var count = 0
      for await _ in store.snapshots() { count += 1 }
      return count
    }
    #expect(await backend.eventually { store.subscriberCount == 1 })

    store.close()
    #expect(await ended.value >= 1, "the iteration ended instead of waiting forever")
    #expect(await backend.eventually { backend.live.isEmpty }, "still live after close: \(backend.live)")
    let version = store.version
    #expect(store.send(.setDraft("after close")) == false)
    #expect(store.version == version && store.state.draft != "after close")
    var late = store.snapshots().makeAsyncIterator()
    #expect(await late.next()?.version == version, "a subscription after close gets the final state once…")
    #expect(await late.next() == nil, "…then ends")
    let callsAtClose = backend.calls.count
    store.send(.connect)
    #expect(backend.calls.count == callsAtClose)
  }

  @Test("a store dropped while connected closes its connection and is freed")
  func droppedStore() async {
    let backend = LedgerBackend()
    weak var dropped: ChatStore?
    do {
      let store = ChatStore(ConversationState(conversationID: "c1"), backend: backend, environment: .deterministic())
      dropped = store
      store.send(.connect)
      #expect(await backend.eventually { store.state.connection == .connected })
    }
    #expect(await backend.eventually { dropped == nil }, "nothing the runtime runs keeps the store alive")
    #expect(await backend.eventually { backend.liveRealtime == 0 }, "the socket closed with the store")
  }

  @Test("a store dropped while reconnecting to a dead server stops retrying")
  func droppedWhileReconnecting() async {
    let backend = LedgerBackend()
    let clock = TestClock()
    weak var dropped: ChatStore?
    do {
      let store = ChatStore(
        ConversationState(conversationID: "c1"), backend: backend,
        environment: .deterministic(clock: clock, jitter: 1))
      dropped = store
      store.send(.connect)
      #expect(await backend.eventually { backend.liveRealtime == 1 })
      for work in backend.live { backend.finish(work, with: ChatError(.network, "server down")) }
      #expect(await backend.eventually { if case .reconnecting = store.state.connection { true } else { false } })
    }
    #expect(await backend.eventually { dropped == nil })
    let calls = backend.calls.count
    clock.advance(by: 120)
    #expect(clock.pendingCount == 0, "the reconnect timer was cancelled with the store")
    #expect(backend.calls.count == calls, "no reconnect attempt after the store was dropped")
  }

  @Test("a snapshot iteration does not keep a dropped store alive, and ends when it goes")
  func subscriberDoesNotRetain() async {
    let backend = LedgerBackend()
    weak var dropped: ChatStore?
    let iteration: Task<Int, Never>
    do {
      let store = ChatStore(ConversationState(conversationID: "c1"), backend: backend, environment: .deterministic())
      dropped = store
      let snapshots = store.snapshots()
      iteration = Task {
        var count = 0
        for await _ in snapshots { count += 1 }
        return count
      }
      #expect(await backend.eventually { store.subscriberCount == 1 })
    }
    #expect(await backend.eventually { dropped == nil })
    #expect(await iteration.value == 1)
  }

  @Test("the list store has the same lifecycle")
  func listStoreClose() async {
    let backend = ControlledBackend()
    let store = ConversationListStore(backend: backend, environment: .deterministic())
    var calls = backend.calls.makeAsyncIterator()
    store.send(.load(pageSize: 20))
    guard case .conversations(_, _, let pending) = await calls.next() else {
      Issue.record("expected a page request")
      return
    }
    store.close()
    pending.resume(returning: ConversationPage(conversations: [], nextCursor: nil, hasMore: false))
    #expect(store.send(.refresh) == false)
    #expect(store.state.isLoading, "a result after close is dropped; the closed store keeps its last state")
  }
}
