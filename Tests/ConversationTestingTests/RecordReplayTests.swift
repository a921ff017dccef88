import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

@Suite("Record and replay", .hangGuard)
struct RecordReplayTests {
  @Test("a recorded 200-action session replays to the same state at every version")
  func recordAndReplay() async throws {
    let clock = TestClock()
    let replies = (0..<40).map { index in
      index % 7 == 3
        ? "Half an an|swer|<drop>"
        : "Sure|, here |is answer \(index)|<tool lookup>|<result lookup {\"n\":\(index)}>|.|<finish>"
    }
    let backend = try ScriptedBackend(clock: clock, replies: replies, interval: 0.1)
    let recorder = ActionRecorder<ConversationReducer>(keepsStates: true)
    let initial = ConversationState(conversationID: "conv-1")
    let store = Store(
      initial, reducer: recorder.reducer(ConversationReducer()), backend: backend,
      environment: .deterministic(clock: clock, jitter: 0.25))

    store.send(.connect)
    #expect(await clock.run { store.state.connection == .connected })
    var turn = 0
    while recorder.actions.count < 200 {
      store.send(.setDraft("question \(turn)"))
      store.sendMessage("question \(turn)")
      #expect(await clock.run { store.state.isSettled })
      if let answer = store.state.messages.last(where: { $0.role == .assistant && $0.serverID != nil }) {
        store.send(.rateAnswer(answer.clientID, turn.isMultiple(of: 2) ? .up : .down))
        if let serverID = answer.serverID { store.send(.markRead(upTo: serverID)) }
      }
      store.send(.setTyping(turn.isMultiple(of: 3)))
      #expect(await clock.run { store.state.isSettled })
      turn += 1
    }
    // A timer the last turn fired may still deliver its action on another thread; closing the store refuses
    // it, so the log, the recorded states and the store's own state all stop at the same version.
    store.close()

    let log = try recorder.json()
    let replayed = try ActionRecorder<ConversationReducer>.replay(log, from: initial, with: ConversationReducer())
    let recorded = recorder.states

    #expect(recorded.count >= 200)
    try #require(replayed.count == recorded.count)
    #expect(store.version == UInt64(recorded.count))
    for version in recorded.indices where replayed[version] != recorded[version] {
      Issue.record(
        Comment(
          rawValue: "version \(version + 1) differs after replay:\n  "
            + StateDiff.lines(expected: recorded[version], actual: replayed[version]).joined(separator: "\n  ")))
      return
    }
    #expect(replayed.last == store.state)
    #expect(store.state.messages.count == 2 * turn, "each turn leaves a question and an answer")
  }
}
