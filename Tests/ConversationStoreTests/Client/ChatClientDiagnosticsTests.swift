import ConversationTesting
import Dispatch
import Foundation
import Testing

@testable import ConversationStore

/// Reads a client's diagnostics as they arrive, for a test to wait on and check.
final class DiagnosticLog: Sendable {
  private let events: StateLock<[ClientDiagnostic]>
  private let reading: Task<Void, Never>

  init(_ stream: AsyncStream<ClientDiagnostic>) {
    let events = StateLock<[ClientDiagnostic]>([])
    self.events = events
    reading = Task { for await event in stream { events.withLock { $0.append(event) } } }
  }

  /// Every event so far, in the order the stream gave them.
  var all: [ClientDiagnostic] { events.withLock { $0 } }

  /// Waits until an event with `code` arrived (true), or gives up after `waitUntil`'s bound.
  func waitFor(_ code: ClientDiagnostic.Code) async -> Bool {
    await waitUntil { self.all.contains { $0.code == code } }
  }

  /// Waits until the stream ended (the client closed) and returns every event.
  func ended() async -> [ClientDiagnostic] {
    await reading.value
    return all
  }
}

extension ClientDiagnostic.Code {
  /// Whether a conversation reported it (from its follower) rather than the client itself.
  var isConversations: Bool {
    switch self {
    case .catchUpStarted, .caughtUp, .catchUpStalled, .catchUpGapLeft, .pollFailed: return true
    default: return false
    }
  }
}

@Suite("ChatClient diagnostics", .hangGuard)
struct ChatClientDiagnosticsTests {
  @Test(
    "a connection drops and comes back, a conversation catches up, an outbox batch fails then goes: each reported, in order, at the test clock's time"
  )
  func dropCatchUpAndOutbox() async throws {
    // Given a signed-in user with storage and diagnostics on, in conversation c1 (the client's first store,
    // h0) with a confirmed message
    let root = TemporaryRoot()
    let (stream, sink) = ClientDiagnostic.makeStream()
    let log = DiagnosticLog(stream)
    var harness = try await ClientHarness.start(
      identity: UserIdentity(userID: "u-1"), root: root.path, diagnostics: sink)
    let client = harness.client
    let start = harness.clock.now()
    let chat = client.conversation("c1")
    _ = await chat.state(where: { $0.connection == .connected })
    harness.socket.yield(.event("c1", .messageCreated(.server("Your order shipped", id: "s1", at: 1))))
    _ = await chat.state(where: { $0.lastConfirmedMessageID == "s1" })

    // When the connection drops (jitter 0.5: tried again after 0.5 s), the user writes meanwhile, and the
    // outbox's first upload of it fails
    #expect(await harness.drop(harness.socket, throwing: ChatError(.network, "tunnel")))
    _ = await chat.state(where: { $0.connection.isOffline })
    chat.sendMessage("Is it here yet?")
    let (batch, failing) = try await harness.nextBatch()
    failing.resume(throwing: ChatError(.network, "tunnel", status: 503))
    #expect(
      await log.waitFor(
        .outboxBatchFailed(attempt: 1, retryDelayMilliseconds: 15_000, failure: .init(kind: .network, httpStatus: 503)))
    )

    // And the reconnect is due (once the worker has started its timer): the connection opens, c1 catches up,
    // the same batch goes again and is taken
    guard await harness.reconnect(after: 0.5) != nil else {
      Issue.record("the client did not reconnect")
      return await client.close()
    }
    var answered = (upload: false, catchUp: false)
    while !(answered.upload && answered.catchUp) {
      let call = await harness.calls.next()
      switch call {
      case .uploadOutbox(let again, let answer):
        #expect(again == batch)
        answer.resume(returning: OutboxReceipt())
        answered.upload = true
      case .messagesAfter("c1", "s1", let answer):
        #expect(await log.waitFor(.catchUpStarted(conversation: ConversationHandle(0))))
        answer.resume(returning: [.server("Out for delivery", id: "s2", at: 2)])
        answered.catchUp = true
      default:
        Issue.record("expected the batch and c1's catch-up, got \(String(describing: call))")
        return await client.close()
      }
    }
    #expect(await log.waitFor(.caughtUp(conversation: ConversationHandle(0))))
    #expect(await log.waitFor(.outboxBatchUploaded(operations: 1, refused: 0)))

    // And it stays open long enough to prove healthy
    await client.settled()
    harness.clock.advance(by: 10)
    #expect(await log.waitFor(.connectionHealthy(afterFailedAttempts: 1)))
    await client.close()

    // Then the client's events came in the order they happened, each at the virtual time it happened
    let events = await log.ended()
    let reconnected = start.addingTimeInterval(0.5)
    let network = ClientDiagnostic.Failure(kind: .network)
    #expect(
      events.filter { !$0.code.isConversations } == [
        ClientDiagnostic(.connectionConnecting(attempt: 1), at: start),
        ClientDiagnostic(.connectionOpened(attempt: 1), at: start),
        ClientDiagnostic(.connectionLost(attempt: 1, retryDelayMilliseconds: 500, failure: network), at: start),
        ClientDiagnostic(.outboxBatchPrepared(operations: 1, attempt: 1), at: start),
        ClientDiagnostic(
          .outboxBatchFailed(
            attempt: 1, retryDelayMilliseconds: 15_000, failure: .init(kind: .network, httpStatus: 503)),
          at: start),
        ClientDiagnostic(.connectionConnecting(attempt: 2), at: reconnected),
        ClientDiagnostic(.connectionOpened(attempt: 2), at: reconnected),
        ClientDiagnostic(.outboxBatchPrepared(operations: 1, attempt: 2), at: reconnected),
        ClientDiagnostic(.outboxBatchUploaded(operations: 1, refused: 0), at: reconnected),
        ClientDiagnostic(.connectionHealthy(afterFailedAttempts: 1), at: reconnected.addingTimeInterval(10)),
      ])
    // And c1's catch-up, under its handle, not its ID
    #expect(
      events.filter(\.code.isConversations) == [
        ClientDiagnostic(.catchUpStarted(conversation: ConversationHandle(0)), at: reconnected),
        ClientDiagnostic(.caughtUp(conversation: ConversationHandle(0)), at: reconnected),
      ])
  }

  @Test("on a backend with no realtime channel, a failed poll is reported by the conversation's handle")
  func pollFailed() async throws {
    // Given a polling client (every 2 s) with diagnostics on, and c1 open at its newest page
    let backend = ControlledBackend()
    var calls = backend.calls.makeAsyncIterator()
    let clock = TestClock()
    var policy = ChatPolicy(pollInterval: 2)
    policy.connectionMode = .polling
    let (stream, sink) = ClientDiagnostic.makeStream()
    let log = DiagnosticLog(stream)
    let client = ChatClient(
      backend: backend, options: ChatClientOptions(workspace: "acme", policy: policy, diagnostics: sink),
      environment: .deterministic(clock: clock))
    let chat = client.conversation("c1")
    chat.send(.loadHistory(pageSize: 20))
    guard case .history("c1", nil, 20, let page) = await calls.next() else {
      Issue.record("expected the history page")
      return await client.close()
    }
    page.resume(returning: HistoryPage(messages: [.server("Hello!", id: "s1", at: 1)], nextCursor: nil, hasMore: false))
    _ = await chat.state(where: { $0.messages.count == 1 })
    // Its connect (performed on the client's worker) has armed the first poll before time moves
    _ = await chat.state(where: { $0.connection == .connected || $0.connection == .syncing })
    await client.settled()

    // When the next poll fails on the network (jitter 0.5: the backoff's 0.5 s is shorter than the interval)
    #expect(await clock.run(step: 0.5, limit: 30) { chat.state.requests.values.contains(.sync) })
    guard case .messagesAfter("c1", "s1", let poll) = await calls.next() else {
      Issue.record("expected a poll after s1")
      return await client.close()
    }
    poll.resume(throwing: ChatError(.network, "down"))

    // Then it is reported as the first failure, the next poll due in 2 s, and no shared connection was opened
    let failed = ClientDiagnostic.Code.pollFailed(
      conversation: ConversationHandle(0), attempt: 1, retryDelayMilliseconds: 2000, failure: .init(kind: .network))
    #expect(await log.waitFor(failed))
    await client.close()
    let events = await log.ended()
    #expect(!events.contains { if case .connectionConnecting = $0.code { true } else { false } })
  }

  @Test(
    "off by default: without a sink a step derives and queues nothing; with one the same step queues its events",
    arguments: [false, true])
  func offProducesNothing(isOn: Bool) async throws {
    // Given a client with diagnostics off (the default) or on, whose worker is held so nothing is handed on
    #expect(ChatClientOptions().diagnostics == nil)
    let (stream, sink) = ClientDiagnostic.makeStream()
    let log = DiagnosticLog(stream)
    let harness = try await ClientHarness.start(diagnostics: isOn ? sink : nil)
    let client = harness.client
    #expect((client.diagnostics != nil) == isOn)
    #expect(await waitUntil { client.state.connection == .connected })
    await client.settled()
    let held = DispatchSemaphore(value: 0)
    client.worker.async { held.wait() }

    // When the connection drops
    #expect(await harness.drop(harness.socket, throwing: ChatError(.network, "tunnel")))

    // Then with diagnostics off nothing was derived; on, the loss waits to be handed on
    let queued = client.core.withLock { $0.diagnosed.map(\.code) }
    held.signal()
    if isOn {
      #expect(
        queued == [.connectionLost(attempt: 1, retryDelayMilliseconds: 500, failure: .init(kind: .network))])
    } else {
      #expect(queued.isEmpty)
    }
    await client.close()
    if !isOn { sink.finish() }
    #expect(await log.ended().isEmpty != isOn)
  }

  @Test("no event carries a message's text, an ID, a credential or an error's words")
  func redacted() async throws {
    // Given a user whose IDs say who they are, with diagnostics on
    let secrets = ["ZEBRAQUARTZ", "sk-live-", "Bearer", "alice", "smith", "example", "acme", "expired", "gone"]
    let root = TemporaryRoot()
    let (stream, sink) = ClientDiagnostic.makeStream()
    let log = DiagnosticLog(stream)
    var harness = try await ClientHarness.start(
      identity: UserIdentity(userID: "alice.smith@example.com"), root: root.path, diagnostics: sink)
    let client = harness.client
    let chat = client.conversation("c-alice-smith")
    _ = await chat.state(where: { $0.connection == .connected })
    harness.socket.yield(
      .event("c-alice-smith", .messageCreated(.server("ZEBRAQUARTZ: your card is ready", id: "s-alice", at: 1))))
    _ = await chat.state(where: { $0.lastConfirmedMessageID == "s-alice" })

    // When the connection drops with a credential in the error, a message written offline is refused with
    // another, and the catch-up after the reconnect fails for good with a code and words a server made up
    #expect(
      await harness.drop(
        harness.socket, throwing: ChatError(.network, "Bearer sk-live-AAAA for alice.smith@example.com")))
    _ = await chat.state(where: { $0.connection.isOffline })
    chat.sendMessage("ZEBRAQUARTZ, where is it?")
    let (_, refusing) = try await harness.nextBatch()
    refusing.resume(throwing: ChatError(.unauthorized, "Bearer sk-live-AAAA expired", status: 401))
    #expect(await log.waitFor(.outboxWaitingForCredentials(failure: .init(kind: .unauthorized, httpStatus: 401))))
    guard await harness.reconnect(after: 0.5) != nil else {
      Issue.record("the client did not reconnect")
      return await client.close()
    }
    var caughtUp = false
    while !caughtUp {
      switch await harness.calls.next() {
      case .uploadOutbox(_, let answer):
        answer.resume(returning: OutboxReceipt())
      case .messagesAfter(_, _, let answer):
        answer.resume(
          throwing: ChatError(ChatError.Code(rawValue: "ALICE_SMITH_GONE"), "alice's chat is gone", status: 410))
        caughtUp = true
      default:
        Issue.record("expected the batch and the catch-up")
        return await client.close()
      }
    }
    #expect(await waitUntil { log.all.contains { if case .catchUpGapLeft = $0.code { true } else { false } } })
    await client.close()

    // Then the events say what happened, with numbers only: none of the words above is in any of them
    let events = await log.ended()
    #expect(
      events.contains {
        if case .connectionLost(_, _, let failure) = $0.code { failure.kind == .network } else { false }
      })
    #expect(
      events.contains {
        $0.code == .catchUpGapLeft(conversation: ConversationHandle(0), failure: .init(kind: .other, httpStatus: 410))
      })
    for event in events {
      var dumped = ""
      dump(event, to: &dumped)
      for text in [String(describing: event), String(reflecting: event), dumped] {
        for secret in secrets {
          #expect(!text.localizedCaseInsensitiveContains(secret), "\(secret) leaked into \(text)")
        }
      }
    }
  }

  @Test("a consumer that does not read keeps only the newest events, and the client never waits for it")
  func slowConsumerIsBounded() async throws {
    // Given a client whose diagnostics keep 3 unread events, and nobody reading them
    let (stream, sink) = ClientDiagnostic.makeStream(bufferingNewest: 3)
    var harness = try await ClientHarness.start(diagnostics: sink)
    let client = harness.client
    let start = harness.clock.now()

    // When its connection drops and comes back five times (each loss backs off further: attempts add up)
    var socket = harness.socket
    for _ in 1...5 {
      #expect(await harness.drop(socket, throwing: ChatError(.network, "tunnel")))
      guard let next = await harness.reconnect(after: 30) else {
        Issue.record("the client did not reconnect")
        return await client.close()
      }
      #expect(await waitUntil { client.state.connection == .connected })
      socket = next
    }
    await client.close()

    // Then the stream holds the last three of the seventeen events, in order: the fifth loss (its retry due
    // after 0.5 × 16 s), the sixth attempt and its opening
    var kept: [ClientDiagnostic] = []
    for await event in stream { kept.append(event) }
    let lastLoss = start.addingTimeInterval(4 * 30)
    #expect(
      kept == [
        ClientDiagnostic(
          .connectionLost(attempt: 5, retryDelayMilliseconds: 8000, failure: .init(kind: .network)), at: lastLoss),
        ClientDiagnostic(.connectionConnecting(attempt: 6), at: lastLoss.addingTimeInterval(8)),
        ClientDiagnostic(.connectionOpened(attempt: 6), at: lastLoss.addingTimeInterval(30)),
      ])
  }
}
