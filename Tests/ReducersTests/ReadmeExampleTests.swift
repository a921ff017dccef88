import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

// The README's reducer example, compiled and run as a test. `readmeShowsThisExample` keeps the README's
// copy identical to the lines between the markers.
// README-EXAMPLE-BEGIN
func readmeExample() -> ConversationState {
  let reducer = ConversationReducer()
  var state = ConversationState(conversationID: "support-42")

  // The user sends; the reducer answers with the I/O to perform, as values.
  let effects = reducer.reduce(
    into: &state,
    action: .send(OutgoingMessage(clientID: "c-1", text: "Where is my order?", createdAt: Date())))
  guard case .sendMessage(let request, _) = effects.first else { fatalError("expected a send effect") }

  // Your backend reports back with actions tagged by the effect's request ID.
  let confirmed = Message(
    clientID: "c-1", serverID: "m-1", role: .user, text: "Where is my order?", createdAt: Date())
  _ = reducer.reduce(into: &state, action: .sendAccepted(request, confirmed: confirmed, conversationID: "support-42"))
  _ = reducer.reduce(into: &state, action: .replyStarted(request, agent: nil, at: Date()))
  _ = reducer.reduce(into: &state, action: .replyDelta(request, "It ships "))
  _ = reducer.reduce(into: &state, action: .replyDelta(request, "today."))
  print(state.streamingReply?.text.string ?? "")  // "It ships today."
  return state
}
// README-EXAMPLE-END

@Suite("README")
struct ReadmeExampleTests {
  @Test("the README's example runs and streams the reply")
  func exampleRuns() {
    let state = readmeExample()
    #expect(state.streamingReply?.text.string == "It ships today.")
    #expect(state.messages[clientID: "c-1"]?.delivery == .sent)
  }

  @Test("the article shows this file's example verbatim")
  func readmeShowsThisExample() throws {
    #expect(
      try ReadmeExcerpt(marker: "README-EXAMPLE", in: #filePath).isShown(
        in: "Sources/ConversationStore/ConversationStore.docc/RulesTheReducersKeep.md"),
      "The rules article's reducer example drifted from ReadmeExampleTests.swift; copy it over")
  }
}
