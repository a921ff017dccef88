import ConversationState
import ConversationStore
import Foundation

/// Switching between sibling answers (#52): what the user's ‹ › costs on a long conversation.
enum BranchWorkloads {
  /// `branch.switch.h<history>`: the newest answer of a `history`-message conversation has a sibling (it was
  /// regenerated); one operation is one `showSibling` through a store, alternately `.previous` and `.next`,
  /// then the subscriber's wake, as `frame.delta` times it. Every switch must be a frame with a change: a
  /// refused one (`userError`, no row changed) would not count as one, and the run stops.
  static func showSibling(history: Int, switches: Int) -> Workload {
    let (base, newest, older) = regenerated(history)
    let actions: [ConversationAction] = [.showSibling(of: newest, .previous), .showSibling(of: older, .next)]
    return Workload(name: "branch.switch.h\(DeltaWorkloads.label(history))") {
      let store = Store(initialState: base, reducer: ConversationReducer())
      var subscriber = FrameSubscriber(store)
      let nanoseconds = Harness.time {
        for index in 0..<switches {
          store.send(actions[index & 1])
          subscriber.wake(store)
        }
      }
      let state = store.state
      precondition(state.userError == nil, "a switch was refused: \(String(describing: state.userError))")
      precondition(subscriber.frames == switches, "every switch is a frame (\(subscriber.frames) of \(switches))")
      precondition(state.branches.place(of: switches.isMultiple(of: 2) ? newest : older) != nil)
      return WorkloadResult(ops: switches, nanoseconds: nanoseconds, snapshots: subscriber.frames)
    }
  }

  /// A `history`-message conversation whose newest answer was regenerated as a user does it: the new answer
  /// is shown, second of two. Returns the state and the client IDs of the new answer and the old one, having
  /// checked once that a switch is made (the fork is in memory, `place(of:)` moves).
  private static func regenerated(_ history: Int) -> (ConversationState, ClientMessageID, ClientMessageID) {
    let reducer = ConversationReducer()
    var state = Conversations.history(history)
    guard let old = state.messages.lastCommitted, old.role == .assistant else { fatalError("no answer to regenerate") }
    let request = RequestID(epoch: state.epoch, sequence: state.requestSequence + 1)
    let at = Conversations.start.addingTimeInterval(3_000_000)
    for action: ConversationAction in [
      .regenerate(old.clientID), .replyStarted(request, agent: nil, at: at), .replyDelta(request, "answer again"),
      .replyFinished(
        request,
        message: Message(
          clientID: "regenerated", serverID: "regenerated", role: .assistant, text: "answer again", createdAt: at)),
    ] { _ = reducer.reduce(into: &state, action: action) }
    guard let newest = state.messages.lastCommitted?.clientID,
      state.branches.place(of: newest) == ConversationBranches.Place(index: 1, count: 2), state.isSettled
    else { fatalError("the regeneration made no sibling: \(String(describing: state.userError))") }
    var switched = state
    _ = reducer.reduce(into: &switched, action: .showSibling(of: newest, .previous))
    precondition(
      switched.userError == nil && switched.branches.place(of: old.clientID)?.index == 0,
      "a switch on h\(history) is not made: \(String(describing: switched.userError))")
    return (state, newest, old.clientID)
  }
}
