import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// `snapshotStream()`: the snapshots as an `AsyncStream`, with the sequence's rules (current state first,
/// skip to the latest with the union of what changed, the final state at the close).
@Suite("Snapshots as an AsyncStream", .hangGuard)
struct SnapshotStreamTests {
  @Test("a stream gives the current state first, then the latest with what changed, and ends after the close")
  func streamFollowsTheStore() async {
    // Given a stream over a store with a draft
    let store = SnapshotTests.store()
    store.send(.setDraft("hi"))
    let stream: AsyncStream<Snapshot<ConversationState>> = store.snapshotStream()
    var frames = stream.makeAsyncIterator()
    let first = await frames.next()
    #expect(first?.state.draft == "hi")
    #expect(first?.changes.isReset == true)

    // When messages arrive faster than it reads, and the store closes
    for index in 1...500 {
      store.send(.realtime("conv-1", .messageCreated(.server("m\(index)", id: "s\(index)", at: Double(index)))))
    }
    let caughtUp = await frames.next()
    store.send(.realtime("conv-1", .messageCreated(.server("last", id: "s-last", at: 1_000))))
    store.close()

    // Then it skipped to the latest state with one change set, got the final state, and ended
    #expect(caughtUp?.version == 501)
    #expect(caughtUp?.changes.inserted.count == 500)
    let last = await frames.next()
    #expect(last?.state.messages.last?.text == "last")
    #expect(last?.changes == ChangeSet(inserted: ["srv-s-last"]))
    #expect(await frames.next() == nil)
  }

  @Test("cancelling the task that reads a stream ends it")
  func cancellationEnds() async {
    let store = SnapshotTests.store()
    defer { store.close() }
    let stream = store.snapshotStream()
    let reader = Task {
      var count = 0
      for await _ in stream { count += 1 }
      return count
    }
    try? await Task.sleep(for: .milliseconds(50))
    reader.cancel()
    store.send(.setDraft("wake"))
    #expect(await reader.value >= 1)
  }

  @Test("a second reader of the same stream at the same time gets nothing, and nothing traps")
  func secondReaderGetsNothing() async {
    let store = SnapshotTests.store()
    let stream = store.snapshotStream()
    var first = stream.makeAsyncIterator()
    _ = await first.next()
    // The first reader waits for a change; a second iteration of the same stream runs meanwhile
    let waiting = Task {
      var iterator = stream.makeAsyncIterator()
      return await iterator.next()
    }
    let second = Task {
      try? await Task.sleep(for: .milliseconds(50))
      var iterator = stream.makeAsyncIterator()
      return await iterator.next()
    }
    let secondGot = await second.value
    store.send(.setDraft("changed"))
    store.close()
    _ = await waiting.value
    // The reader that came second, while the first waited, got the end (the subscription is the first's)
    #expect(secondGot == nil)
  }

  @Test("a stream does not keep a dropped store alive: the store goes and the stream ends")
  func droppedStoreEndsTheStream() async {
    weak var dropped: Store<ConversationReducer>?
    let stream: AsyncStream<Snapshot<ConversationState>>
    do {
      let store = SnapshotTests.store()
      dropped = store
      stream = store.snapshotStream()
    }
    #expect(dropped == nil)
    var frames = stream.makeAsyncIterator()
    _ = await frames.next()  // the state it closed with
    #expect(await frames.next() == nil)
  }
}
