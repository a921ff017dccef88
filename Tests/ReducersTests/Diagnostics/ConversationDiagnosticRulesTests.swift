import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// A conversation's reducer, stepped by hand, with the diagnostics each step derives as the client's
/// follower would from two snapshots.
struct DiagnosedConversation {
  static let handle = ConversationHandle(3)

  var state: ConversationState
  let reducer: ConversationReducer

  init(_ state: ConversationState, policy: ChatPolicy = ChatPolicy()) {
    self.state = state
    reducer = ConversationReducer(policy: policy)
  }

  /// Reduces `action` and returns the codes of the events seen from the state before to the one after.
  @discardableResult
  mutating func step(_ action: ConversationAction, at: Date = .story(0)) -> [ClientDiagnostic.Code] {
    let before = state
    _ = reducer.reduce(into: &state, action: action)
    return Self.codes(from: before, to: state, mode: reducer.policy.connectionMode, at: at)
  }

  static func codes(from old: ConversationState, to new: ConversationState, mode: ConnectionMode, at: Date)
    -> [ClientDiagnostic.Code]
  {
    let events = DiagnosticRules.events(of: handle, from: old, to: new, mode: mode, at: at)
    #expect(events.allSatisfy { $0.at == at })
    return events.map(\.code)
  }

  /// The request the next request effect will carry.
  var nextRequestID: RequestID { RequestID(epoch: state.epoch, sequence: state.requestSequence + 1) }
}

@Suite("Conversation diagnostics, derived from two states of a conversation")
struct ConversationDiagnosticRulesTests {
  static let h3 = DiagnosedConversation.handle
  static let network = ClientDiagnostic.Failure(kind: .network)

  /// A conversation with a confirmed message whose connection was lost: the next open catches up.
  static func reconnecting() -> DiagnosedConversation {
    var chat = DiagnosedConversation(.existing([.server("before", id: "s1", at: 1)]))
    let connection = chat.nextRequestID
    chat.step(.connect)
    chat.step(.connectionOpened(connection))
    chat.step(.connectionLost(connection, ChatError(.network, "reset"), at: .story(10), jitter: 0.5))
    return chat
  }

  /// Reconnected and syncing: returns the catch-up's request.
  static func syncing(_ chat: inout DiagnosedConversation) -> RequestID {
    let connection = chat.nextRequestID
    chat.step(.timerFired(.reconnect, at: .story(11)))
    let sync = RequestID(epoch: chat.state.epoch, sequence: connection.sequence + 1)
    chat.step(.connectionOpened(connection))
    return sync
  }

  @Test("a reconnect catches up: started when the connection opens, caught up when what was missed is in")
  func catchUp() {
    var chat = Self.reconnecting()
    let connection = chat.nextRequestID
    #expect(chat.step(.timerFired(.reconnect, at: .story(11))) == [], "connecting is the client's to report")
    let sync = RequestID(epoch: chat.state.epoch, sequence: connection.sequence + 1)
    #expect(chat.step(.connectionOpened(connection)) == [.catchUpStarted(conversation: Self.h3)])
    #expect(chat.step(.syncLoaded(sync, [.server("missed", id: "s2", at: 5)])) == [.caughtUp(conversation: Self.h3)])
  }

  @Test("a catch-up that stalls, fails, then fails for good counts its attempts and leaves a gap, once")
  func stalledThenGap() {
    // Given a conversation catching up
    var chat = Self.reconnecting()
    let sync = Self.syncing(&chat)

    // When the server says "more" and sends nothing newer
    #expect(
      chat.step(.syncLoaded(sync, [], hasMore: true, jitter: 0.5)) == [
        .catchUpStalled(conversation: Self.h3, attempt: 1, failure: .init(kind: .invalidResponse))
      ])

    // When the retry fails on the network, with a status
    let retry = chat.nextRequestID
    chat.step(.timerFired(.resync, at: .story(20)))
    let failed = chat.step(
      .requestFailed(retry, ChatError(.network, "reset", status: 502), at: .story(21), jitter: 0.5))
    #expect(
      failed == [.catchUpStalled(conversation: Self.h3, attempt: 2, failure: .init(kind: .network, httpStatus: 502))])

    // When the next fails for good
    let last = chat.nextRequestID
    chat.step(.timerFired(.resync, at: .story(30)))
    let given = chat.step(.requestFailed(last, ChatError(.conversationNotFound, "gone", status: 404), at: .story(31)))

    // Then the gap it leaves is reported once, with what ended it
    #expect(given == [.catchUpGapLeft(conversation: Self.h3, failure: .init(kind: .other, httpStatus: 404))])
    #expect(chat.state.hasMissedMessagesGap)
  }

  @Test("a later catch-up that completes closes the gap: caught up; one that gives up again leaves it again")
  func gapClosedOrLeftAgain() {
    var chat = DiagnosedConversation(.existing([.server("before", id: "s1", at: 1)]))
    chat.state.hasMissedMessagesGap = true
    let connection = chat.nextRequestID
    chat.step(.connect)
    let sync = RequestID(epoch: chat.state.epoch, sequence: connection.sequence + 1)
    #expect(chat.step(.connectionOpened(connection)) == [.catchUpStarted(conversation: Self.h3)])
    var gaveUp = chat
    #expect(chat.step(.syncLoaded(sync, [])) == [.caughtUp(conversation: Self.h3)])
    #expect(
      gaveUp.step(.requestFailed(sync, ChatError(.unsupported, "no catch-up"), at: .story(2))) == [
        .catchUpGapLeft(conversation: Self.h3, failure: .init(kind: .other))
      ])
  }

  @Test(
    "in polling mode each failed poll is reported with its attempt and the wait until the next",
    arguments: [(1, 1000), (2, 2000), (4, 8000)])
  func pollFailed(failures: Int, lastWaitMilliseconds: Int) {
    // Given a polling conversation (every second; the backoff doubles from 1 s, full jitter 1 here) that polled
    var policy = ChatPolicy(pollInterval: 1)
    policy.connectionMode = .polling
    var chat = DiagnosedConversation(.existing([.server("before", id: "s1", at: 1)]), policy: policy)
    let first = RequestID(epoch: chat.state.epoch, sequence: chat.state.requestSequence + 2)
    #expect(chat.step(.connect) == [.catchUpStarted(conversation: Self.h3)], "the first poll catches up")
    #expect(chat.step(.syncLoaded(first, [])) == [.caughtUp(conversation: Self.h3)])

    // When its polls fail on the network, one after another
    var reported: [ClientDiagnostic.Code] = []
    for failure in 1...failures {
      let poll = chat.nextRequestID
      chat.step(.timerFired(.poll, at: .story(Double(failure * 100))))
      let failedAt = Date.story(Double(failure * 100 + 1))
      reported += chat.step(.requestFailed(poll, ChatError(.network, "down"), at: failedAt, jitter: 1), at: failedAt)
    }

    // Then each is reported, counted, with the longer of the interval and the backoff as its wait
    #expect(reported.count == failures)
    #expect(
      reported.last
        == .pollFailed(
          conversation: Self.h3, attempt: failures, retryDelayMilliseconds: lastWaitMilliseconds, failure: Self.network)
    )
  }

  @Test("in realtime mode a conversation's own loss is no event: the client's connection reports it")
  func realtimeLossIsTheClients() {
    var chat = DiagnosedConversation(.existing([.server("before", id: "s1", at: 1)]))
    let connection = chat.nextRequestID
    chat.step(.connect)
    chat.step(.connectionOpened(connection))
    #expect(chat.step(.connectionLost(connection, ChatError(.network, "reset"), at: .story(10), jitter: 0.5)) == [])
  }

  @Test("what a restore brings was stored: a stored gap is not news")
  func restoredGap() {
    var stored = ConversationState.existing([.server("before", id: "s1", at: 1)])
    stored.hasMissedMessagesGap = true
    var restoring = ConversationState(conversationID: "conv-1")
    restoring.isRestoring = true
    var chat = DiagnosedConversation(restoring)
    #expect(chat.step(.restored(stored)) == [])
    #expect(chat.state.hasMissedMessagesGap)
  }

  @Test(
    "a store cleared mid catch-up drops it: neither caught up nor a gap",
    arguments: [
      ConversationAction.clear, .open("conv-2"), .identify(UserIdentity(userID: "someone-else")), .signOut,
    ])
  func clearedMidCatchUp(_ action: ConversationAction) {
    var chat = Self.reconnecting()
    _ = Self.syncing(&chat)
    #expect(chat.state.connection == .syncing)
    #expect(chat.step(action) == [])
  }

  @Test(
    "steps that change nothing of a catch-up are no events",
    arguments: [
      ConversationAction.setDraft("a draft"), .send(OutgoingMessage(clientID: "m1", text: "hi", createdAt: .story(1))),
      .realtime("conv-1", .messageCreated(.server("news", id: "s9", at: 9)), receivedAt: .story(9)), .clearError,
    ])
  func quietSteps(_ action: ConversationAction) {
    var chat = DiagnosedConversation(.existing([.server("before", id: "s1", at: 1)]))
    let connection = chat.nextRequestID
    chat.step(.connect)
    chat.step(.connectionOpened(connection))
    #expect(chat.step(action) == [])
  }
}
