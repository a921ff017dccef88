import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

@Suite("Snapshots", .hangGuard)
struct SnapshotTests {
  static func store() -> Store<ConversationReducer> {
    Store(initialState: ConversationState(conversationID: "conv-1"), reducer: ConversationReducer())
  }

  @Test("the first snapshot is the current state; later ones carry what changed by message ID")
  func firstAndChanges() async {
    let store = Self.store()
    store.send(.setDraft("typed before subscribing"))
    var snapshots = store.snapshots().makeAsyncIterator()

    let first = await snapshots.next()
    #expect(first?.state.draft == "typed before subscribing")
    #expect(first?.version == 1)
    #expect(first?.changes.isReset == true)

    store.send(.realtime("conv-1", .messageCreated(.server("hello", id: "s1", at: 1))))
    let second = await snapshots.next()
    #expect(second?.version == 2)
    #expect(second?.changes == ChangeSet(inserted: ["srv-s1"]))
  }

  @Test("a slow subscriber gets the latest state once, with the union of what it missed, not a backlog")
  func slowSubscriberSkips() async {
    let store = Self.store()
    var fast = store.snapshots().makeAsyncIterator()
    var slow = store.snapshots().makeAsyncIterator()
    _ = await fast.next()
    _ = await slow.next()

    for index in 1...5_000 {
      store.send(.realtime("conv-1", .messageCreated(.server("m\(index)", id: "s\(index)", at: Double(index)))))
    }
    store.send(.realtime("conv-1", .messageDeleted("s1")))

    let caughtUp = await slow.next()
    #expect(caughtUp?.version == 5_001)
    #expect(caughtUp?.state.messages.count == 4_999)
    #expect(caughtUp?.changes.inserted.count == 4_999, "one change set for everything missed")
    #expect(caughtUp?.changes.removed.isEmpty == true, "s1 came and went between its snapshots")
    let fastSnapshot = await fast.next()
    #expect(fastSnapshot?.version == 5_001)
  }

  @Test("a subscriber behind when the store closes gets the state it closed with once, then the end")
  func closeDeliversTheFinalState() async {
    // Given a subscriber that has seen the first state, and a store that moved on
    let store = Self.store()
    var behind = store.snapshots().makeAsyncIterator()
    var current = store.snapshots().makeAsyncIterator()
    _ = await behind.next()
    _ = await current.next()
    store.send(.realtime("conv-1", .messageCreated(.server("last words", id: "s1", at: 1))))
    _ = await current.next()

    // When the store closes
    store.close()

    // Then the one behind gets the final state (a persister writes it), and both iterations end
    let last = await behind.next()
    #expect(last?.state.messages.last?.text == "last words")
    #expect(last?.changes == ChangeSet(inserted: ["srv-s1"]))
    #expect(await behind.next() == nil)
    #expect(await current.next() == nil, "one that had seen it gets nothing more")
  }

  @Test("a subscriber that begins after the store closed gets the state it closed with, once")
  func lateSubscriberGetsTheFinalState() async {
    // Given a store that changed and closed before anyone subscribed (a persister whose task started late)
    let store = Self.store()
    store.send(.setDraft("written just before the app quit"))
    store.close()

    // When a subscriber begins
    var late = store.snapshots().makeAsyncIterator()

    // Then it gets the final state, then the end
    #expect(await late.next()?.state.draft == "written just before the app quit")
    #expect(await late.next() == nil)
  }

  @Test("what a waiting subscriber holds does not grow with the actions it misses")
  func boundedMemory() async {
    let store = Self.store()
    var slow = store.snapshots().makeAsyncIterator()
    _ = await slow.next()
    // Heavy streaming while the subscriber waits: each delta would be a queued state in a buffered design.
    let request = RequestID(epoch: IdentityEpoch(), sequence: 1)
    var state = store.state
    state.requests[request] = .send("c1")
    state.streamingReply = StreamingReply(requestID: request, clientID: "r", startedAt: Date())
    let seeded = Store(initialState: state, reducer: ConversationReducer())
    var subscriber = seeded.snapshots().makeAsyncIterator()
    _ = await subscriber.next()
    for _ in 0..<20_000 { seeded.send(.replyDelta(request, "12345678")) }
    let latest = await subscriber.next()
    #expect(latest?.version == 20_000)
    #expect(latest?.state.streamingReply?.text.utf8Count == 160_000)
    #expect(latest?.changes == ChangeSet(updated: ["r"]))
  }

  #if os(Linux)
    /// Resident memory of this process, from /proc.
    static func residentBytes() -> Int {
      let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
      let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
      return pages * 4_096
    }

    #if CONVERSATION_STORE_TSAN
      static let isThreadSanitizerBuild = true
    #else
      static let isThreadSanitizerBuild = false
    #endif

    /// Memory is the whole process's, so this runs alone, in a process of its own (`.ci/run` sets
    /// `MEMORY_BOUND_TESTS=1` for that run), as `BoundedMemoryTests` does: beside the other suites their
    /// allocations were measured too (a ThreadSanitizer run of the whole suite read 243 MB).
    @Test(
      "a subscriber that misses 200,000 actions holds one state, not a backlog",
      .enabled(
        if: ProcessInfo.processInfo.environment["MEMORY_BOUND_TESTS"] == "1" && !isThreadSanitizerBuild,
        "measures the process's memory: run alone with MEMORY_BOUND_TESTS=1 (as .ci/run does)"))
    func memoryDoesNotGrowWithMissedActions() async {
      let store = Self.store()
      var slow = store.snapshots().makeAsyncIterator()
      _ = await slow.next()
      for index in 0..<1_000 { store.send(.setDraft(index.isMultiple(of: 2) ? "a" : "b")) }
      let before = Self.residentBytes()
      for index in 0..<200_000 { store.send(.setDraft(index.isMultiple(of: 2) ? "draft a" : "draft b")) }
      let after = Self.residentBytes()
      // A buffered stream would hold 200,000 states of ~400 bytes here (80 MB); the subscription holds one.
      #expect(before > 0)
      #expect(after - before < 16_000_000, "resident memory grew by \(after - before) bytes")
      let latest = await slow.next()
      #expect(latest?.version == 201_000)
    }
  #endif

  @Test("actions that change nothing wake no subscriber")
  func noOpActionsAreNotSnapshots() async {
    let store = Self.store()
    var snapshots = store.snapshots().makeAsyncIterator()
    _ = await snapshots.next()
    store.send(.clearError)
    store.send(.replyDelta(RequestID(epoch: IdentityEpoch(), sequence: 9), "stale"))
    store.send(.setDraft("real change"))
    let next = await snapshots.next()
    #expect(next?.version == 3)
    #expect(next?.state.draft == "real change")
  }

  @Test("ending an iteration or cancelling its task releases the subscriber")
  func subscribersReleased() async {
    let store = Self.store()
    do {
      for await _ in store.snapshots() { break }
    }
    #expect(store.subscriberCount == 0)

    let started = StateLock<Bool>(false)
    let task = Task {
      for await _ in store.snapshots() { started.withLock { $0 = true } }
    }
    while !started.withLock({ $0 }) { await Task.yield() }
    #expect(store.subscriberCount == 1)
    task.cancel()
    await task.value
    #expect(store.subscriberCount == 0)
  }

  @Test("actions sent from many tasks at once are all applied, each exactly once")
  func concurrentSenders() async {
    let store = Self.store()
    let consumer = Task {
      var last: UInt64 = 0
      for await snapshot in store.snapshots() {
        #expect(snapshot.version >= last, "versions never go backwards")
        last = snapshot.version
        if snapshot.state.messages.count == 800 { return }
      }
    }
    await withTaskGroup(of: Void.self) { group in
      for sender in 0..<8 {
        group.addTask {
          for index in 0..<100 {
            let id = sender * 100 + index
            store.send(.realtime("conv-1", .messageCreated(.server("m\(id)", id: "s\(id)", at: Double(id)))))
          }
        }
      }
    }
    await consumer.value
    #expect(store.state.messages.count == 800)
    #expect(store.version == 800)
    #expect(store.state.invariantViolations() == [])
  }

  @Test("two versions of a streamed reply: the held snapshot keeps its text while the store appends")
  func heldSnapshotIsStable() async {
    let request = RequestID(epoch: IdentityEpoch(), sequence: 1)
    var state = ConversationState(conversationID: "conv-1")
    state.requests[request] = .send("c1")
    state.streamingReply = StreamingReply(requestID: request, clientID: "r", startedAt: Date())
    let store = Store(initialState: state, reducer: ConversationReducer())
    store.send(.replyDelta(request, "Hel"))
    let held = store.state
    store.send(.replyDelta(request, "lo"))
    #expect(held.streamingReply?.text.string == "Hel")
    #expect(store.state.streamingReply?.text.string == "Hello")
  }
}
