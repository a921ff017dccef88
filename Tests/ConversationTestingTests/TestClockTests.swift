import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

@Suite("TestClock", .hangGuard)
struct TestClockTests {
  @Test("advancing fires due timers earliest first, with now() at each deadline; cancelled ones stay silent")
  func firesInOrder() {
    let clock = TestClock(start: Date(timeIntervalSince1970: 0))
    let fired = StateLock<[(String, Double)]>([])
    for (name, seconds) in [("c", 3.0), ("a", 1.0), ("b", 2.0), ("late", 9.0)] {
      _ = clock.schedule(after: seconds) { fired.withLock { $0.append((name, clock.now().timeIntervalSince1970)) } }
    }
    let cancelled = clock.schedule(after: 1.5) { fired.withLock { $0.append(("cancelled", 0)) } }
    cancelled.cancel()

    clock.advance(by: 5)

    #expect(fired.withLock { $0.map(\.0) } == ["a", "b", "c"])
    #expect(fired.withLock { $0.map(\.1) } == [1, 2, 3])
    #expect(clock.now() == Date(timeIntervalSince1970: 5))
    #expect(clock.pendingCount == 1)
  }

  @Test("timers with the same deadline fire in the order they were scheduled")
  func ties() {
    let clock = TestClock()
    let fired = StateLock<[Int]>([])
    for index in 0..<5 { _ = clock.schedule(after: 1) { fired.withLock { $0.append(index) } } }
    clock.advance(by: 1)
    #expect(fired.withLock { $0 } == [0, 1, 2, 3, 4])
  }

  @Test("through a real store: typing indicators expire exactly when virtual time reaches them")
  func typingExpiryThroughStore() async {
    let clock = TestClock()
    let backend = ControlledBackend()
    let store = ChatStore(
      ConversationState(conversationID: "c1"), backend: backend, environment: .deterministic(clock: clock))
    store.send(.realtime("c1", .typingStarted("ana", at: clock.now())))
    clock.advance(by: 2)
    store.send(.realtime("c1", .typingStarted("bo", at: clock.now())))
    clock.advance(by: 3.9)
    #expect(Set(store.state.typing.keys) == ["ana", "bo"])
    clock.advance(by: 0.1)
    #expect(Set(store.state.typing.keys) == ["bo"], "ana's 6 s are up; the timer fired synchronously")
    clock.advance(by: 2)
    #expect(store.state.typing.isEmpty)
  }

  @Test("a sleeping task wakes when its time comes, and a cancelled sleep throws")
  func sleeping() async throws {
    let clock = TestClock()
    let woke = StateLock<Bool>(false)
    let sleeper = Task {
      try await clock.sleep(seconds: 10)
      woke.withLock { $0 = true }
    }
    while clock.pendingCount == 0 { await Task.yield() }
    clock.advance(by: 9)
    #expect(!woke.withLock { $0 })
    clock.advance(by: 1)
    try await sleeper.value
    #expect(woke.withLock { $0 })

    let cancelled = Task { try await clock.sleep(seconds: 10) }
    while clock.pendingCount == 0 { await Task.yield() }
    cancelled.cancel()
    await #expect(throws: CancellationError.self) { try await cancelled.value }
    #expect(clock.pendingCount == 0)
  }
}
