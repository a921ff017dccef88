import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// A backend with no realtime channel at all (`ConnectionMode.polling`): the conversation polls from the
/// first connect, by the catch-up's rules, and its connection state reads as a realtime one's would.
@Suite("Polling as a mode")
struct PollingModeTests {
  /// A policy that polls every second, backing off 1 s doubling to 30 s.
  static let polling = ChatPolicy(pollInterval: 1, connectionMode: .polling)

  private static func isFetch(_ effect: ConversationEffect) -> Bool {
    if case .fetchMessagesAfter = effect { true } else { false }
  }

  /// Connects, and returns the request of the first poll it asked for.
  private static func connect(_ chat: Chat) -> RequestID? {
    for case .fetchMessagesAfter(let request, _, _) in chat.send(.connect) { return request }
    return nil
  }

  @Test("the first connect polls at once, opens no realtime connection, then polls every interval")
  func pollsFromTheFirstConnect() throws {
    // Given a conversation the user has read up to s1, on a backend that has no realtime channel
    let chat = Chat(.existing([.server("Hello!", id: "s1", at: 1)]), policy: Self.polling)

    // When the host connects
    let connected = chat.send(.connect)

    // Then what came since s1 is asked for now, as a catch-up, and no realtime connection is opened
    let first = try #require(
      connected.lazy.compactMap { if case .fetchMessagesAfter(let id, "conv-1", "s1") = $0 { id } else { nil } }.first)
    #expect(!connected.contains { if case .connectRealtime = $0 { true } else { false } })
    #expect(chat.state.connection == .syncing)

    // When it is answered, the conversation is connected and the next poll is armed
    let answered = chat.send(.syncLoaded(first, [.server("An agent will be with you.", id: "s2", at: 2)]))
    #expect(chat.state.connection == .connected)
    #expect(answered.contains(.startTimer(.poll, seconds: 1)))
    #expect(chat.texts == ["Hello!", "An agent will be with you."])

    // And each poll asks after the newest, pages while the server has more, and arms the next one
    let second = chat.nextRequestID
    #expect(chat.send(.timerFired(.poll, at: time(3))) == [.fetchMessagesAfter(second, "conv-1", after: "s2")])
    let third = chat.nextRequestID
    let more = chat.send(.syncLoaded(second, [.server("Hi, I'm Ana.", id: "s3", at: 3)], hasMore: true))
    #expect(more == [.fetchMessagesAfter(third, "conv-1", after: "s3")], "more follows at once, not next poll")
    let done = chat.send(.syncLoaded(third, [.server("How can I help?", id: "s4", at: 4)]))
    #expect(done.contains(.startTimer(.poll, seconds: 1)))
    #expect(chat.texts.suffix(2) == ["Hi, I'm Ana.", "How can I help?"])
    #expect(chat.state.connection == .connected)
  }

  @Test(
    "a failed poll shows the connection reconnecting and waits the longer of the interval and the backoff",
    arguments: [(1, 1.0), (2, 2.0), (4, 8.0), (7, 30.0)])
  func failedPollsBackOff(failures: Int, lastWait: Double) throws {
    // Given a polling conversation that is connected
    let chat = Chat(.existing([.server("Hello!", id: "s1", at: 1)]), policy: Self.polling)
    let first = try #require(Self.connect(chat))
    chat.send(.syncLoaded(first, []))

    // When polls fail `failures` times in a row (full jitter at its largest: the backoff's own delay)
    var waits: [Double] = []
    for failure in 1...failures {
      let poll = chat.nextRequestID
      chat.send(.timerFired(.poll, at: time(Double(failure) * 100)))
      let effects = chat.send(
        .requestFailed(poll, ChatError(.network, "offline"), at: time(Double(failure) * 100), jitter: 1))
      for case .startTimer(.poll, let seconds) in effects { waits.append(seconds) }
    }

    // Then each waits no less than the interval and backs off to the cap, and the state says so
    #expect(waits.count == failures)
    #expect(waits.last == lastWait)
    #expect(waits.allSatisfy { $0 >= 1 })
    guard case .reconnecting(let attempt, _) = chat.state.connection else {
      Issue.record("expected reconnecting, got \(chat.state.connection)")
      return
    }
    #expect(attempt == failures)

    // When the next poll is answered, it is connected again and polls at the interval
    let poll = chat.nextRequestID
    chat.send(.timerFired(.poll, at: time(1_000)))
    let back = chat.send(.syncLoaded(poll, []))
    #expect(chat.state.connection == .connected)
    #expect(back.contains(.startTimer(.poll, seconds: 1)))
  }

  @Test("a poll that cannot succeed leaves the gap visible, and polling goes on")
  func permanentFailureLeavesGap() throws {
    let chat = Chat(.existing([.server("Hello!", id: "s1", at: 1)]), policy: Self.polling)
    let first = try #require(Self.connect(chat))

    // When the first poll is refused in a way asking again cannot fix
    let refusal = ChatError("HTTP_400", "bad request", status: 400)
    #expect(!refusal.retryable)
    let effects = chat.send(.requestFailed(first, refusal, at: time(1)))

    // Then what was missed shows as a gap, the server counts as reachable, and the next poll is armed
    #expect(chat.state.hasMissedMessagesGap)
    #expect(chat.state.connection == .connected)
    #expect(effects.contains(.startTimer(.poll, seconds: 1)))

    // And a later poll that succeeds closes the gap
    let poll = chat.nextRequestID
    chat.send(.timerFired(.poll, at: time(2)))
    chat.send(.syncLoaded(poll, [.server("Still here", id: "s2", at: 2)]))
    #expect(!chat.state.hasMissedMessagesGap)
  }

  @Test("a conversation the first send creates is polled from then on")
  func newConversationPolled() {
    // Given a new conversation on a polling backend, connected before it exists
    let chat = Chat(ConversationState(), policy: Self.polling)
    #expect(!chat.send(.connect).contains(where: Self.isFetch))
    #expect(chat.state.connection == .connected)

    // When the first send creates it
    let send = chat.userSends("Hi", id: "c1")
    let accepted = chat.send(
      .sendAccepted(send, confirmed: .confirmed("Hi", clientID: "c1", serverID: "s1", at: 1), conversationID: "conv-9"))

    // Then polling starts, after the user's own message
    #expect(accepted.contains(.startTimer(.poll, seconds: 1)))
    let poll = chat.nextRequestID
    #expect(chat.send(.timerFired(.poll, at: time(2))) == [.fetchMessagesAfter(poll, "conv-9", after: "s1")])
  }

  @Test("nothing is polled before the first history page: messages after none would be the whole history")
  func waitsForFirstPage() {
    let chat = Chat(ConversationState(conversationID: "conv-1"), policy: Self.polling)
    chat.send(.connect)
    #expect(chat.state.connection == .connected)

    #expect(chat.send(.timerFired(.poll, at: time(1))) == [.startTimer(.poll, seconds: 1)], "waits, asks nothing")

    let page = chat.nextRequestID
    chat.send(.loadHistory(pageSize: 20))
    chat.send(.historyLoaded(page, HistoryPage(messages: [], nextCursor: nil, hasMore: false)))
    let poll = chat.nextRequestID
    #expect(chat.send(.timerFired(.poll, at: time(2))) == [.fetchMessagesAfter(poll, "conv-1", after: nil)])
  }

  @Test("disconnect stops polling; an authorization failure closes it until a fresh credential resumes it")
  func stopsAndResumes() throws {
    // Given a polling conversation, connected
    let chat = Chat(.existing([.server("Hello!", id: "s1", at: 1)]), policy: Self.polling)
    let first = try #require(Self.connect(chat))
    chat.send(.syncLoaded(first, []))

    // When the host disconnects, polling stops, and a timer that fires late asks nothing
    #expect(chat.send(.disconnect).contains(.cancelTimer(.poll)))
    #expect(chat.state.connection == .closed)
    #expect(chat.send(.timerFired(.poll, at: time(5))) == [])

    // When it connects again and a poll is refused for its credential
    let again = try #require(Self.connect(chat))
    let refused = chat.send(.requestFailed(again, ChatError(.unauthorized, "expired", status: 401), at: time(6)))

    // Then polling stops and the host's provider is asked, once
    #expect(chat.state.connection == .closed)
    #expect(refused.contains { if case .refreshCredentials = $0 { true } else { false } })
    #expect(refused.last != .startTimer(.poll, seconds: 1))

    // When a fresh credential arrives, polling resumes with a catch-up
    #expect(chat.send(.credentialsRefreshed).contains(where: Self.isFetch))
    #expect(chat.state.connection == .syncing)
  }

  @Test("realtime mode polls only while the connection is down and wanted: not after a disconnect")
  func fallbackOnlyWhileReconnecting() {
    let chat = Chat(.existing([.server("before", id: "s1", at: 1)]), policy: ChatPolicy(pollInterval: 1))
    chat.connected()

    #expect(chat.send(.disconnect).contains(.cancelTimer(.poll)))

    #expect(chat.send(.timerFired(.poll, at: time(1))) == [], "closed on purpose: nothing is polled")
  }
}
