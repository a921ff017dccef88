import ConversationState
import Foundation
import Synchronization

/// Plain-Swift references measured in the same run, so each ratio compares the store with the simplest
/// code that does the same job on this machine at this minute.
enum ReferenceWorkloads {
  /// `ref.array.delta.h10k`: a `String` appended in a struct behind a lock, read after every delta.
  static func arrayDelta(history: Int, deltas: Int) -> Workload {
    struct Chat {
      var messages: [Message]
      var reply = ""
    }
    let base = Chat(messages: (0..<history).map { Conversations.message($0) })
    return Workload(name: "ref.array.delta.h\(DeltaWorkloads.label(history))") {
      let chat = Mutex(base)
      var seen = 0
      let nanoseconds = Harness.time {
        for _ in 0..<deltas {
          chat.withLock { $0.reply += DeltaWorkloads.delta }
          seen = chat.withLock { $0.reply.utf8.count }
        }
      }
      precondition(seen > 0)
      return (deltas, nanoseconds)
    }
  }

  /// `ref.array.send.h100k`: append a message and confirm it, in a plain array, in place.
  static func arraySend(history: Int, sends: Int) -> Workload {
    let base = (0..<history).map { Conversations.message($0) }
    return Workload(name: "ref.array.send.h\(DeltaWorkloads.label(history))") {
      var messages = base
      messages.reserveCapacity(history + sends)  // the copy-on-write copy happens here, untimed: in place below
      let nanoseconds = Harness.time {
        for turn in 0..<sends {
          let at = Conversations.start.addingTimeInterval(2_000_000 + Double(turn))
          messages.append(
            Message(
              clientID: ClientMessageID("send\(turn)"), role: .user, text: "hello \(turn)", createdAt: at,
              delivery: .sending))
          messages[messages.count - 1].serverID = ServerMessageID("send\(turn)")
          messages[messages.count - 1].delivery = .sent
        }
      }
      precondition(messages.count == history + sends)
      return (sends, nanoseconds)
    }
  }

  /// `ref.array.page.h100k`: append a 1,000-message page to a plain array (the cheapest merge there is).
  static func arrayPage(history: Int, pages: Int) -> Workload {
    let base = (0..<history).map { Conversations.message($0) }
    let page = (0..<1_000).map { Conversations.message(-1 - $0) }
    return Workload(name: "ref.array.page.h\(DeltaWorkloads.label(history))") {
      var messages = base
      messages.reserveCapacity(history + pages * 1_000)  // the copy happens here, untimed
      let nanoseconds = Harness.time {
        for _ in 0..<pages { messages.append(contentsOf: page) }
      }
      precondition(messages.count == history + pages * 1_000)
      return (pages, nanoseconds)
    }
  }

  /// `ref.state.read`: reading a 7-field struct behind a lock.
  static func stateRead(reads: Int) -> Workload {
    struct Small {
      var a = 1
      var b = "two"
      var c = 3.0
      var d = true
      var e: Int? = 5
      var f = [6]
      var g = Date()
    }
    return Workload(name: "ref.state.read") {
      let state = Mutex(Small())
      var held = Small()
      let nanoseconds = Harness.time { for _ in 0..<reads { held = state.withLock { $0 } } }
      precondition(held.a == 1)
      return (reads, nanoseconds)
    }
  }

  /// `delta.naive2.h10k`: the better naive design: an actor whose reply is its own `String` beside the
  /// messages, yielding `(messages, reply)` into an `AsyncStream` read by one consumer.
  static func naive2(history: Int, deltas: Int) -> Workload {
    let base = (0..<history).map { Conversations.message($0) }
    return Workload(name: "delta.naive2.h\(DeltaWorkloads.label(history))") {
      let (stream, continuation) = AsyncStream<NaiveFrame>.makeStream(bufferingPolicy: .bufferingNewest(1))
      let owner = NaiveReplyActor(base, continuation)
      let consumer = Task {
        var frames = 0
        for await _ in stream { frames += 1 }
        return frames
      }
      let nanoseconds = await Harness.timeAsync {
        for _ in 0..<deltas { await owner.append(DeltaWorkloads.delta) }
      }
      continuation.finish()
      let frames = await consumer.value
      return WorkloadResult(ops: deltas, nanoseconds: nanoseconds, snapshots: frames)
    }
  }
}

struct NaiveFrame: Sendable {
  var messages: [Message]
  var reply: String
}

actor NaiveReplyActor {
  private var frame: NaiveFrame
  private let continuation: AsyncStream<NaiveFrame>.Continuation

  init(_ messages: [Message], _ continuation: AsyncStream<NaiveFrame>.Continuation) {
    frame = NaiveFrame(messages: messages, reply: "")
    self.continuation = continuation
  }

  func append(_ delta: String) {
    frame.reply += delta
    continuation.yield(frame)
  }
}
