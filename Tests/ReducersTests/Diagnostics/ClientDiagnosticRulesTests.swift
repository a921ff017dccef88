import ConversationState
import Foundation
import Reducers
import Testing

/// A client's reducer, stepped by hand, with the diagnostics each step derives (`DiagnosticRules`): pure, no
/// runtime, no clock but the time each step is given.
struct DiagnosedClient {
  var state = ClientState()
  let reducer: ClientReducer

  init(reducer: ClientReducer = ClientReducer()) { self.reducer = reducer }

  /// Reduces `action` and returns the codes of the events it derives, checking they carry `at`.
  mutating func step(_ action: ClientAction, at: Date = ClientDiagnosticRulesTests.now) -> [ClientDiagnostic.Code] {
    let before = state
    _ = reducer.reduce(into: &state, action: action)
    let events = DiagnosticRules.events(from: before, to: state, by: action, at: at)
    #expect(events.allSatisfy { $0.at == at }, "every event is stamped with the time the step was given")
    return events.map(\.code)
  }

  /// Started, its connection open and its outbox found empty: requests 1 (the connection) and 2 are used.
  static func started(reducer: ClientReducer = ClientReducer()) -> DiagnosedClient {
    var client = DiagnosedClient(reducer: reducer)
    _ = client.step(.start)
    _ = client.step(.connectionOpened(request(1)))
    _ = client.step(.batchPrepared(request(2), nil))
    return client
  }
}

func request(_ sequence: UInt64) -> RequestID { RequestID(epoch: IdentityEpoch(0), sequence: sequence) }

@Suite("Client diagnostics, derived from the client's steps")
struct ClientDiagnosticRulesTests {
  static let now = Date(timeIntervalSince1970: 1_764_558_000)

  static let batch = OutboxBatch(
    id: "b1", epoch: 1, firstSequence: 1,
    operations: ["op-1", "op-2", "op-3"].map {
      OutboxOperation(id: $0, conversationID: "c1", kind: .markRead(upTo: "m9"), enqueuedAt: now)
    })

  @Test("a client starting connects (attempt 1) and opens; its empty outbox says nothing")
  func startAndOpen() {
    var client = DiagnosedClient()
    #expect(client.step(.start) == [.connectionConnecting(attempt: 1)])
    #expect(client.step(.connectionOpened(request(1))) == [.connectionOpened(attempt: 1)])
    #expect(client.step(.batchPrepared(request(2), nil)) == [])
  }

  @Test("a loss, the reconnect, and the connection proving healthy, with attempts and the retry delay")
  func lossAndRecovery() {
    // Given a started client whose connection is open
    var client = DiagnosedClient.started()

    // When it is lost (jitter 0.5: the first retry waits 0.5 s)
    let lost = client.step(
      .connectionLost(request(1), ChatError(.network, "reset", status: 503), at: Self.now, jitter: 0.5))

    // Then the loss is the first failure, retried 500 ms after it, on a network failure with its status
    #expect(
      lost == [
        .connectionLost(
          attempt: 1, retryDelayMilliseconds: 500, failure: ClientDiagnostic.Failure(kind: .network, httpStatus: 503))
      ])

    // When the reconnect timer fires, the connection opens, and then delivers an event
    #expect(client.step(.timerFired(.reconnect)) == [.connectionConnecting(attempt: 2)])
    #expect(client.step(.connectionOpened(request(3))).first == .connectionOpened(attempt: 2))
    #expect(client.step(.connectionDelivered(request(3))) == [.connectionHealthy(afterFailedAttempts: 1)])

    // Then a second event proves nothing new
    #expect(client.step(.connectionDelivered(request(3))) == [])
  }

  @Test("the retry delay is measured from the time the step is given, never below zero")
  func delayFromTheStepsTime() {
    var client = DiagnosedClient.started()
    let policy = ChatPolicy()
    let lost = client.step(
      .connectionLost(request(1), ChatError(.timeout, "slow"), at: Self.now, jitter: 1),
      at: Self.now.addingTimeInterval(0.25))
    #expect(policy.reconnectBackoff.delay(attempt: 1, jitter: 1) == 1)
    #expect(lost == [.connectionLost(attempt: 1, retryDelayMilliseconds: 750, failure: .init(kind: .timeout))])

    var late = DiagnosedClient.started()
    let afterTheRetry = late.step(
      .connectionLost(request(1), ChatError(.timeout, "slow"), at: Self.now, jitter: 1),
      at: Self.now.addingTimeInterval(5))
    #expect(afterTheRetry == [.connectionLost(attempt: 1, retryDelayMilliseconds: 0, failure: .init(kind: .timeout))])
  }

  @Test("a refused credential closes the connection until a fresh one; the fresh one connects again")
  func needsCredentials() {
    var client = DiagnosedClient.started(reducer: ClientReducer(refreshesCredentials: true))
    let refused = client.step(
      .connectionLost(request(1), ChatError(.network, "token expired", status: 401), at: Self.now, jitter: 0.5))
    #expect(refused == [.connectionNeedsCredentials(failure: .init(kind: .unauthorized, httpStatus: 401))])
    #expect(client.step(.credentialsAnswered(request(3), nil)) == [.connectionConnecting(attempt: 1)])
  }

  @Test("an outbox batch is prepared, fails, waits, is prepared again as attempt 2, and is taken with refusals")
  func outboxFailsThenGoes() {
    // Given a started client with three operations queued
    var client = DiagnosedClient.started()
    #expect(client.step(.outboxChanged) == [])
    #expect(client.step(.batchPrepared(request(3), Self.batch)) == [.outboxBatchPrepared(operations: 3, attempt: 1)])

    // When the upload fails in a way that can pass (jitter 0.5: 15 s)
    let failed = client.step(.batchFailed(request(3), ChatError(.network, "reset"), at: Self.now, jitter: 0.5))
    #expect(failed == [.outboxBatchFailed(attempt: 1, retryDelayMilliseconds: 15_000, failure: .init(kind: .network))])

    // Then the retry prepares the same batch as the second attempt
    #expect(client.step(.timerFired(.outboxRetry)) == [])
    #expect(client.step(.batchPrepared(request(4), Self.batch)) == [.outboxBatchPrepared(operations: 3, attempt: 2)])

    // When the server takes it, refusing one operation (and naming one it never had)
    let receipt = OutboxReceipt(rejections: [
      OutboxRejection(operationID: "op-2", reason: .unknownMessage),
      OutboxRejection(operationID: "op-9", reason: .invalid),
    ])
    #expect(client.step(.batchUploaded(request(4), receipt)) == [.outboxBatchUploaded(operations: 3, refused: 1)])
  }

  @Test(
    "an upload's failure says what became of the batch",
    arguments: [
      (
        ChatError(.invalidAction, "no", status: 400),
        ClientDiagnostic.Code.outboxBatchRefused(operations: 3, failure: .init(kind: .other, httpStatus: 400))
      ),
      (
        ChatError(.unauthorized, "expired", status: 401),
        .outboxWaitingForCredentials(failure: .init(kind: .unauthorized, httpStatus: 401))
      ),
      (
        ChatError(.rateLimited, "slow down", status: 429),
        .outboxBatchFailed(
          attempt: 1, retryDelayMilliseconds: 15_000, failure: .init(kind: .rateLimited, httpStatus: 429))
      ),
    ])
  func uploadFailures(_ error: ChatError, _ expected: ClientDiagnostic.Code) {
    var client = DiagnosedClient.started()
    _ = client.step(.outboxChanged)
    _ = client.step(.batchPrepared(request(3), Self.batch))
    #expect(client.step(.batchFailed(request(3), error, at: Self.now, jitter: 0.5)) == [expected])
  }

  @Test(
    "a result the client no longer waits for is no event",
    arguments: [
      ClientAction.connectionOpened(request(99)),
      .connectionLost(request(99), ChatError(.network, "old"), at: ClientDiagnosticRulesTests.now, jitter: 0.5),
      .connectionDelivered(request(99)),
      .batchPrepared(request(99), ClientDiagnosticRulesTests.batch),
      .batchUploaded(request(99), OutboxReceipt()),
      .batchFailed(request(99), ChatError(.network, "old"), at: ClientDiagnosticRulesTests.now, jitter: 0.5),
      .timerFired(.reconnect), .timerFired(.outboxRetry),
    ])
  func staleResults(_ action: ClientAction) {
    var client = DiagnosedClient.started()
    _ = client.step(.outboxChanged)
    _ = client.step(.batchPrepared(request(3), Self.batch))
    #expect(client.step(action) == [])
  }

  @Test("closing the client, or another person signing in, is no network event but the new connection's")
  func closeAndSwitch() {
    var client = DiagnosedClient.started()
    #expect(
      client.step(.identify(UserIdentity(userID: "u-2"), keepingGuestConversation: false)) == [
        .connectionConnecting(attempt: 1)
      ])
    #expect(client.step(.close) == [])
  }
}
