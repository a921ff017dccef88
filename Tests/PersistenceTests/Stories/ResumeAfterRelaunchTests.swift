import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

@testable import Persistence

/// A reply that was streaming when the app stopped picks up from the cursor stored with its text.
@Suite("Resuming a reply after a relaunch")
struct ResumeAfterRelaunchTests {
  let reducer = ConversationReducer()

  /// A conversation whose answer streamed "Half " (events 1–2, written) and "an ans" (event 3, not yet
  /// written: the write interval had not passed) when the app was killed.
  func killedMidReply(in root: ScratchRoot) throws -> RequestID {
    var state = ConversationState.existing([.server("Hi", id: "s1", at: 1)])
    let question = RequestID(epoch: state.epoch, sequence: 1)
    _ = reducer.reduce(
      into: &state, action: .send(OutgoingMessage(clientID: "c0", text: "Where is it?", createdAt: .story(2))))
    _ = reducer.reduce(
      into: &state,
      action: .positioned(question, .sequence(1), .replyStarted(question, agent: nil, at: .story(3), replyID: "r1")))
    _ = reducer.reduce(into: &state, action: .positioned(question, .sequence(2), .replyDelta(question, "Half ")))
    let file = try root.scope().conversation("conv-1", replyWriteInterval: 1)
    try file.persist(state, changes: .reset, at: .story(5))
    let before = state
    _ = reducer.reduce(into: &state, action: .positioned(question, .sequence(3), .replyDelta(question, "an ans")))
    try file.persist(state, changes: state.changes(since: before), at: .story(5.1))
    return question
  }

  @Test("the stored cursor is the one written with the stored text, and the relaunch resumes from it")
  func resumesFromStoredCursor() throws {
    // Given a run killed mid-reply
    let root = ScratchRoot()
    _ = try killedMidReply(in: root)

    // When the app starts again: the reply comes back streaming, at the position of the text on disk
    var restored = try #require(try root.scope().conversation("conv-1").restored)
    let reply = try #require(restored.streamingReply)
    #expect(reply.text.string == "Half ")
    #expect(reply.resumePosition == .sequence(2))
    #expect(reply.resumption?.purpose == .send("c0"))

    // Then settling it keeps it streaming and asks, at once, for the rest from that cursor
    let settled = reducer.reduce(into: &restored, action: .relaunched)
    #expect(settled == [.startTimer(.replyResume, seconds: 0)])
    #expect(restored.streamingReply?.text.string == "Half ")
    #expect(!restored.messages.contains { $0.role == .assistant && $0.serverID != "s1" })
    let effects = reducer.reduce(into: &restored, action: .timerFired(.replyResume, at: .story(6)))
    let resume = try #require(restored.streamingReply?.requestID)
    #expect(
      effects == [.resumeReply(resume, ReplyCursor(conversationID: "conv-1", replyID: "r1", position: .sequence(2)))])

    // And a server that replays the whole stream shows each piece once
    let replay: [ConversationAction] = [
      .replyStarted(resume, agent: nil, at: .story(6), replyID: "r1"), .replyDelta(resume, "Half "),
      .replyDelta(resume, "an ans"), .replyDelta(resume, "wer."),
    ]
    for (index, action) in replay.enumerated() {
      _ = reducer.reduce(into: &restored, action: .positioned(resume, .sequence(UInt64(index + 1)), action))
    }
    _ = reducer.reduce(
      into: &restored,
      action: .replyFinished(
        resume, message: Message(clientID: "x", role: .assistant, text: "", createdAt: .story(7)), userMessageID: nil))
    let answer = try #require(restored.messages.last)
    #expect(answer.text == "Half an answer.")
    #expect(answer.reply == .completed)
    #expect(answer.clientID == reply.clientID)
    #expect(restored.invariantViolations() == [])
  }

  @Test("a client that reads the file after its store opened resumes the stored reply when the copy lands")
  func resumesWhenRestoredLate() throws {
    // Given the stored copy, settled as a client settles it (the effects of `.relaunched` are not run)
    let root = ScratchRoot()
    _ = try killedMidReply(in: root)
    var stored = try #require(try root.scope().conversation("conv-1").restored)
    _ = reducer.reduce(into: &stored, action: .relaunched)

    // When it lands in a store that opened restoring
    var state = ConversationState(conversationID: "conv-1")
    state.isRestoring = true
    let effects = reducer.reduce(into: &state, action: .restored(stored))

    // Then the reply streams on, and the rest is asked for from the stored cursor under a new request
    let requestID = try #require(state.streamingReply?.requestID)
    #expect(
      effects == [.resumeReply(requestID, ReplyCursor(conversationID: "conv-1", replyID: "r1", position: .sequence(2)))]
    )
    #expect(state.requests[requestID] == .send("c0"))
    #expect(state.streamingReply?.text.string == "Half ")
  }

  @Test("with resuming switched off, the relaunch ends the reply truncated with its text, as before")
  func resumingOff() throws {
    let root = ScratchRoot()
    _ = try killedMidReply(in: root)
    var restored = try #require(try root.scope().conversation("conv-1").restored)
    var policy = ChatPolicy()
    policy.replyResumeAttempts = 0
    let effects = ConversationReducer(policy: policy).reduce(into: &restored, action: .relaunched)
    #expect(effects == [])
    #expect(restored.streamingReply == nil)
    #expect(restored.messages.last?.text == "Half ")
    #expect(restored.messages.last?.reply == .truncated)
  }
}
