import ConversationState
import ConversationStore
import Foundation

/// History paging, sends and fan-out.
enum TimelineWorkloads {
  /// One 50-message older page (10 of them duplicates) put in front of a `history`-message conversation,
  /// while a snapshot of the conversation before the merge is held.
  static func pageMerge(history: Int, pages: Int) -> Workload {
    let base = Conversations.history(history)
    let page = HistoryPage(
      messages: (1...40).map { Conversations.message(-$0) } + (0..<10).map { Conversations.message($0) },
      nextCursor: "older", hasMore: true)
    let reducer = ConversationReducer()
    return Workload(name: "page.merge.h\(DeltaWorkloads.label(history))") {
      var held: [ConversationState] = []
      held.reserveCapacity(pages)
      var nanoseconds: UInt64 = 0
      for _ in 0..<pages {
        var state = base
        let request = RequestID(epoch: state.epoch, sequence: state.requestSequence + 1)
        _ = reducer.reduce(into: &state, action: .loadMoreHistory(pageSize: 50))
        held.append(state)  // the snapshot a subscriber holds while the page arrives
        nanoseconds += Harness.time { _ = reducer.reduce(into: &state, action: .historyLoaded(request, page)) }
        precondition(state.messages.count == history + 40)
      }
      return (pages, nanoseconds)
    }
  }

  /// An optimistic send, its confirmation and its realtime echo on a `history`-message conversation,
  /// through a store with one subscriber. The turns' messages and IDs are made before the timer starts: a
  /// host's own strings are not the store's cost.
  static func sendConfirm(history: Int, sends: Int) -> Workload {
    let base = Conversations.history(history)
    return Workload(name: "send.confirm.h\(DeltaWorkloads.label(history))") {
      let turns = (0..<sends).map { turn in
        let clientID = ClientMessageID("send\(turn)")
        let at = Conversations.start.addingTimeInterval(2_000_000 + Double(turn))
        let confirmed = Message(
          clientID: clientID, serverID: ServerMessageID("send\(turn)"), role: .user, text: "hello \(turn)",
          createdAt: at)
        return SendTurn(
          request: RequestID(epoch: base.epoch, sequence: UInt64(turn) + 1),
          outgoing: OutgoingMessage(clientID: clientID, text: confirmed.text, createdAt: at), confirmed: confirmed)
      }
      let store = Store(initialState: base, reducer: ConversationReducer())
      let subscriber = LatestSnapshotSubscriber(store)
      let nanoseconds = Harness.time {
        for turn in turns {
          store.send(.send(turn.outgoing))
          store.send(.sendAccepted(turn.request, confirmed: turn.confirmed, conversationID: "bench"))
          store.send(.realtime("bench", .messageCreated(turn.confirmed)))
          store.send(.replyEnded(turn.request))
        }
      }
      precondition(store.state.messages.count == history + sends, "every send confirmed exactly once")
      let snapshots = await subscriber.finish(at: store.version)
      return WorkloadResult(ops: sends, nanoseconds: nanoseconds, snapshots: snapshots)
    }
  }

  /// One turn's values, made before the timer starts. A struct, not a tuple: a tuple of these types is copied
  /// through the runtime's generic tuple witness (about 400 instructions a copy, 6 copies a turn), which is
  /// the benchmark's cost, not the store's.
  struct SendTurn {
    let request: RequestID
    let outgoing: OutgoingMessage
    let confirmed: Message
  }

  /// The floor under a send turn: four actions through the same store, with the same subscriber, that
  /// change the state without touching a message (the draft, as the user types). What a turn costs above
  /// this is the work of putting one message in the list and confirming it.
  static func sendFloor(history: Int, turns: Int) -> Workload {
    let base = Conversations.history(history)
    // Every state differs from every earlier one: a snapshot equal to the last one delivered is skipped, and
    // the subscriber would never see the last version.
    let drafts = (0..<turns * 4).map { "draft \($0)" }
    return Workload(name: "send.floor.h\(DeltaWorkloads.label(history))") {
      let store = Store(initialState: base, reducer: ConversationReducer())
      let subscriber = LatestSnapshotSubscriber(store)
      let nanoseconds = Harness.time {
        for draft in drafts { store.send(.setDraft(draft)) }
      }
      let snapshots = await subscriber.finish(at: store.version)
      return WorkloadResult(ops: turns, nanoseconds: nanoseconds, snapshots: snapshots)
    }
  }

  /// Per-action cost with `subscribers` concurrent subscribers: streamed deltas through one store.
  /// With `asStream`, the subscribers read `snapshotStream()` (an `AsyncStream`) instead of `snapshots()`.
  static func fanout(subscribers count: Int, deltas: Int, asStream: Bool = false) -> Workload {
    let base = Conversations.history(1_000)
    return Workload(name: asStream ? "fanout.stream.s\(count)" : "fanout.s\(count)") {
      let store = Store(initialState: base, reducer: ConversationReducer())
      let subscribers = (0..<count).map { _ in LatestSnapshotSubscriber(store, asStream: asStream) }
      let request = Conversations.openReply(on: store.state, turn: 0, send: { store.send($0) })
      let nanoseconds = Harness.time {
        for _ in 0..<deltas { store.send(.replyDelta(request, DeltaWorkloads.delta)) }
      }
      var snapshots = 0
      for subscriber in subscribers { snapshots += await subscriber.finish(at: store.version) }
      return WorkloadResult(ops: deltas, nanoseconds: nanoseconds, snapshots: snapshots)
    }
  }

  /// A realtime new-message event that moves a conversation to the top of a `count`-conversation list,
  /// through a list store with one subscriber.
  static func listRealtime(conversations count: Int, events: Int) -> Workload {
    let base = ListWorkloads.list(count)
    return Workload(name: "list.realtime.c\(DeltaWorkloads.label(count))") {
      let store = Store(initialState: base, reducer: ConversationListReducer())
      let subscriber = LatestSnapshotSubscriber(store)
      let nanoseconds = Harness.time {
        for event in 0..<events { store.send(.realtime(ListWorkloads.move(event, in: count))) }
      }
      let snapshots = await subscriber.finish(at: store.version)
      return WorkloadResult(ops: events, nanoseconds: nanoseconds, snapshots: snapshots)
    }
  }
}
