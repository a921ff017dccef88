import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

@testable import Persistence

@Suite("Restoring after a relaunch")
struct RestoreTests {
  @Test("messages written together, at the same moment, come back in the order they were sent")
  func sendOrderKept() throws {
    // Given a stored conversation, then twenty messages appended at once (one snapshot, one change set)
    let root = ScratchRoot()
    let file = try root.scope().conversation("conv-1")
    let before = ConversationState.existing([.server("Hi", id: "s1", at: 1)])
    try file.persist(before, changes: .reset, at: .story(2))
    var after = before
    let texts = (1...20).map { "message \($0)" }
    for (index, text) in texts.enumerated() {
      _ = after.messages.appendOutgoing(
        Message(
          clientID: ClientMessageID("m\(index)"), role: .user, text: text, createdAt: .story(3), delivery: .pending))
    }
    try file.persist(after, changes: after.changes(since: before), at: .story(3))
    try file.flush(at: .story(3))

    // When the app starts again
    let restored = try #require(try root.scope().conversation("conv-1").restored)

    // Then they are in send order
    #expect(restored.messages.map(\.text) == ["Hi"] + texts)
  }

  @Test("what was in flight comes back settled: sending fails retryable, streaming truncated, waiting goes out")
  func relaunchSettles() throws {
    // Given a run that was killed with a message sending, one waiting offline and a reply streaming
    let root = ScratchRoot()
    let reducer = ConversationReducer(policy: .overlapping)  // "first" goes while the answer streams
    var state = ConversationState.existing([.server("Hi", id: "s1", at: 1)])
    let question = RequestID(epoch: state.epoch, sequence: 1)
    _ = reducer.reduce(
      into: &state, action: .send(OutgoingMessage(clientID: "c0", text: "Where is it?", createdAt: .story(2))))
    _ = reducer.reduce(into: &state, action: .replyStarted(question, agent: nil, at: .story(3)))
    _ = reducer.reduce(into: &state, action: .replyDelta(question, "Half an ans"))
    _ = reducer.reduce(
      into: &state, action: .send(OutgoingMessage(clientID: "c1", text: "first", createdAt: .story(3.5))))
    var offline = state
    _ = offline.messages.appendOutgoing(
      Message(clientID: "c2", role: .user, text: "second, sent offline", createdAt: .story(4), delivery: .pending))
    state = offline
    try root.scope().conversation("conv-1").persist(state, changes: .reset, at: .story(5))

    // When the app starts again and settles what it restored
    var restored = try #require(try root.scope().conversation("conv-1").restored)
    _ = reducer.reduce(into: &restored, action: .relaunched)

    // Then the message that was sending failed retryable, the reply is kept interrupted with its text
    let first = try #require(restored.messages[clientID: "c1"])
    guard case .failed(let error) = first.delivery else {
      Issue.record("expected the sending message to come back failed, got \(first.delivery)")
      return
    }
    #expect(error.retryable)
    let interrupted = restored.messages.first { $0.role == .assistant && $0.reply != .completed }
    #expect(interrupted?.text == "Half an ans")
    #expect(restored.streamingReply == nil)
    #expect(restored.isSettled)

    // And the message written offline goes out once the connection opens
    let connect = RequestID(epoch: restored.epoch, sequence: restored.requestSequence + 1)
    _ = reducer.reduce(into: &restored, action: .connect)
    let effects = reducer.reduce(into: &restored, action: .connectionOpened(connect))
    #expect(effects.contains { if case .sendMessage(_, let payload) = $0 { payload.clientID == "c2" } else { false } })
  }

  @Test("request IDs after a relaunch never repeat those of the run before")
  func requestSequenceSurvives() throws {
    let root = ScratchRoot()
    var state = ConversationState.existing([])
    _ = state.beginRequest(.connect)
    _ = state.beginRequest(.connect)
    try root.scope().conversation("conv-1").persist(state, changes: .reset, at: .story(1))

    let restored = try #require(try root.scope().conversation("conv-1").restored)

    #expect(restored.requestSequence == 2)
    #expect(restored.requests.isEmpty)
  }
}
