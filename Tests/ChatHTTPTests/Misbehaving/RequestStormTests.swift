import ChatHTTP
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Whatever the server answers, no loop of the client asks faster than its backoff allows. Every store here
/// has a jitter of 1, so each wait is its backoff's longest: 0.5 s, 1 s, then 2 s (`MisbehavingServer.policy`).
@Suite("A misbehaving server's answers never start a request storm", .hangGuard)
struct RequestStormTests {
  @Test("a catch-up that returns the same messages with has_more is a stalled sync, retried at the backoff's pace")
  func catchUpWithoutProgress() async throws {
    // Given a conversation both sides have, and a server whose catch-up always repeats it
    let server = try await MisbehavingServer.start()
    let store = try misbehavingStore(server, "catchup-same", state: sharedConversation)
    defer { store.close() }

    // When the store connects and catches up, for 5 s
    let start = ContinuousClock.now
    store.send(.connect)
    let stalled = await store.state(within: 30) { $0.backgroundError?.code == .syncStalled }
    try await Task.sleep(for: .seconds(5))
    let catchUps = try await server.log().count("catchup")

    // Then the stall is a typed error, and the catch-ups came no faster than the sync backoff allows
    #expect(stalled != nil)
    #expect(catchUps >= 1)
    #expect(catchUps <= Self.allowance(since: start, backoff: MisbehavingServer.policy.syncBackoff), "\(catchUps)")
    #expect(store.state.messages.count == 2, "nothing doubled")
  }

  @Test("a history cursor that repeats ends paging with INVALID_RESPONSE after one repeat")
  func repeatedHistoryCursor() async throws {
    let server = try await MisbehavingServer.start()
    var state = ConversationState()
    state.conversationID = "conv-1"
    let store = try misbehavingStore(server, "history-cursor-repeat", state: state)
    defer { store.close() }

    // When the user scrolls up as long as there is more, up to ten times
    store.send(.loadHistory(pageSize: 20))
    _ = await store.state(within: 30) { $0.history.hasLoadedFirstPage && !$0.history.isLoadingHistory }
    for _ in 0..<10 where store.state.history.hasMoreHistory {
      store.send(.loadMoreHistory(pageSize: 20))
      _ = await store.state(within: 30) { !$0.history.isLoadingHistory }
    }

    // Then the second page, which named the same cursor again, ended paging: two requests in all
    #expect(!store.state.history.hasMoreHistory)
    #expect(store.state.backgroundError?.code == .invalidResponse)
    #expect(try await server.log().count("history") == 2)
    #expect(store.state.messages.count == 2)
  }

  @Test(
    "a realtime stream that opens and closes at once is reconnected at the backoff's pace, not in a loop",
    arguments: ["realtime-flap", "realtime-flap-html"])
  func flappingRealtime(name: String) async throws {
    let server = try await MisbehavingServer.start()
    var state = ConversationState()
    state.conversationID = "conv-1"
    let store = try misbehavingStore(server, name, state: state)
    defer { store.close() }

    // When the store connects and the server drops it, again and again
    let start = ContinuousClock.now
    store.send(.connect)
    let third = await store.state(within: 30) { state in
      if case .reconnecting(let attempt, _) = state.connection { attempt >= 3 } else { false }
    }
    let attempts = try await server.log().count("events")

    // Then the backoff grows (opening a connection that delivers nothing proves nothing), and the server
    // saw no more connections than the waits allow
    #expect(third != nil, "a third failed attempt in a row: the backoff was not reset by opening")
    #expect(attempts <= Self.allowance(since: start), "\(attempts) connections")
    if name == "realtime-flap-html" {
      #expect(store.state.backgroundError?.code == .invalidResponse, "an HTML page is not an event stream")
    }
  }

  @Test("a ChatClient's shared connection backs off the same way when the stream opens and closes at once")
  func flappingClientConnection() async throws {
    let server = try await MisbehavingServer.start()
    var environment = StoreEnvironment.live
    environment.jitter = { 1 }
    let client = ChatClient(
      backend: try server.backend("realtime-flap"), options: ChatClientOptions(policy: MisbehavingServer.policy),
      environment: environment)

    let start = ContinuousClock.now
    // The first attempt, however loaded the machine (a sanitizer run beside a build took more than 5 s to
    // make it), then five seconds of flapping
    for _ in 0..<600 where try await server.log().count("events") == 0 {
      try await Task.sleep(for: .milliseconds(100))
    }
    try await Task.sleep(for: .seconds(5))
    await client.close()

    let attempts = try await server.log().count("events")
    #expect(attempts >= 1)
    #expect(attempts <= Self.allowance(since: start), "\(attempts) connections")
  }

  /// The most requests a loop on `MisbehavingServer.policy`'s backoff (0.5 s doubling to 2 s, jitter 1)
  /// can make since `start`: the first at once, then one after each wait that has passed. A slow machine
  /// only raises it; a loop that resets its backoff passes it within seconds.
  static func allowance(
    since start: ContinuousClock.Instant, backoff: Backoff = MisbehavingServer.policy.reconnectBackoff
  ) -> Int {
    let components = start.duration(to: .now).components
    let elapsed = Double(components.seconds) + Double(components.attoseconds) * 1e-18
    var requests = 1
    var waited = 0.0
    while true {
      waited += backoff.delay(attempt: requests, jitter: 1)
      guard waited <= elapsed else { return requests }
      requests += 1
    }
  }
}
