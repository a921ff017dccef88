// client-crash <root-dir> [tool]
//
// The app the client kill stories kill. It starts a ChatClient with storage at <root-dir>, starts a new
// conversation with newConversation() (the README's first example) and sends one message. It never calls
// close(), as an app the system ends never does: it waits to be killed.
//
// Without a mode, an agent answers at once; once the answer is complete it prints `answered <conversationID>`.
//
// With `tool`, the agent calls the app's tool pick_color and ends its run waiting for the result (as AG-UI,
// the AI SDK and OpenAI do). The tool prints `ran` and answers "teal"; when the result reaches the agent
// (the continuation run), the app prints `delivered <conversationID>` and the agent never answers, so the
// story can kill the app after the result was delivered and before anything else happened.
//
// Each line is one write(2).
import ConversationStore
import ConversationTesting
import Foundation

func say(_ text: String) {
  let line = Array("\(text)\n".utf8)
  _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

guard (2...3).contains(CommandLine.arguments.count) else {
  FileHandle.standardError.write(Data("usage: client-crash <root-dir> [tool]\n".utf8))
  exit(2)
}
let storage = try ChatStorage(root: CommandLine.arguments[1])
let options = ChatClientOptions(workspace: "acme", storage: storage)
if CommandLine.arguments.count == 3 {
  let client = ChatClient(
    backend: ToolCallingAgent { say("delivered \($0.rawValue)") }, options: options,
    tools: [
      "pick_color": { _ in
        say("ran")
        return "teal"
      }
    ])
  client.newConversation().sendMessage("Pick a color")
  while true { sleep(60) }
}
let backend = try ScriptedBackend(
  clock: SystemChatClock(), replies: ["Your order ships today.|<finish>"], interval: 0)
let client = ChatClient(backend: backend, options: options)
let chat = client.newConversation()
chat.sendMessage("Where is my order?")
for await snapshot in chat.snapshots() {
  guard let id = snapshot.state.conversationID, snapshot.state.messages.last?.reply == .completed else { continue }
  say("answered \(id.rawValue)")
  break
}
while true { sleep(60) }
