import ConversationState
import ConversationTesting
import Foundation
import Persistence
import Testing

@Suite("The installation's outbox epoch")
struct InstallationEpochTests {
  @Test("1 on a fresh installation, raised one at a time, kept across a relaunch, 1 again for a new installation")
  func raisedAndKept() throws {
    // Given a fresh installation
    let root = ScratchRoot()
    let storage = try root.storage()
    #expect(try storage.outboxEpoch() == 1)

    // When two sign-outs raise it
    #expect(try storage.raiseOutboxEpoch() == 2)
    #expect(try storage.raiseOutboxEpoch() == 3)

    // Then another storage on the same root (a relaunch) reads it
    #expect(try root.storage().outboxEpoch() == 3)

    // And a reset installation starts again at 1
    try storage.resetInstallation()
    #expect(try storage.outboxEpoch() == 1)
  }

  @Test(
    "an unreadable epoch file is moved aside with an event, and the epoch counts as 1",
    arguments: [Data(), Data("not an epoch file".utf8), Data(repeating: 0xFF, count: 40)])
  func corrupt(bytes: Data) async throws {
    // Given an epoch file that is garbage
    let root = ScratchRoot()
    let events = EventLog()
    let storage = try root.storage(onEvent: events.record)
    try storage.raiseOutboxEpoch()
    try bytes.write(to: URL(fileURLWithPath: root.path + "/epoch"))

    // When it is read
    let epoch = try storage.outboxEpoch()

    // Then it counts as 1, the file was moved aside and said so, and raising works again
    #expect(epoch == 1)
    await storage.eventsDelivered()
    #expect(events.all.contains { if case .movedAside = $0 { true } else { false } })
    #expect(try storage.raiseOutboxEpoch() == 2)
  }

  @Test("an outbox adopts the installation's epoch: numbers from 1 in a new one, kept in its own, an old batch dropped")
  func outboxAdopts() throws {
    // Given an outbox on its own (epoch 0 until a client gives it one) with a batch in flight and one operation waiting behind it
    let root = ScratchRoot()
    let outbox = try root.scope().outbox()
    try outbox.enqueue(OutboxTests.markRead("op-1", at: 1), at: .story(1))
    let first = try #require(try outbox.beginBatch(limit: 1, makeID: { "batch-A" }))
    try outbox.enqueue(OutboxTests.markRead("op-2", at: 2), at: .story(2))
    #expect(first.epoch == 0)

    // When it adopts the epoch it is in, nothing changes; when it adopts epoch 4, it starts at 1 there
    try outbox.adopt(epoch: 0)
    #expect(try outbox.beginBatch(makeID: { "unused" })?.id == "batch-A", "the batch in flight is kept")
    try outbox.adopt(epoch: 4)

    // Then the next batch is new, of epoch 4 from 1, and carries both operations; a reopen agrees
    let next = try #require(try outbox.beginBatch(makeID: { "batch-B" }))
    #expect(next.id == "batch-B")
    #expect(next.epoch == 4)
    #expect(next.firstSequence == 1)
    #expect(next.operations.map(\.id.rawValue) == ["op-1", "op-2"])
    #expect(try root.scope().outbox().sequencing.epoch == 4)
  }

  @Test(
    "the server's word renumbers the outbox: the refused batch is dropped, its operations go again in order, from where the server numbers; kept across a relaunch",
    arguments: [(epoch: UInt64(7), next: 1), (epoch: UInt64(1), next: 42)])
  func resynchronized(epoch: UInt64, next: Int) throws {
    // Given an installation in epoch 1 whose outbox has a batch in flight and an operation behind it
    let root = ScratchRoot()
    let storage = try root.storage()
    let outbox = try root.scope().outbox()
    try outbox.adopt(epoch: try storage.outboxEpoch())
    try outbox.enqueue(OutboxTests.markRead("op-1", at: 1), at: .story(1))
    let refused = try #require(try outbox.beginBatch(limit: 1, makeID: { "batch-A" }))
    try outbox.enqueue(OutboxTests.markRead("op-2", at: 2), at: .story(2))

    // When the server refuses it, numbering elsewhere (a stale epoch, or a gap in the sequence), and the
    // client adopts its word
    try storage.adoptOutboxEpoch(epoch)
    try outbox.resynchronize(epoch: epoch, nextSequence: next, droppingBatch: refused.id)

    // Then the next batch is new, numbered from there, with both operations in their order
    let again = try #require(try outbox.beginBatch(makeID: { "batch-B" }))
    #expect(again.id == "batch-B" && again.epoch == epoch && again.firstSequence == next)
    #expect(again.operations.map(\.id.rawValue) == ["op-1", "op-2"])
    // And after a relaunch the installation and the outbox still number there
    #expect(try root.storage().outboxEpoch() == epoch)
    #expect(try root.scope().outbox().sequencing.epoch == epoch)
  }

  @Test("a refusal that names another batch than the one in flight changes nothing: that batch keeps its numbers")
  func resynchronizeOtherBatch() throws {
    let root = ScratchRoot()
    let outbox = try root.scope().outbox()
    try outbox.enqueue(OutboxTests.markRead("op-1", at: 1), at: .story(1))
    let inFlight = try #require(try outbox.beginBatch(makeID: { "batch-A" }))
    try outbox.resynchronize(epoch: 9, nextSequence: 1, droppingBatch: "batch-old")
    let again = try #require(try outbox.beginBatch(makeID: { "unused" }))
    #expect(again == inFlight)
    #expect(outbox.sequencing.epoch == inFlight.epoch)
  }
}
