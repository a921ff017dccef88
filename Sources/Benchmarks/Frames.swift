import ConversationState
import ConversationStore
import Foundation
import Synchronization

/// What a UI pays per frame, not per burst: after each delta the subscriber's whole wake (read the state,
/// compare it with the one it drew, compute the change set) on the same thread, timed together with the
/// send. Every delta is a frame here, so the snapshot count equals the delta count.
enum FrameWorkloads {
  /// `frame.delta.h<history>`: one delta, then the subscriber's wake. `frame.parts.h<history>` (`inParts`):
  /// the same with a reply in parts, a reasoning and a text part open together, their deltas alternating.
  static func delta(history: Int, deltas: Int, inParts: Bool = false) -> Workload {
    let base = Conversations.history(history)
    let kind = inParts ? "parts" : "delta"
    return Workload(name: "frame.\(kind).h\(DeltaWorkloads.label(history))") {
      let store = Store(initialState: base, reducer: ConversationReducer())
      var subscriber = FrameSubscriber(store)
      let nanoseconds = Harness.time {
        stream(deltas: deltas, inParts: inParts, on: store) {
          subscriber.wake(store)
        } between: {
          subscriber.skip(to: store)
        }
      }
      let frames = subscriber.frames
      precondition(frames == deltas, "every delta is a frame with a change (\(frames) of \(deltas))")
      return WorkloadResult(ops: deltas, nanoseconds: nanoseconds, snapshots: frames)
    }
  }

  /// `frame.append.h<history>`: `delta`'s frame, and then what a UI does with it: the subscriber reads the
  /// reply's new text with `appended(since:)` (the text it drew last time as `since`), as it appends to its
  /// text view instead of setting the whole reply. The first frame of each reply sets the whole text.
  static func append(history: Int, deltas: Int) -> Workload {
    let base = Conversations.history(history)
    return Workload(name: "frame.append.h\(DeltaWorkloads.label(history))") {
      let store = Store(initialState: base, reducer: ConversationReducer())
      var subscriber = FrameSubscriber(store)
      var shown: StreamedText?
      var shownBytes = 0
      let nanoseconds = Harness.time {
        stream(deltas: deltas, inParts: false, on: store) {
          subscriber.wake(store)
          guard let text = subscriber.drawn.streamingReply?.text else { return }
          if let shown, let tail = text.appended(since: shown) {
            shownBytes += tail.utf8.count
          } else {
            shownBytes += text.string.utf8.count
          }
          shown = text
        } between: {
          subscriber.skip(to: store)
          shown = nil
        }
      }
      let frames = subscriber.frames
      precondition(frames == deltas, "every delta is a frame with a change (\(frames) of \(deltas))")
      let streamed = deltas * DeltaWorkloads.delta.utf8.count
      precondition(shownBytes == streamed, "the view took \(shownBytes) bytes of \(streamed)")
      return WorkloadResult(ops: deltas, nanoseconds: nanoseconds, snapshots: frames)
    }
  }

  /// `hold.delta.h10k`: a snapshot (a copy of the state) taken after every delta and held while the next
  /// delta is applied, as a UI holding its last frame does; `hold.parts.h10k` (`inParts`) with a reply in
  /// parts, as `delta` has it.
  static func hold(history: Int, deltas: Int, inParts: Bool = false) -> Workload {
    let base = Conversations.history(history)
    let kind = inParts ? "parts" : "delta"
    return Workload(name: "hold.\(kind).h\(DeltaWorkloads.label(history))") {
      let store = Store(initialState: base, reducer: ConversationReducer())
      var held = store.state
      var taken = 0
      let nanoseconds = Harness.time {
        stream(deltas: deltas, inParts: inParts, on: store) {
          held = store.state
          taken += 1
        } between: {
        }
      }
      precondition(held.messages.count >= history)
      return WorkloadResult(ops: deltas, nanoseconds: nanoseconds, snapshots: taken)
    }
  }

  /// Replies of `DeltaWorkloads.deltasPerReply` deltas each, `afterDelta` run after every one and `between`
  /// after each reply finishes. In parts, each reply opens a reasoning and a text part and alternates.
  private static func stream(
    deltas: Int, inParts: Bool, on store: Store<ConversationReducer>, afterDelta: () -> Void, between: () -> Void
  ) {
    let thinking: PartID = "reasoning"
    let answer: PartID = "text"
    var turn = 0
    var remaining = deltas
    while remaining > 0 {
      let request = Conversations.openReply(on: store.state, turn: turn, send: { store.send($0) })
      if inParts {
        store.send(.replyPartStarted(request, thinking, .reasoning))
        store.send(.replyPartStarted(request, answer, .text))
      }
      for index in 0..<min(DeltaWorkloads.deltasPerReply, remaining) {
        if inParts {
          store.send(.replyPartDelta(request, index.isMultiple(of: 2) ? thinking : answer, DeltaWorkloads.delta))
        } else {
          store.send(.replyDelta(request, DeltaWorkloads.delta))
        }
        afterDelta()
      }
      remaining -= DeltaWorkloads.deltasPerReply
      Conversations.finishReply(request, turn: turn, send: { store.send($0) })
      between()
      turn += 1
    }
  }

  /// `frame.list.noop.c<count>`: an action that changes nothing (`clearError` with no error), then the
  /// list subscriber's wake.
  static func listNoop(conversations count: Int, actions: Int) -> Workload {
    let base = ListWorkloads.list(count)
    return Workload(name: "frame.list.noop.c\(DeltaWorkloads.label(count))") {
      let store = Store(initialState: base, reducer: ConversationListReducer())
      var subscriber = FrameSubscriber(store)
      let nanoseconds = Harness.time {
        for _ in 0..<actions {
          store.send(.clearError)
          subscriber.wake(store)
        }
      }
      precondition(subscriber.drawn == base, "a no-op must not change the list")
      return WorkloadResult(ops: actions, nanoseconds: nanoseconds, snapshots: subscriber.frames)
    }
  }

  /// `frame.list.realtime.c10k`: a message event that moves a conversation to the top, then the wake.
  static func listRealtime(conversations count: Int, events: Int) -> Workload {
    let base = ListWorkloads.list(count)
    return Workload(name: "frame.list.realtime.c\(DeltaWorkloads.label(count))") {
      let store = Store(initialState: base, reducer: ConversationListReducer())
      var subscriber = FrameSubscriber(store)
      let nanoseconds = Harness.time {
        for event in 0..<events {
          store.send(.realtime(ListWorkloads.move(event, in: count)))
          subscriber.wake(store)
        }
      }
      return WorkloadResult(ops: events, nanoseconds: nanoseconds, snapshots: subscriber.frames)
    }
  }
}

/// A subscriber's wake, done on the sender's thread: read the state, compare it with the frame drawn, and
/// compute the change set when it differs.
struct FrameSubscriber<R: Reducer> where R.State: ChangeTracking & Equatable {
  private(set) var drawn: R.State
  /// Frames that showed a change of rows.
  private(set) var frames = 0

  init(_ store: Store<R>) { drawn = store.state }

  mutating func wake(_ store: Store<R>) {
    let state = store.state
    guard state != drawn else { return }
    if !state.changes(since: drawn).isEmpty { frames += 1 }
    drawn = state
  }

  /// Takes the store's state as drawn without timing a wake (between replies).
  mutating func skip(to store: Store<R>) { drawn = store.state }
}

/// The list the list workloads share.
enum ListWorkloads {
  static func list(_ count: Int) -> ConversationListState {
    var list = ConversationListState()
    list.conversations = ConversationList(
      (0..<count).map { index in
        ConversationSummary(
          id: ConversationID("conv\(index)"), title: "Conversation \(index)",
          lastActivityAt: Conversations.start.addingTimeInterval(-Double(index)))
      })
    list.hasLoaded = true
    return list
  }

  /// A message in a conversation picked with a stride, so most events move one from deep in the list.
  static func move(_ event: Int, in count: Int) -> ConversationListEvent {
    .messageCreated(
      ConversationID("conv\((event &* 7_919) % count)"), preview: "New message", role: .assistant,
      at: Conversations.start.addingTimeInterval(Double(event)))
  }
}
