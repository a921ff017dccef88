import ConversationState
import ConversationStore
import Foundation
import Synchronization

/// Builders for the states the workloads start from.
enum Conversations {
  static let start = Date(timeIntervalSince1970: 1_750_000_000)

  /// A message as the server delivers it. Its text is sized exactly, as a decoder makes it: a string built by
  /// interpolation keeps its buffer's spare capacity (about 60 bytes here), which `mem.store` would count
  /// as the store's.
  static func message(_ index: Int, role: Role? = nil) -> Message {
    let role = role ?? (index.isMultiple(of: 2) ? .user : .assistant)
    let line = "Message number \(index), long enough to look like a real chat line."
    return Message(
      clientID: ClientMessageID("c\(index)"), serverID: ServerMessageID("s\(index)"), role: role,
      text: String(decoding: Array(line.utf8), as: UTF8.self),
      createdAt: start.addingTimeInterval(Double(index)), reply: role == .assistant ? .completed : nil)
  }

  /// An existing conversation with `count` committed messages, all read.
  static func history(_ count: Int) -> ConversationState {
    var state = ConversationState(conversationID: "bench")
    for index in 0..<count { state.messages.commit(message(index)) }
    if let last = state.messages.lastCommitted, let serverID = last.serverID {
      state.readCursor = ReadCursor(messageID: serverID, orderKey: last.orderKey)
    }
    return state
  }

  /// The actions that open a new reply after the existing messages: a send, its confirmation and the
  /// reply's start. Returns the reply's request ID.
  static func openReply(on state: ConversationState, turn: Int, send: (ConversationAction) -> Void) -> RequestID {
    let requestID = RequestID(epoch: state.epoch, sequence: state.requestSequence + 1)
    let clientID = ClientMessageID("q\(turn)")
    let at = start.addingTimeInterval(1_000_000 + Double(turn) * 10)
    send(.send(OutgoingMessage(clientID: clientID, text: "question \(turn)", createdAt: at)))
    send(
      .sendAccepted(
        requestID,
        confirmed: Message(
          clientID: clientID, serverID: ServerMessageID("q\(turn)"), role: .user, text: "question \(turn)",
          createdAt: at),
        conversationID: "bench"))
    send(.replyStarted(requestID, agent: nil, at: at.addingTimeInterval(1)))
    return requestID
  }

  static func finishReply(_ requestID: RequestID, turn: Int, send: (ConversationAction) -> Void) {
    let answer = Message(
      clientID: ClientMessageID("a\(turn)"), serverID: ServerMessageID("a\(turn)"), role: .assistant,
      text: "answer \(turn)", createdAt: start.addingTimeInterval(1_000_000 + Double(turn) * 10 + 2))
    send(.replyFinished(requestID, message: answer))
  }
}

/// A subscriber as a UI that diffs against its previous frame has one: it keeps the latest snapshot.
final class LatestSnapshotSubscriber<R: Reducer>: Sendable where R.State: ChangeTracking & Equatable {
  private final class Seen: Sendable {
    let version = Atomic<UInt64>(0)
    let snapshots = Atomic<Int>(0)
  }
  private let seen = Seen()
  private let task: Task<Void, Never>

  /// A subscriber reading `store.snapshots()`, or with `asStream` `store.snapshotStream()`.
  init(_ store: Store<R>, asStream: Bool = false) {
    let seen = seen
    @Sendable func take(_ snapshot: Snapshot<R.State>) {
      seen.snapshots.add(1, ordering: .relaxed)
      seen.version.store(snapshot.version, ordering: .releasing)
    }
    if asStream {
      let stream = store.snapshotStream()
      task = Task { for await snapshot in stream { take(snapshot) } }
    } else {
      let snapshots = store.snapshots()
      task = Task { for await snapshot in snapshots { take(snapshot) } }
    }
  }

  /// Waits (untimed) until the subscriber has seen `version`, then stops it; returns how many snapshots
  /// it took.
  @discardableResult
  func finish(at version: UInt64) async -> Int {
    while seen.version.load(ordering: .acquiring) < version { await Task.yield() }
    task.cancel()
    await task.value
    return seen.snapshots.load(ordering: .relaxed)
  }
}
