import ConversationState
import ConversationStore
import Foundation

/// Streaming text deltas: through the store, the in-place limit, and the common actor-and-array approach.
enum DeltaWorkloads {
  static let delta = "12345678"
  static let deltasPerReply = 1_000

  /// `deltas` deltas into a conversation of `history` messages, a new reply every 1,000, through a real
  /// store with one subscriber holding the latest snapshot.
  static func store(history: Int, deltas: Int) -> Workload {
    let base = Conversations.history(history)
    return Workload(name: "delta.store.h\(label(history))") {
      let store = Store(initialState: base, reducer: ConversationReducer())
      let subscriber = LatestSnapshotSubscriber(store)
      let nanoseconds = Harness.time {
        var turn = 0
        var remaining = deltas
        while remaining > 0 {
          let request = Conversations.openReply(on: store.state, turn: turn, send: { store.send($0) })
          for _ in 0..<min(deltasPerReply, remaining) { store.send(.replyDelta(request, delta)) }
          remaining -= deltasPerReply
          Conversations.finishReply(request, turn: turn, send: { store.send($0) })
          turn += 1
        }
      }
      let snapshots = await subscriber.finish(at: store.version)
      return WorkloadResult(ops: deltas, nanoseconds: nanoseconds, snapshots: snapshots)
    }
  }

  /// The same deltas as `store`, arriving over the realtime connection (keyed by the reply's server ID,
  /// checked against the live connection and stamped with the local time) instead of on a send's stream.
  static func realtime(history: Int, deltas: Int) -> Workload {
    var connected = Conversations.history(history)
    let connection = connected.beginRequest(.connect)
    connected.connection = .connected
    let base = connected
    return Workload(name: "delta.realtime.h\(label(history))") {
      let store = Store(initialState: base, reducer: ConversationReducer())
      let subscriber = LatestSnapshotSubscriber(store)
      let nanoseconds = Harness.time {
        var turn = 0
        var remaining = deltas
        while remaining > 0 {
          // The same timeline as `store`: each turn's reply starts and finishes later than the previous one.
          let reply = ServerMessageID("a\(turn)")
          let at = Conversations.start.addingTimeInterval(1_000_000 + Double(turn) * 10 + 1)
          store.send(
            .realtime("bench", .replyStarted(reply, agent: nil, at: at), connection: connection, receivedAt: at))
          for _ in 0..<min(deltasPerReply, remaining) {
            store.send(.realtime("bench", .replyDelta(reply, delta), connection: connection, receivedAt: at))
          }
          remaining -= deltasPerReply
          let answer = Message(
            clientID: ClientMessageID("a\(turn)"), serverID: reply, role: .assistant, text: "answer \(turn)",
            createdAt: at.addingTimeInterval(1))
          store.send(.realtime("bench", .replyFinished(reply, answer), connection: connection, receivedAt: at))
          turn += 1
        }
      }
      let snapshots = await subscriber.finish(at: store.version)
      return WorkloadResult(ops: deltas, nanoseconds: nanoseconds, snapshots: snapshots)
    }
  }

  /// The same deltas applied in place to a plain array of message structs: no store, no snapshot.
  static func bare(history: Int, deltas: Int) -> Workload {
    let base = (0..<history).map { Conversations.message($0) }
    return Workload(name: "delta.bare.h\(label(history))") {
      var messages = base
      // The copy-on-write copy of `base` happens here, untimed (it was the first append's, inside the timer).
      messages.reserveCapacity(history + deltas / deltasPerReply + 1)
      let nanoseconds = Harness.time {
        var remaining = deltas
        var turn = 0
        while remaining > 0 {
          messages.append(
            Message(clientID: ClientMessageID("a\(turn)"), role: .assistant, text: "", createdAt: Conversations.start))
          let last = messages.count - 1
          for _ in 0..<min(deltasPerReply, remaining) { messages[last].text += delta }
          remaining -= deltasPerReply
          turn += 1
        }
      }
      precondition(messages.count > history)
      return (deltas, nanoseconds)
    }
  }

  /// What users would otherwise write: an actor owning `[Message]` that yields each new state into an
  /// `AsyncStream(bufferingPolicy: .bufferingNewest(1))` read by one consumer.
  static func naive(history: Int, deltas: Int) -> Workload {
    let base = NaiveState(messages: (0..<history).map { Conversations.message($0) })
    return Workload(name: "delta.naive.h\(label(history))") {
      let (stream, continuation) = AsyncStream<NaiveState>.makeStream(bufferingPolicy: .bufferingNewest(1))
      let owner = NaiveChatActor(base, continuation)
      let consumer = Task {
        var latest: NaiveState?
        for await state in stream { latest = state }
        return latest?.messages.count ?? 0
      }
      let nanoseconds = await Harness.timeAsync {
        var remaining = deltas
        var turn = 0
        while remaining > 0 {
          await owner.startReply(turn)
          for _ in 0..<min(deltasPerReply, remaining) { await owner.append(delta) }
          remaining -= deltasPerReply
          turn += 1
        }
      }
      continuation.finish()
      _ = await consumer.value
      return (deltas, nanoseconds)
    }
  }

  /// The cost of one delta when the reply is already `replyBytes` long: batches of 100 deltas, each batch
  /// on a fresh reply pre-filled to that length (the pre-fill is not timed).
  static func longReply(bytes replyBytes: Int, deltas: Int, name: String) -> Workload {
    let prefill = String(repeating: "x", count: replyBytes)
    let base = Conversations.history(100)
    return Workload(name: name) {
      let store = Store(initialState: base, reducer: ConversationReducer())
      let subscriber = LatestSnapshotSubscriber(store)
      var nanoseconds: UInt64 = 0
      var turn = 0
      var remaining = deltas
      while remaining > 0 {
        let request = Conversations.openReply(on: store.state, turn: turn, send: { store.send($0) })
        store.send(.replyDelta(request, prefill))
        let batch = min(100, remaining)
        nanoseconds += Harness.time {
          for _ in 0..<batch { store.send(.replyDelta(request, delta)) }
        }
        Conversations.finishReply(request, turn: turn, send: { store.send($0) })
        remaining -= batch
        turn += 1
      }
      let snapshots = await subscriber.finish(at: store.version)
      return WorkloadResult(ops: deltas, nanoseconds: nanoseconds, snapshots: snapshots)
    }
  }

  static func label(_ count: Int) -> String {
    count >= 1_000 && count.isMultiple(of: 1_000) ? "\(count / 1_000)k" : "\(count)"
  }
}

struct NaiveState: Sendable {
  var messages: [Message]
}

actor NaiveChatActor {
  private var state: NaiveState
  private let continuation: AsyncStream<NaiveState>.Continuation

  init(_ state: NaiveState, _ continuation: AsyncStream<NaiveState>.Continuation) {
    self.state = state
    self.continuation = continuation
  }

  func startReply(_ turn: Int) {
    state.messages.append(
      Message(clientID: ClientMessageID("a\(turn)"), role: .assistant, text: "", createdAt: Conversations.start))
    continuation.yield(state)
  }

  func append(_ delta: String) {
    state.messages[state.messages.count - 1].text += delta
    continuation.yield(state)
  }
}
