import ConversationState
import Foundation
import Synchronization

/// `ref.naive.send.h100k`: the send turn of `send.confirm` (the send, its acceptance, the realtime echo, the
/// reply's end) in the store a user writes by hand: a `Mutex` around `[Message]` and the reply's `String`,
/// publishing each new state into an `AsyncStream` that keeps the newest for one subscriber. The stream's
/// buffer holds the last state, so each write after it copies the array: what `send.confirm` avoids.
enum NaiveSendWorkload {
  struct Chat: Sendable {
    var messages: [Message]
    var reply = ""
    var isAgentBusy = false
  }

  static func make(history: Int, sends: Int) -> Workload {
    let base = Chat(messages: (0..<history).map { Conversations.message($0) })
    return Workload(name: "ref.naive.send.h\(DeltaWorkloads.label(history))") {
      let (stream, continuation) = AsyncStream<Chat>.makeStream(bufferingPolicy: .bufferingNewest(1))
      let chat = Mutex(base)
      let subscriber = Task {
        var latest: Chat?
        var snapshots = 0
        for await state in stream {
          latest = state
          snapshots += 1
        }
        return (snapshots, latest?.messages.count ?? 0)
      }
      func write(_ change: (inout Chat) -> Void) {
        continuation.yield(
          chat.withLock { chat in
            change(&chat)
            return chat
          })
      }
      let nanoseconds = Harness.time {
        for turn in 0..<sends {
          let clientID = ClientMessageID("send\(turn)")
          let serverID = ServerMessageID("send\(turn)")
          let at = Conversations.start.addingTimeInterval(2_000_000 + Double(turn))
          write {
            $0.messages.append(
              Message(clientID: clientID, role: .user, text: "hello \(turn)", createdAt: at, delivery: .sending))
            $0.isAgentBusy = true
          }
          write { chat in  // accepted: the server's ID on the optimistic row
            guard let index = chat.messages.lastIndex(where: { $0.clientID == clientID }) else { return }
            chat.messages[index].serverID = serverID
            chat.messages[index].delivery = .sent
          }
          write { chat in  // the realtime echo: already there by its server ID, so updated, not added
            if let index = chat.messages.lastIndex(where: { $0.serverID == serverID }) {
              chat.messages[index].text = "hello \(turn)"
            } else {
              chat.messages.append(
                Message(clientID: clientID, serverID: serverID, role: .user, text: "", createdAt: at))
            }
          }
          write {
            $0.reply = ""
            $0.isAgentBusy = false
          }
        }
      }
      continuation.finish()
      let (snapshots, last) = await subscriber.value
      precondition(last == history + sends, "the subscriber's last state has every send once")
      return WorkloadResult(ops: sends, nanoseconds: nanoseconds, snapshots: snapshots)
    }
  }
}
