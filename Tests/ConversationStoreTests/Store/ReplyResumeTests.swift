import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Stories of a reply whose stream drops: resumed from its cursor through a real store, its runtime and a
/// backend the test answers, on virtual time.
@Suite("Resuming a dropped reply", .hangGuard)
struct ReplyResumeTests {
  /// A reply as a protocol that numbers its events sends it: reasoning, text, a server tool, a finish.
  static let script: [ReplyEvent] = [
    .accepted(
      Message(
        clientID: "id-1", serverID: "s1", role: .user, text: "Where is order 42?",
        createdAt: Date(timeIntervalSince1970: 1)),
      conversationID: "conv-1"),
    .started(agent: AgentInfo(id: "bot", name: "Fin"), replyID: "r1"),
    .partStarted("think", .reasoning),
    .partDelta("think", "Look "),
    .partDelta("think", "it up."),
    .partEnded("think"),
    .partStarted("say", .text),
    .partDelta("say", "It "),
    .partDelta("say", "shipped"),
    .toolCall(ToolCall(id: "t1", name: "orders.lookup", input: ["id": 42], execution: .server)),
    .toolResult("t1", .succeeded(["status": "shipped"])),
    .partDelta("say", " today."),
    .partEnded("say"),
    .finished(Message(clientID: "x", role: .assistant, text: "", createdAt: Date(timeIntervalSince1970: 2))),
  ]

  static func positioned(_ range: Range<Int>) -> [ReplyEvent] {
    range.map { .positioned(.sequence(UInt64($0 + 1)), script[$0]) }
  }

  /// How a resumed stream answers: from the first event again, or just after the cursor.
  enum Replay: String, CaseIterable, Sendable {
    case fromStart, afterCursor
  }

  struct Harness {
    let store: ChatStore
    let clock: TestClock
    var calls: AsyncStream<ControlledBackend.Call>.AsyncIterator

    init(policy: ChatPolicy = ChatPolicy(reconnectBackoff: Backoff(base: 1, cap: 8))) {
      let backend = ControlledBackend()
      clock = TestClock()
      store = ChatStore(
        ConversationState(conversationID: "conv-1"), policy: policy, backend: backend,
        environment: .deterministic(clock: clock, jitter: 1))
      calls = backend.calls.makeAsyncIterator()
    }

    /// The next resume the runtime asks for, once virtual time has passed the wait before it.
    mutating func nextResume(after wait: Double) async -> (ReplyCursor, ControlledBackend.ReplyStream)? {
      // Not before its backoff: nine tenths of the wait in, nothing has been asked.
      let clock = clock
      let timerSet = await clock.run { clock.pendingCount > 0 }
      #expect(timerSet)
      clock.advance(by: wait * 0.9)
      #expect(store.state.requests.isEmpty, "asked to resume before the backoff was over")
      clock.advance(by: wait * 0.1 + 0.06)
      guard case .resume(let cursor, let stream) = await calls.next() else { return nil }
      return (cursor, stream)
    }
  }

  /// What the store shows once the uninterrupted reply is in: the answer every resumed run must equal.
  static func uninterrupted() async -> Message? {
    var harness = Harness()
    harness.store.sendMessage("Where is order 42?")
    guard case .send(_, let stream) = await harness.calls.next() else { return nil }
    for event in positioned(0..<script.count) { stream.yield(event) }
    stream.finish()
    return await harness.store.state { $0.messages.count == 2 && $0.requests.isEmpty }?.messages.last
  }

  @Test(
    "a reply that drops after any event is resumed from its cursor and ends exactly as the uninterrupted one",
    arguments: Replay.allCases, 2..<script.count)
  func dropAtEveryBoundary(replay: Replay, dropAfter: Int) async throws {
    let expected = try #require(await Self.uninterrupted())
    // Given a reply streaming with numbered events
    var harness = Harness()
    harness.store.sendMessage("Where is order 42?")
    guard case .send(_, let stream) = await harness.calls.next() else {
      Issue.record("expected a send")
      return
    }
    for event in Self.positioned(0..<dropAfter) { stream.yield(event) }

    // When the connection drops after event `dropAfter`
    stream.finish(throwing: ChatError(.network, "The connection was lost."))

    // Then the store waits its backoff and asks for the rest from the last event it applied, keeping the reply
    guard let (cursor, resumed) = await harness.nextResume(after: 1) else {
      Issue.record("expected a resume")
      return
    }
    #expect(cursor == ReplyCursor(conversationID: "conv-1", replyID: "r1", position: .sequence(UInt64(dropAfter))))
    let waiting = harness.store.state
    #expect(waiting.streamingReply?.resumption?.failedAttempts == 1)
    #expect(waiting.messages.count == 1)
    #expect(waiting.backgroundError?.code == .network, "the drop shows while the reply waits")

    // And when the server answers (replaying from the start, or from the cursor), the answer is the same
    let from = replay == .fromStart ? 0 : dropAfter
    for event in Self.positioned(from..<Self.script.count) { resumed.yield(event) }
    resumed.finish()
    let state = try #require(await harness.store.state { $0.messages.count == 2 && $0.requests.isEmpty })
    let answer = try #require(state.messages.last)
    #expect(answer.text == expected.text)
    #expect(answer.parts == expected.parts)
    #expect(answer.toolCalls == expected.toolCalls)
    #expect(answer.reply == .completed)
    #expect(answer.clientID == expected.clientID)
    #expect(state.streamingReply == nil)
    #expect(state.backgroundError == nil, "the drop is over once the resumed stream brought something new")
    #expect(state.invariantViolations() == [])
  }

  @Test("a resumed stream that drops again resumes again, the wait doubling, and the count starts over on progress")
  func dropsTwice() async throws {
    var harness = Harness()
    harness.store.sendMessage("Where is order 42?")
    guard case .send(_, let stream) = await harness.calls.next() else {
      Issue.record("expected a send")
      return
    }
    for event in Self.positioned(0..<4) { stream.yield(event) }
    stream.finish(throwing: ChatError(.network, "lost"))

    // The first resume fails before it brings anything: the second waits twice as long, from the same cursor
    guard let (first, failing) = await harness.nextResume(after: 1) else {
      Issue.record("expected a resume")
      return
    }
    failing.finish(throwing: ChatError(.timeout, "no answer"))
    guard let (second, resumed) = await harness.nextResume(after: 2) else {
      Issue.record("expected a resume")
      return
    }
    #expect(first.position == .sequence(4))
    #expect(second.position == .sequence(4))

    // It brings two new events and drops: progress was made, so the next wait is the first one again
    for event in Self.positioned(0..<6) { resumed.yield(event) }
    resumed.finish(throwing: ChatError(.network, "lost again"))
    guard let (third, last) = await harness.nextResume(after: 1) else {
      Issue.record("expected a resume")
      return
    }
    #expect(third.position == .sequence(6))
    for event in Self.positioned(6..<Self.script.count) { last.yield(event) }
    last.finish()
    let state = try #require(await harness.store.state { $0.messages.count == 2 && $0.requests.isEmpty })
    #expect(state.messages.last?.text == "It shipped today.")
    #expect(state.messages.last?.reply == .completed)
  }

  /// Ways a resume can be refused for good.
  enum Refusal: String, CaseIterable, Sendable {
    case notResumable, unsupported, attemptsSpent
  }

  @Test("a reply that cannot be resumed ends truncated with everything it streamed", arguments: Refusal.allCases)
  func cannotResume(refusal: Refusal) async throws {
    var policy = ChatPolicy(reconnectBackoff: Backoff(base: 1, cap: 8))
    policy.replyResumeAttempts = 3
    var harness = Harness(policy: policy)
    harness.store.sendMessage("Where is order 42?")
    guard case .send(_, let stream) = await harness.calls.next() else {
      Issue.record("expected a send")
      return
    }
    for event in Self.positioned(0..<9) { stream.yield(event) }
    stream.finish(throwing: ChatError(.network, "The connection was lost."))

    switch refusal {
    case .notResumable:
      guard let (_, resumed) = await harness.nextResume(after: 1) else {
        Issue.record("expected a resume")
        return
      }
      resumed.finish(throwing: ChatError(.notResumable, "The server has no stream for this chat."))
    case .unsupported:
      guard let (_, resumed) = await harness.nextResume(after: 1) else {
        Issue.record("expected a resume")
        return
      }
      resumed.finish(throwing: ChatError.unsupported("resuming replies"))
    case .attemptsSpent:
      // Three attempts, each waiting twice the one before, then no more
      for wait in [1.0, 2, 4] {
        guard let (_, resumed) = await harness.nextResume(after: wait) else {
          Issue.record("expected a resume")
          return
        }
        resumed.finish(throwing: ChatError(.network, "still down"))
      }
    }

    let state = try #require(await harness.store.state { $0.messages.count == 2 && $0.requests.isEmpty })
    let answer = try #require(state.messages.last)
    #expect(answer.text == "It shipped")
    #expect(answer.parts.count == 2)
    #expect(answer.reply == .truncated)
    #expect(state.userError?.code == .incompleteStream)
    #expect(state.userError?.message.contains("The connection was lost.") == true)
    #expect(state.streamingReply == nil)
    #expect(harness.clock.pendingCount == 0)
  }

  @Test("stopping a reply that waits to resume ends it cancelled, and no resume is asked for afterwards")
  func stopWhileWaiting() async throws {
    var harness = Harness()
    harness.store.sendMessage("Where is order 42?")
    guard case .send(_, let stream) = await harness.calls.next() else {
      Issue.record("expected a send")
      return
    }
    for event in Self.positioned(0..<8) { stream.yield(event) }
    stream.finish(throwing: ChatError(.network, "lost"))
    _ = await harness.store.state { $0.streamingReply?.resumption != nil }

    harness.store.send(.stopReply)
    let state = try #require(await harness.store.state { $0.messages.count == 2 })
    #expect(state.messages.last?.reply == .cancelled)
    #expect(state.messages.last?.text == "It ")
    #expect(harness.clock.pendingCount == 0)
  }

  @Test("a reply whose stream numbers no events is not resumed: it ends cut off, with its text")
  func unnumberedStream() async throws {
    var harness = Harness()
    harness.store.sendMessage("Where is order 42?")
    guard case .send(_, let stream) = await harness.calls.next() else {
      Issue.record("expected a send")
      return
    }
    for event in Self.script.prefix(9) { stream.yield(event) }
    stream.finish(throwing: ChatError(.network, "lost"))
    let state = try #require(await harness.store.state { $0.messages.count == 2 && $0.requests.isEmpty })
    #expect(state.messages.last?.text == "It shipped")
    #expect(state.messages.last?.reply == .truncated)
    #expect(state.userError?.code == .incompleteStream)
    #expect(state.userError?.message.contains("lost") == true, "the drop's own message is kept")
    #expect(harness.clock.pendingCount == 0)
  }
}
