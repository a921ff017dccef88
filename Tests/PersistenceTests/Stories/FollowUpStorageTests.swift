import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

@testable import Persistence

@Suite("Follow-ups on disk", .hangGuard)
struct FollowUpStorageTests {
  @Test("follow-ups written while an answer streamed survive a kill, in order, paused by the answer cut off")
  func queueSurvivesARelaunch() throws {
    // Given an answer streaming and two follow-ups queued behind it, each step written as a store writes it
    let root = ScratchRoot()
    let file = try root.scope().conversation("conv-1")
    let reducer = ConversationReducer()
    var state = ConversationState.existing([.server("Hi", id: "s1", at: 1)])
    let question = RequestID(epoch: state.epoch, sequence: 1)
    var time = 1.0
    func step(_ action: ConversationAction) throws {
      let before = state
      _ = reducer.reduce(into: &state, action: action)
      time += 1
      try file.persist(state, changes: state.changes(since: before), at: .story(time))
    }
    try step(.send(OutgoingMessage(clientID: "c0", text: "Where is it?", createdAt: .story(2))))
    try step(.replyStarted(question, agent: nil, at: .story(3)))
    try step(.replyDelta(question, "Let me look"))
    try step(.send(OutgoingMessage(clientID: "c1", text: "And the invoice?", createdAt: .story(4))))
    try step(.send(OutgoingMessage(clientID: "c2", text: "Thanks", createdAt: .story(5))))
    #expect(state.followUps.turns.map(\.clientID) == ["c1", "c2"])

    // When the app is killed and starts again
    var restored = try #require(try root.scope().conversation("conv-1").restored)
    _ = reducer.reduce(into: &restored, action: .relaunched)

    // Then both follow-ups wait, in order, with their texts; the answer the kill cut off pauses them
    #expect(restored.followUps.turns.map(\.clientID) == ["c1", "c2"])
    #expect(restored.followUps.turns.map(\.text) == ["And the invoice?", "Thanks"])
    guard case .answerEnded(_, let outcome)? = restored.followUps.pause else {
      Issue.record("the queue is not paused: \(String(describing: restored.followUps.pause))")
      return
    }
    #expect(outcome.isCutShort)

    // And resuming sends the first, under the client ID it was queued with
    let effects = reducer.reduce(into: &restored, action: .resumeQueue)
    #expect(effects.contains { if case .sendMessage(_, let payload) = $0 { payload.clientID == "c1" } else { false } })
    #expect(restored.followUps.turns.map(\.clientID) == ["c2"])
  }

  @Test("a follow-up whose message was written but not the queue's change (a torn append) opens sent, not queued")
  func tornDequeueOpensSent() throws {
    // Given a file whose meta record still queues c1, and a message record for c1 after it (the queue's
    // change, written after the message, was lost with a kill)
    let root = ScratchRoot()
    let scope = try root.scope()
    var state = ConversationState.existing([.server("Hi", id: "s1", at: 1)])
    state.followUps.turns = [
      OutgoingMessage(clientID: "c1", text: "And the invoice?", createdAt: .story(2)),
      OutgoingMessage(clientID: "c2", text: "Thanks", createdAt: .story(3)),
    ]
    let sent = Message.confirmed("And the invoice?", clientID: "c1", serverID: "s2", at: 4)
    let records =
      [ConversationRecord.meta(ConversationMeta(state))] + state.messages.map(ConversationRecord.message)
      + [.message(sent)]
    _ = try MigrationTests.writeConversationFile(
      version: ConversationRecord.formatVersion, payloads: records.map { $0.encode() }, in: scope)

    // When it is opened
    let restored = try #require(try scope.conversation("conv-1").restored)

    // Then c1 is a message and only c2 waits
    #expect(restored.messages.contains("c1"))
    #expect(restored.followUps.turns.map(\.clientID) == ["c2"])
  }
}
