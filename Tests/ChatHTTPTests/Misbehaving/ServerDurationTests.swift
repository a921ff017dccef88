import ChatHTTP
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Durations that come from the server are clamped once, before any timer sees them.
@Suite("A misbehaving server's waits", .hangGuard)
struct ServerDurationTests {
  @Test(
    "a Retry-After of any value holds sends for 0…maximumRetryAfter, and the clock never traps on it",
    arguments: [
      ("retry-after-huge", 600.0), ("retry-after-digits", 600), ("retry-after-1e308", 600),
      ("retry-after-date-9999", 600), ("retry-after-negative", nil), ("retry-after-nan", nil),
      ("retry-after-garbage", nil),
    ] as [(String, Double?)])
  func retryAfter(name: String, held: Double?) async throws {
    // Given a server that answers every request with 429 and a Retry-After of this kind
    let server = try await MisbehavingServer.start()
    let store = try misbehavingStore(server, name)
    defer { store.close() }
    let before = Date()

    // When the user sends
    store.sendMessage("Hello?")
    let failed = await store.state(within: 30) { failure(in: $0) != nil }

    // Then the send fails RATE_LIMITED, and sends are held no longer than the policy allows
    let state = try #require(failed)
    let after = Date()
    #expect(failure(in: state)?.code == .rateLimited)
    if let held {
      let until = try #require(state.retryableAt, "a readable wait holds sends")
      #expect(until.timeIntervalSince(after) <= held + 1)
      #expect(until.timeIntervalSince(before) >= held - 1)
    } else {
      #expect(state.retryableAt == nil, "an unreadable or negative wait holds nothing")
    }
    // And the timer it armed is alive a while later (a wait a clock cannot take trapped a second after)
    try await Task.sleep(for: .seconds(1.5))
    #expect(store.state.messages.count == 1)
  }

  @Test("host settings that cannot work are refused when the backend is made, with a typed error")
  func refusedSettings() throws {
    for (requestTimeout, idleTimeout) in [(0.0, 60.0), (30, -1), (Double.nan, 60), (30, .infinity)] {
      #expect(throws: ChatError.self) {
        try HTTPChatBackend(
          baseURL: URL(string: "https://chat.example.com/v1")!, requestTimeout: requestTimeout,
          idleTimeout: idleTimeout
        ) { nil }
      }
    }
    var policy = ChatPolicy()
    policy.maximumEventBytes = 0
    do {
      _ = try HTTPChatBackend(baseURL: URL(string: "https://chat.example.com/v1")!, policy: policy) { nil }
      Issue.record("a zero event limit was taken")
    } catch {
      #expect(error.code == .invalidConfiguration)
      #expect(error.message.contains("maximumEventBytes"))
    }
  }
}
