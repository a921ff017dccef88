// client-crash <root-dir>
//
// The app the client kill story kills. It starts a ChatClient with storage at <root-dir> on an agent that
// answers at once, starts a new conversation with newConversation() (the README's first example), sends one
// message, and when the answer is complete prints
//
//   answered <conversationID>
//
// on stdout (one write(2)), then waits to be killed: it never calls close(), as an app the system ends never
// does. The story kills it with SIGKILL once the journal's write interval has passed, and relaunches.
import ConversationStore
import ConversationTesting
import Foundation

guard CommandLine.arguments.count == 2 else {
  FileHandle.standardError.write(Data("usage: client-crash <root-dir>\n".utf8))
  exit(2)
}
let storage = try ChatStorage(root: CommandLine.arguments[1])
let backend = try ScriptedBackend(
  clock: SystemChatClock(), replies: ["Your order ships today.|<finish>"], interval: 0)
let client = ChatClient(backend: backend, options: ChatClientOptions(workspace: "acme", storage: storage))
let chat = client.newConversation()
chat.sendMessage("Where is my order?")
for await snapshot in chat.snapshots() {
  guard let id = snapshot.state.conversationID, snapshot.state.messages.last?.reply == .completed else { continue }
  let line = Array("answered \(id.rawValue)\n".utf8)
  _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
  break
}
while true { sleep(60) }
