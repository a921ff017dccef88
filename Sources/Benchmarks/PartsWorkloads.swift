import ConversationState
import ConversationStore

/// A reply in parts, as AG-UI and the AI SDK stream it: a reasoning part and a text part open together,
/// their deltas alternating. Measured beside `frame.delta` and `hold.delta` (one plain text), so the ratio
/// says what streaming in parts costs per delta.
enum PartsWorkloads {
  /// `frame.parts.h<history>`: one part delta (reasoning and text alternating), then the subscriber's wake.
  static func frame(history: Int, deltas: Int) -> Workload {
    let base = Conversations.history(history)
    return Workload(name: "frame.parts.h\(DeltaWorkloads.label(history))") {
      let store = Store(initialState: base, reducer: ConversationReducer())
      var subscriber = FrameSubscriber(store)
      let nanoseconds = Harness.time {
        stream(deltas: deltas, on: store) {
          subscriber.wake(store)
        } between: {
          subscriber.skip(to: store)
        }
      }
      precondition(subscriber.frames == deltas, "every part delta is a frame (\(subscriber.frames) of \(deltas))")
      return WorkloadResult(ops: deltas, nanoseconds: nanoseconds, snapshots: subscriber.frames)
    }
  }

  /// `hold.parts.h<history>`: a snapshot taken after every part delta and held while the next is applied.
  static func hold(history: Int, deltas: Int) -> Workload {
    let base = Conversations.history(history)
    return Workload(name: "hold.parts.h\(DeltaWorkloads.label(history))") {
      let store = Store(initialState: base, reducer: ConversationReducer())
      var held = store.state
      var taken = 0
      let nanoseconds = Harness.time {
        stream(deltas: deltas, on: store) {
          held = store.state
          taken += 1
        } between: {
        }
      }
      precondition(held.messages.count >= history)
      return WorkloadResult(ops: deltas, nanoseconds: nanoseconds, snapshots: taken)
    }
  }

  /// Replies of `DeltaWorkloads.deltasPerReply` part deltas each, `afterDelta` run after every one and
  /// `between` after each reply finishes.
  private static func stream(
    deltas: Int, on store: Store<ConversationReducer>, afterDelta: () -> Void, between: () -> Void
  ) {
    let thinking: PartID = "reasoning"
    let answer: PartID = "text"
    var turn = 0
    var remaining = deltas
    while remaining > 0 {
      let request = Conversations.openReply(on: store.state, turn: turn, send: { store.send($0) })
      store.send(.replyPartStarted(request, thinking, .reasoning))
      store.send(.replyPartStarted(request, answer, .text))
      for index in 0..<min(DeltaWorkloads.deltasPerReply, remaining) {
        store.send(.replyPartDelta(request, index.isMultiple(of: 2) ? thinking : answer, DeltaWorkloads.delta))
        afterDelta()
      }
      remaining -= DeltaWorkloads.deltasPerReply
      Conversations.finishReply(request, turn: turn, send: { store.send($0) })
      between()
      turn += 1
    }
  }
}
