import ConversationState
import ConversationStore
import Foundation
import Persistence

/// Persistence: appending to a stored history, restoring one, and a persister following a streaming store.
/// Files go under the system temporary directory and are deleted at exit.
enum StorageWorkloads {
  static let root = NSTemporaryDirectory() + "conversation-benchmarks-\(ProcessInfo.processInfo.processIdentifier)"

  static func scope(_ name: String) -> ScopeDirectory {
    // The benchmark's own scratch files: a failure here is a broken machine, not a measurement.
    guard let scope = try? ChatStorage(root: root).scope(StorageScope(workspace: "bench", userID: name)) else {
      fatalError("cannot create benchmark storage under \(root)")
    }
    return scope
  }

  static func file(_ scope: ScopeDirectory, _ id: ConversationID, window: Int = ScopeDirectory.defaultWindow)
    -> ConversationFile
  {
    guard let file = try? scope.conversation(id, window: window) else {
      fatalError("cannot open \(id) under \(scope.directory)")
    }
    return file
  }

  /// Durably persisting one new confirmed message (append + fdatasync) into a stored `history`-message
  /// conversation.
  static func append(history: Int, appends: Int) -> Workload {
    let base = Conversations.history(history)
    let file = file(scope("append\(history)"), "bench")
    try? file.persist(base, changes: .reset, at: Conversations.start)
    return Workload(name: "persist.append.h\(DeltaWorkloads.label(history))") {
      var state = base
      let nanoseconds = Harness.time {
        for index in 0..<appends {
          let old = state
          state.messages.commit(Conversations.message(history + index))
          do {
            try file.persist(state, changes: state.changes(since: old), at: Conversations.start)
          } catch {
            fatalError("persist failed: \(error)")
          }
        }
      }
      return (appends, nanoseconds)
    }
  }

  /// Opening a stored `history`-message conversation whole (a window as large as the history, which is how
  /// every conversation opened before local-first paging): reading, checking and decoding the file, and
  /// building the message list.
  static func load(history: Int) -> Workload {
    let scope = scope("load\(history)")
    try? file(scope, "bench", window: .max).persist(
      Conversations.history(history), changes: .reset, at: Conversations.start)
    return Workload(name: "load.store.h\(DeltaWorkloads.label(history))") {
      var restored = 0
      let nanoseconds = Harness.time { restored = file(scope, "bench", window: .max).restored?.messages.count ?? 0 }
      precondition(restored == history, "restored \(restored) of \(history) messages")
      return (1, nanoseconds)
    }
  }

  /// The obvious approach to the same restore: Foundation's `JSONDecoder` decoding the messages as one array.
  static func jsonDecoder(history: Int) -> Workload {
    let data = (try? JSONEncoder().encode(Array(Conversations.history(history).messages))) ?? Data()
    return Workload(name: "load.jsondecoder.h\(DeltaWorkloads.label(history))") {
      var decoded = 0
      let nanoseconds = Harness.time { decoded = (try? JSONDecoder().decode([Message].self, from: data))?.count ?? 0 }
      precondition(decoded == history, "decoded \(decoded) of \(history) messages")
      return (1, nanoseconds)
    }
  }

  /// Deltas on a 1 MB reply with a persister following the store: every snapshot goes to a `ConversationFile`
  /// (on the subscriber's thread, as a host runs it), which writes the streamed text a few times a second.
  static func deltaWithPersister(deltas: Int) -> Workload {
    let prefill = String(repeating: "x", count: 1_000_000)
    let base = Conversations.history(100)
    let scope = scope("reply")
    return Workload(name: "persist.delta.reply1m") {
      let store = Store(initialState: base, reducer: ConversationReducer())
      let file = file(scope, "bench")
      let snapshots = store.snapshots()
      let follower = Task.detached {
        var written: ConversationState?
        for await snapshot in snapshots {
          do {
            try file.persist(snapshot.state, changes: snapshot.changes, at: Date())
            written = snapshot.state
          } catch {
            fatalError("persist failed: \(error)")
          }
        }
        return written
      }
      // One reply, pre-filled to 1 MB (untimed), then every delta on it in timed batches of 100, as
      // `delta.store.reply1m` times them.
      let request = Conversations.openReply(on: store.state, turn: 0, send: { store.send($0) })
      store.send(.replyDelta(request, prefill))
      var nanoseconds: UInt64 = 0
      var remaining = deltas
      while remaining > 0 {
        let batch = min(100, remaining)
        nanoseconds += Harness.time {
          for _ in 0..<batch { store.send(.replyDelta(request, DeltaWorkloads.delta)) }
        }
        remaining -= batch
      }
      Conversations.finishReply(request, turn: 0, send: { store.send($0) })
      store.close()
      let written = await follower.value
      // (an action that changes nothing makes no snapshot, so compare states, not versions)
      precondition(written == store.state, "the persister did not write the last state")
      return (deltas, nanoseconds)
    }
  }

  static func removeFiles() { try? FileManager.default.removeItem(atPath: root) }
}
