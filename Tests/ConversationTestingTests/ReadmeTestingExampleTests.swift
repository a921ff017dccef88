import ConversationState
import ConversationTesting
import Foundation
import Testing

// The README's "Testing your chat flows" example, kept verbatim by `readmeShowsIt`.
// README-TESTING-BEGIN
@Test("a question is sent, confirmed and answered")
func questionAnswered() {
  let start = Date(timeIntervalSince1970: 0)
  let store = ConversationTestStore(ConversationState(conversationID: "c1"))
  let send = store.nextRequestID

  store.send(
    .send(OutgoingMessage(clientID: "m1", text: "Hi", createdAt: start)),
    effects: [.sendMessage(send, SendPayload(conversationID: "c1", clientID: "m1", text: "Hi", attachments: []))]
  ) {
    $0.messages.appendOutgoing(Message(clientID: "m1", role: .user, text: "Hi", createdAt: start, delivery: .sending))
    $0.requests[send] = .send("m1")
    $0.requestSequence = 1
  }
  let confirmed = Message(clientID: "m1", serverID: "s1", role: .user, text: "Hi", createdAt: start)
  store.send(.sendAccepted(send, confirmed: confirmed, conversationID: "c1")) {
    $0.messages.commit(confirmed)
    $0.agentActivity = .thinking
  }
  store.send(.replyEnded(send)) {  // the stream closed with no reply: the request is done
    $0.requests = [:]
    $0.agentActivity = .idle
  }
  store.finish()
}
// README-TESTING-END

@Suite("README testing example")
struct ReadmeTestingExampleTests {
  @Test("the README's testing example runs")
  func exampleRuns() { questionAnswered() }

  @Test("the README shows the testing example verbatim")
  func readmeShowsIt() throws {
    #expect(
      try ReadmeExcerpt(marker: "README-TESTING", in: #filePath).isShown(in: "README.md"),
      "README's testing example drifted; copy it over")
  }
}
