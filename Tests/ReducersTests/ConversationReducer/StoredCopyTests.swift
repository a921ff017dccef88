import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// The client's two decisions about conversations it is not running, as the reducer makes them.
@Suite("Stored copies: brought back for this run, and the end of a person's queue")
struct StoredCopyTests {
  let reducer = ConversationReducer()

  /// A conversation the last run left with one message sending, and two waiting while offline.
  func leftByTheLastRun() -> ConversationState {
    let chat = Chat.existing([.server("Hi, how can I help?", id: "s1", at: 1)])
    chat.connected()
    chat.userSends("was on its way", id: "c1", at: 2)
    chat.send(.disconnect)
    chat.userSends("written offline, in the outbox", id: "c2", at: 3)
    chat.userSends("written offline, not in the outbox", id: "c3", at: 4)
    return chat.state
  }

  @Test("a stored copy comes back with nothing in flight, and what the outbox holds shows queued, not resent")
  func settledForThisRun() {
    // Given the copy the last run left, and an outbox that holds c2
    let stored = leftByTheLastRun()

    // When this run takes it
    let state = reducer.settledForThisRun(stored, inOutbox: ["c2"])

    // Then nothing of the last run is in flight, the message that was on its way can be retried, c2 waits in
    // the outbox, and c3 waits to be sent
    #expect(state.requests.isEmpty)
    guard case .failed(let error) = state.messages[clientID: "c1"]?.delivery else {
      Issue.record("a message that was sending comes back failed")
      return
    }
    #expect(error.retryable)
    #expect(state.messages[clientID: "c2"]?.delivery == .queued)
    #expect(state.messages[clientID: "c3"]?.delivery == .pending)
    #expect(state.invariantViolations().isEmpty)
  }

  @Test("the end of a person's queue fails this conversation's queued messages, and nothing else")
  func endingQueue() {
    // Given a copy whose c2 waits in the outbox
    let state = reducer.settledForThisRun(leftByTheLastRun(), inOutbox: ["c2"])
    let queued = { (id: ClientMessageID, conversation: ConversationID) in
      OutboxOperation(
        id: OutboxOperationID(rawValue: "op-\(id)"), conversationID: conversation,
        kind: .send(OutgoingMessage(clientID: id, text: "…", createdAt: .story(3))), enqueuedAt: .story(3))
    }

    // When the person signs out with c2, another conversation's message and one this copy does not hold queued
    let dropped = ChatError(.outboxEvicted, "Signing out ended the queue this was waiting in.")
    let ended = reducer.endingQueue(
      state, dropping: [queued("c2", "conv-1"), queued("c9", "conv-2"), queued("c8", "conv-1")], with: dropped)

    // Then c2 is failed with the reason, ready to retry when they come back, and nothing else changed
    #expect(ended.messages[clientID: "c2"]?.delivery == .failed(dropped))
    #expect(ended.messages.map(\.clientID) == state.messages.map(\.clientID))
    #expect(ended.messages.filter { $0.clientID != "c2" } == state.messages.filter { $0.clientID != "c2" })
  }
}

/// A file of conversation c42, as `settledForThisRun`'s example reads it.
private struct StoredFile {
  var restored: ConversationState?
}

@Test("settledForThisRun's example: a stored copy, settled, goes to the store as restored")
func settledForThisRunExample() {
  let reducer = ConversationReducer()
  let file = StoredFile(restored: .existing(id: "c42"))
  let store = ConversationTestStore(ConversationState(conversationID: "c42"), exhaustivity: .off)
  store.arrange { $0.isRestoring = true }
  // DOCC-SETTLED-FOR-THIS-RUN-BEGIN
  let copy = reducer.settledForThisRun(file.restored!, inOutbox: ["m-7"])
  store.send(.restored(copy))
  // DOCC-SETTLED-FOR-THIS-RUN-END
  #expect(!store.state.isRestoring)
}
