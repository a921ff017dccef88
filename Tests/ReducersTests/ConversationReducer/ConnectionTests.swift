import ConversationState
import Foundation
import Reducers
import Testing

@Suite("Connection and reconnect")
struct ConnectionTests {
  @Test("a first connect with nothing to catch up on goes straight to connected")
  func firstConnect() {
    let chat = Chat()
    let request = chat.nextRequestID
    #expect(chat.send(.connect) == [.cancelTimer(.reconnect), .connectRealtime(request, nil)])
    #expect(chat.state.connection == .connecting)
    #expect(chat.send(.connect) == [], "connecting twice asks nothing")
    chat.send(.connectionOpened(request))
    #expect(chat.state.connection == .connected)
  }

  @Test("after a reconnect the state is syncing until missed messages after the last confirmed one arrive")
  func reconnectSyncs() {
    let chat = Chat.existing([.server("before", id: "s1", at: 1)])
    let connection = chat.connected()
    let lost = chat.send(.connectionLost(connection, ChatError(.network, "reset"), at: time(10), jitter: 0.5))
    #expect(lost == [.startTimer(.reconnect, seconds: 0.5)])
    #expect(chat.state.connection == .reconnecting(attempt: 1, retryAt: time(10.5)))

    let connect = chat.nextRequestID
    #expect(chat.send(.timerFired(.reconnect, at: time(10.5))) == [.connectRealtime(connect, "conv-1")])
    #expect(chat.state.connection == .connecting)

    let sync = chat.nextRequestID
    #expect(
      chat.send(.connectionOpened(connect)) == [
        .startTimer(.connectionHealthy, seconds: 10), .fetchMessagesAfter(sync, "conv-1", after: "s1"),
      ])
    #expect(chat.state.connection == .syncing)

    chat.send(.syncLoaded(sync, [.server("missed", id: "s2", at: 5), .server("before", id: "s1", at: 1)]))
    #expect(chat.state.connection == .connected)
    #expect(chat.texts == ["before", "missed"])
  }

  @Test(
    "an authorization failure closes the connection and is never retried",
    arguments: [
      ChatError(.invalidIdentity, "bad token"), ChatError(.network, "denied", status: 401),
      ChatError(.network, "forbidden", status: 403),
    ])
  func authFailureNotRetried(_ error: ChatError) {
    let chat = Chat.existing()
    let connection = chat.connected()
    let effects = chat.send(.connectionLost(connection, error, at: time(0), jitter: 0.5))
    #expect(chat.state.connection == .closed)
    #expect(!effects.contains { if case .startTimer = $0 { true } else { false } })
    #expect(chat.state.backgroundError == error)
    #expect(chat.send(.timerFired(.reconnect, at: time(60))) == [])
  }

  @Test(
    "backoff doubles from 1 s to a 30 s cap, scaled by full jitter",
    arguments: [
      (1, 1.0, 1.0), (2, 1.0, 2.0), (3, 1.0, 4.0), (5, 1.0, 16.0), (6, 1.0, 30.0), (60, 1.0, 30.0),
      (3, 0.5, 2.0), (6, 0.0, 0.0), (1, 7.0, 1.0), (1, -1.0, 0.0),
    ])
  func backoffTable(_ attempt: Int, _ jitter: Double, _ seconds: Double) {
    #expect(ReconnectBackoff.delay(attempt: attempt, jitter: jitter) == seconds)
  }

  @Test("each failed reconnect attempt doubles the wait until the cap")
  func repeatedFailures() {
    let chat = Chat.existing()
    var connection = chat.connected()
    var waits: [Double] = []
    for attempt in 1...7 {
      let effects = chat.send(.connectionLost(connection, ChatError(.network, "down"), at: time(0), jitter: 1))
      if case .startTimer(.reconnect, let seconds) = effects.last { waits.append(seconds) }
      #expect(chat.state.connection == .reconnecting(attempt: attempt, retryAt: time(waits.last ?? 0)))
      connection = chat.nextRequestID
      chat.send(.timerFired(.reconnect, at: time(0)))
    }
    #expect(waits == [1, 2, 4, 8, 16, 30, 30])
  }

  @Test("a failed sync is tried again on a timer, still syncing")
  func syncFailureRetried() {
    let chat = Chat.existing([.server("x", id: "s1", at: 1)])
    let connect = chat.nextRequestID
    chat.send(.connect)
    let sync = chat.nextRequestID
    chat.send(.connectionOpened(connect))
    #expect(chat.send(.requestFailed(sync, ChatError(.timeout, "slow"))) == [.startTimer(.resync, seconds: 2)])
    #expect(chat.state.connection == .syncing)
    let again = chat.nextRequestID
    #expect(chat.send(.timerFired(.resync, at: time(2))) == [.fetchMessagesAfter(again, "conv-1", after: "s1")])
  }

  @Test("disconnect closes, cancels the reconnect timer and ignores a late open")
  func disconnect() {
    let chat = Chat.existing()
    let connect = chat.nextRequestID
    chat.send(.connect)
    let effects = chat.send(.disconnect)
    #expect(effects == [.cancel(connect), .cancelTimer(.reconnect)], "cancelling the connect request closes it")
    chat.send(.connectionOpened(connect))
    #expect(chat.state.connection == .closed)
    #expect(chat.send(.connectionLost(connect, ChatError(.network, "x"), at: time(0), jitter: 1)) == [])
  }
}
