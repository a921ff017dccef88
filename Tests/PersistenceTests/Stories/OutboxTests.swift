import ConversationState
import ConversationTesting
import Foundation
import Testing

@testable import Persistence

@Suite("Durable outbox")
struct OutboxTests {
  static func markRead(_ id: String, at seconds: Double) -> OutboxOperation {
    OutboxOperation(
      id: OutboxOperationID(rawValue: id), conversationID: "conv-1", kind: .markRead(upTo: "s1"),
      enqueuedAt: .story(seconds))
  }

  @Test("what was queued is there after a relaunch, in order, and what the server took is not")
  func survivesRelaunch() throws {
    let root = ScratchRoot()
    let outbox = try root.scope().outbox()
    try outbox.enqueue(
      OutboxOperation(
        id: "op-1", conversationID: nil,
        kind: .send(OutgoingMessage(clientID: "c1", text: "Hello from the tunnel", createdAt: .story(1))),
        enqueuedAt: .story(1)), at: .story(1))
    try outbox.enqueue(
      OutboxOperation(id: "op-2", conversationID: "conv-1", kind: .rateAnswer("a1", .up), enqueuedAt: .story(2)),
      at: .story(2))
    try outbox.enqueue(
      OutboxOperation(
        id: "op-3", conversationID: "conv-1", kind: .rateConversation(.down, comment: "slow"), enqueuedAt: .story(3)),
      at: .story(3))
    try outbox.complete(["op-2"])

    let reopened = try root.scope().outbox()

    #expect(reopened.operations.map(\.id) == ["op-1", "op-3"])
    #expect(reopened.operations.first == outbox.operations.first)
    #expect(reopened.restoreError == nil)
  }

  @Test("past the count bound the oldest goes, reported by ID and reason; one being uploaded never goes")
  func countBound() async throws {
    // Given an outbox of three with the oldest being uploaded
    let root = ScratchRoot()
    let events = EventLog()
    let storage = try root.storage(onEvent: events.record)
    let outbox = try storage.scope(StorageScope(workspace: "acme", userID: "u1"))
      .outbox(limits: OutboxLimits(maximumOperations: 3))
    for index in 1...3 {
      try outbox.enqueue(Self.markRead("op-\(index)", at: Double(index)), at: .story(Double(index)))
    }
    #expect(outbox.markUploading(limit: 1).map(\.id) == ["op-1"])

    // When a fourth is queued
    let evicted = try outbox.enqueue(Self.markRead("op-4", at: 4), at: .story(4))

    // Then the oldest not being uploaded went, and the event says only which and why
    #expect(evicted == [OutboxEviction(id: "op-2", reason: .count)])
    #expect(outbox.operations.map(\.id) == ["op-1", "op-3", "op-4"])
    await storage.eventsDelivered()
    #expect(events.all.contains(.outboxEvicted(OutboxEviction(id: "op-2", reason: .count))))
    #expect(try root.scope().outbox().operations.map(\.id) == ["op-1", "op-3", "op-4"])
  }

  @Test("past the byte bound the oldest go until the rest fit")
  func byteBound() throws {
    let root = ScratchRoot()
    let big = String(repeating: "a", count: 400)
    func send(_ id: String) -> OutboxOperation {
      OutboxOperation(
        id: OutboxOperationID(rawValue: id), conversationID: "conv-1",
        kind: .send(OutgoingMessage(clientID: ClientMessageID(id), text: big, createdAt: .story(1))),
        enqueuedAt: .story(1))
    }
    let outbox = try root.scope().outbox(limits: OutboxLimits(maximumBytes: 1_500))
    try outbox.enqueue(send("op-1"), at: .story(1))
    try outbox.enqueue(send("op-2"), at: .story(1))

    let evicted = try outbox.enqueue(send("op-3"), at: .story(1))

    #expect(evicted == [OutboxEviction(id: "op-1", reason: .bytes)])
    #expect(outbox.operations.map(\.id) == ["op-2", "op-3"])
  }

  @Test("an operation older than the age bound goes when the clock passes it")
  func ageBound() throws {
    let root = ScratchRoot()
    let outbox = try root.scope().outbox(limits: OutboxLimits(maximumAge: 100))
    try outbox.enqueue(Self.markRead("op-1", at: 0), at: .story(0))
    try outbox.enqueue(Self.markRead("op-2", at: 50), at: .story(50))

    #expect(try outbox.expire(at: .story(100)) == [])
    #expect(try outbox.expire(at: .story(101)) == [OutboxEviction(id: "op-1", reason: .age)])
    #expect(outbox.operations.map(\.id) == ["op-2"])
  }

  @Test("an operation that cannot fit beside those being uploaded is refused, and nothing is lost")
  func refusedWhenPinned() throws {
    let root = ScratchRoot()
    let outbox = try root.scope().outbox(limits: OutboxLimits(maximumOperations: 1))
    try outbox.enqueue(Self.markRead("op-1", at: 1), at: .story(1))
    _ = outbox.markUploading(limit: 1)

    #expect(throws: PersistenceError.self) { try outbox.enqueue(Self.markRead("op-2", at: 2), at: .story(2)) }
    #expect(outbox.operations.map(\.id) == ["op-1"])

    outbox.release(["op-1"])
    let evicted = try outbox.enqueue(Self.markRead("op-2", at: 2), at: .story(2))
    #expect(evicted == [OutboxEviction(id: "op-1", reason: .count)])
  }

  @Test("batches are numbered without gaps from 1, and a batch in flight is the same batch after a restart")
  func batchesAreSequenced() throws {
    // Given three queued operations
    let root = ScratchRoot()
    let outbox = try root.scope().outbox()
    for index in 1...3 {
      try outbox.enqueue(Self.markRead("op-\(index)", at: Double(index)), at: .story(Double(index)))
    }

    // When a batch of two starts and the app dies before the answer
    let first = try #require(try outbox.beginBatch(limit: 2, makeID: { "batch-A" }))
    #expect(first.numbered.map(\.sequence) == [1, 2])
    let reopened = try root.scope().outbox()

    // Then the next run sends the very same batch again, and only then the rest, numbered on
    let again = try #require(try reopened.beginBatch(limit: 2, makeID: { "batch-B" }))
    #expect(again == first)
    try reopened.finishBatch("batch-A")
    let next = try #require(try reopened.beginBatch(limit: 2, makeID: { "batch-C" }))
    #expect(next.id == "batch-C")
    #expect(next.firstSequence == 3)
    #expect(next.operations.map(\.id) == ["op-3"])
    try reopened.finishBatch("batch-C")
    #expect(try reopened.beginBatch(limit: 2, makeID: { "batch-D" }) == nil)
    #expect(try root.scope().outbox().sequencing.nextSequence == 4)
  }

  @Test("clearing (a sign-out) drops the queue and starts a new epoch at sequence 1")
  func clearStartsANewEpoch() throws {
    let root = ScratchRoot()
    let outbox = try root.scope().outbox()
    try outbox.enqueue(Self.markRead("op-1", at: 1), at: .story(1))
    let batch = try #require(try outbox.beginBatch(makeID: { "batch-A" }))
    try outbox.finishBatch(batch.id)
    try outbox.enqueue(Self.markRead("op-2", at: 2), at: .story(2))

    try outbox.clear()

    let reopened = try root.scope().outbox()
    #expect(reopened.operations.isEmpty)
    #expect(reopened.sequencing.epoch == 1)
    #expect(reopened.sequencing.nextSequence == 1)
    try reopened.enqueue(Self.markRead("op-3", at: 3), at: .story(3))
    #expect(try reopened.beginBatch(makeID: { "batch-B" })?.firstSequence == 1)
  }

  @Test("operations in a batch in flight are never evicted")
  func batchIsPinned() throws {
    let root = ScratchRoot()
    let outbox = try root.scope().outbox(limits: OutboxLimits(maximumOperations: 2))
    try outbox.enqueue(Self.markRead("op-1", at: 1), at: .story(1))
    _ = try outbox.beginBatch(makeID: { "batch-A" })
    try outbox.enqueue(Self.markRead("op-2", at: 2), at: .story(2))

    let evicted = try outbox.enqueue(Self.markRead("op-3", at: 3), at: .story(3))

    #expect(evicted == [OutboxEviction(id: "op-2", reason: .count)])
    #expect(outbox.operations.map(\.id) == ["op-1", "op-3"])
  }
}
