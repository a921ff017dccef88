import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Persistence

/// `ChatClient` beside the store it wraps: opening a stored conversation, and a send that is answered and
/// persisted. Each client number has its store-only counterpart measured in the same run.
enum ClientWorkloads {
  /// A storage root holding one `history`-message conversation "bench" for user `name`.
  static func storedRoot(_ name: String, history: Int) -> (ChatStorage, ScopeDirectory) {
    // Under the benchmark root, so the cleanup at exit removes it too.
    let root = StorageWorkloads.root + "/client-\(name)"
    guard let storage = try? ChatStorage(root: root),
      let scope = try? storage.scope(StorageScope(workspace: "bench", userID: name))
    else { fatalError("cannot create benchmark storage under \(root)") }
    try? StorageWorkloads.file(scope, "bench").persist(
      Conversations.history(history), changes: .reset, at: Conversations.start)
    return (storage, scope)
  }

  /// `client.conversation(id)` for a stored `history`-message conversation: until its stored messages are
  /// on screen (`caller == false`), or only what the calling thread waits for (`caller == true`: the file
  /// is read on the client's worker, so this stays flat with history).
  static func clientOpen(history: Int, opens: Int, caller: Bool = false) -> Workload {
    let (storage, _) = storedRoot("client-open", history: history)
    let name = caller ? "client.open.call.h" : "client.open.h"
    return Workload(name: name + DeltaWorkloads.label(history)) {
      var total: UInt64 = 0
      for _ in 0..<opens {
        let backend = (try? ScriptedBackend(clock: StoreEnvironment.live.clock, interval: 0))!
        let client = ChatClient(
          backend: backend, identity: UserIdentity(userID: "client-open"),
          options: ChatClientOptions(workspace: "bench", storage: storage))
        var store: ChatStore?
        if caller {
          total += Harness.time { store = client.conversation("bench") }
        } else {
          total += await Harness.timeAsync {
            let opened = client.conversation("bench")
            await wait(opened) { !$0.isRestoring }
            store = opened
          }
        }
        if let store { await wait(store) { !$0.isRestoring } }
        let count = store?.state.messages.count ?? 0
        let shown = min(history, ScopeDirectory.defaultWindow)  // opened at its newest page
        precondition(count == shown, "opened \(count) of \(shown) messages")
        await client.close()
      }
      return (opens, total)
    }
  }

  /// The same conversation opened as a host without the client would: its file read, a store made.
  static func storeOpen(history: Int, opens: Int) -> Workload {
    let (_, scope) = storedRoot("store-open", history: history)
    return Workload(name: "store.open.h\(DeltaWorkloads.label(history))") {
      var count = 0
      let nanoseconds = Harness.time {
        for _ in 0..<opens {
          let restored = StorageWorkloads.file(scope, "bench").restored
          let store = ChatStore(initialState: restored ?? ConversationState(), reducer: ConversationReducer())
          count = store.state.messages.count
        }
      }
      let shown = min(history, ScopeDirectory.defaultWindow)
      precondition(count == shown, "opened \(count) of \(shown) messages")
      return (opens, nanoseconds)
    }
  }

  /// Waits until `store`'s state satisfies `done`.
  static func wait(_ store: ChatStore, until done: @Sendable (ConversationState) -> Bool) async {
    for await snapshot in store.snapshots() where done(snapshot.state) { return }
  }

  /// Sends `sends` messages one after another, each once the answer to the one before has finished.
  static func sendAndWait(_ chat: ChatStore, _ sends: Int) async {
    for index in 0..<sends {
      _ = chat.sendMessage("Message \(index)")
      let expected = 2 * (index + 1)
      await wait(chat) { $0.messages.committedCount >= expected && $0.streamingReply == nil }
    }
  }

  /// A message sent and answered ("OK.") through a client with storage, the list following, and every
  /// snapshot written; the time includes the writes (`settled`).
  static func clientSend(sends: Int) -> Workload {
    Workload(name: "client.send") {
      let root = StorageWorkloads.root + "-client-send-\(UUID().uuidString)"
      let backend = (try? ScriptedBackend(clock: StoreEnvironment.live.clock, interval: 0))!
      let client = ChatClient(
        backend: backend, identity: UserIdentity(userID: "u"),
        options: ChatClientOptions(workspace: "bench", storage: try? ChatStorage(root: root)))
      let chat = client.conversation("bench")
      await wait(chat) { $0.connection == .connected }
      let start = DispatchTime.now().uptimeNanoseconds
      await sendAndWait(chat, sends)
      await client.settled()
      let nanoseconds = DispatchTime.now().uptimeNanoseconds - start
      await client.close()
      try? FileManager.default.removeItem(atPath: root)
      return (sends, nanoseconds)
    }
  }

  /// The same sends on a store with the same backend and no client (nothing persisted).
  static func storeSend(sends: Int) -> Workload {
    Workload(name: "store.send.scripted") {
      let backend = (try? ScriptedBackend(clock: StoreEnvironment.live.clock, interval: 0))!
      let chat = ChatStore(
        initialState: ConversationState(conversationID: "bench"), reducer: ConversationReducer(),
        runtime: ConversationRuntime(backend: backend))
      chat.send(.connect)
      await wait(chat) { $0.connection == .connected }
      let start = DispatchTime.now().uptimeNanoseconds
      await sendAndWait(chat, sends)
      let nanoseconds = DispatchTime.now().uptimeNanoseconds - start
      chat.close()
      return (sends, nanoseconds)
    }
  }
}
