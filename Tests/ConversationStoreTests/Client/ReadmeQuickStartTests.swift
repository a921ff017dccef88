import ConversationStore
import ConversationTesting
import Foundation
import Testing

// The README's first steps with a ChatClient, compiled and run here; `.ci/newcomer.sh` also runs the README's
// copy from a new package of its own, as a newcomer would.
// README-QUICKSTART-BEGIN
/// Opens a conversation, sends, reads snapshots until the answer is complete, signs in, closes.
func firstChat() async throws -> String {
  // An agent scripted in process; an app passes its own ChatBackend (HTTPChatBackend, AGUIBackend, …).
  let backend = try ScriptedBackend(
    clock: SystemChatClock(), replies: ["Your order |ships today.|<finish>"], interval: 0.01)
  let client = ChatClient(backend: backend, options: ChatClientOptions(workspace: "acme"))
  let chat = client.newConversation()  // a store: state, actions, snapshots
  chat.sendMessage("Where is my order?")  // shown at once as sending; the answer streams into the state
  var answer = ""
  for await snapshot in chat.snapshots() {  // the current state, then the latest after each change
    if let last = snapshot.state.messages.last, last.role == .assistant, last.reply == .completed {
      answer = last.text
      break
    }
  }
  client.identify(UserIdentity(userID: "u-1042"), keepingGuestConversation: true)  // the guest signs in
  await client.close()  // stores, connection and storage closed; snapshot loops end
  return answer
}
// README-QUICKSTART-END

@Suite("README first steps", .hangGuard)
struct ReadmeQuickStartTests {
  @Test("the README's first chat sends a question and reads the scripted answer from the snapshots")
  func firstChatAnswers() async throws {
    #expect(try await firstChat() == "Your order ships today.")
  }
}
