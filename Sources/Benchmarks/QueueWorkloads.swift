import ConversationState
import ConversationStore
import Foundation

/// Follow-ups written while the agent answers (#53): what draining the queue costs on a long conversation.
enum QueueWorkloads {
  /// `queue.drain.h<history>`: ten follow-ups wait behind a streaming answer; one operation is one turn of
  /// the queue: the answer before finishes (which sends the next follow-up), the server accepts that
  /// follow-up and starts its answer, the user writes one more (queued, so ten keep waiting), then the
  /// subscriber's wake.
  static func drain(history: Int, turns: Int) -> Workload {
    let waiting = 10
    let base = Conversations.history(history)
    return Workload(name: "queue.drain.h\(DeltaWorkloads.label(history))") {
      let store = Store(initialState: base, reducer: ConversationReducer())
      let at = Conversations.start.addingTimeInterval(4_000_000)
      var request = RequestID(epoch: base.epoch, sequence: base.requestSequence + 1)
      store.send(.send(OutgoingMessage(clientID: "q0", text: "first", createdAt: at)))
      store.send(
        .sendAccepted(
          request, confirmed: Message(clientID: "q0", serverID: "q0", role: .user, text: "first", createdAt: at),
          conversationID: "bench"))
      store.send(.replyStarted(request, agent: nil, at: at))
      let written = (1...turns + waiting).map { turn in
        OutgoingMessage(clientID: ClientMessageID("q\(turn)"), text: "next \(turn)", createdAt: at)
      }
      for turn in written.prefix(waiting) { store.send(.send(turn)) }
      precondition(store.state.followUps.turns.count == waiting, "every follow-up is queued")
      let answers = (0..<turns).map { turn in
        Message(
          clientID: ClientMessageID("a\(turn)"), serverID: ServerMessageID("a\(turn)"), role: .assistant,
          text: "answer \(turn)", createdAt: at.addingTimeInterval(Double(turn)))
      }
      let questions = (1...turns).map { turn in
        Message(
          clientID: ClientMessageID("q\(turn)"), serverID: ServerMessageID("q\(turn)"), role: .user,
          text: "next \(turn)", createdAt: at.addingTimeInterval(Double(turn)))
      }
      var subscriber = FrameSubscriber(store)
      let nanoseconds = Harness.time {
        for turn in 0..<turns {
          store.send(.replyFinished(request, message: answers[turn]))
          // The follow-up went out under the next request ID the store minted.
          request = RequestID(epoch: base.epoch, sequence: request.sequence + 1)
          store.send(.sendAccepted(request, confirmed: questions[turn], conversationID: "bench"))
          store.send(.replyStarted(request, agent: nil, at: at))
          store.send(.send(written[waiting + turn]))
          subscriber.wake(store)
        }
      }
      let state = store.state
      precondition(state.followUps.turns.count == waiting, "\(state.followUps.turns.count) wait, not \(waiting)")
      precondition(state.messages.count == history + 1 + 2 * turns, "each turn asked and answered once")
      return WorkloadResult(ops: turns, nanoseconds: nanoseconds, snapshots: subscriber.frames)
    }
  }
}
