import ConversationStore
import ConversationTesting
import Foundation
import Testing

// README-FOLLOWUPS-BEGIN
/// The rows under the streaming reply: each waiting follow-up, dimmed, with "Send now" and "Remove".
func followUpRows(_ store: ChatStore) -> [(text: String, sendNow: () -> Void, remove: () -> Void)] {
  store.state.followUps.turns.map { turn in
    (turn.text, { store.send(.sendQueuedNow(turn.clientID)) }, { store.send(.removeQueued(turn.clientID)) })
  }
}

/// Why the queue stopped, with the button that lets it go on; nil while it drains by itself.
func pausedBanner(_ store: ChatStore) -> (text: String, resume: () -> Void)? {
  guard let pause = store.state.followUps.pause else { return nil }
  let text =
    switch pause {
    case .answerEnded: "The answer stopped before it finished."
    case .sendFailed: "A message could not be sent."
    case .refused(_, let error): error.message
    }
  return (text, { store.send(.resumeQueue) })
}
// README-FOLLOWUPS-END

/// A host trying the follow-up queue from the README and the doc comments: a real `ChatStore` against a
/// `ScriptedBackend` on a `TestClock`.
@Suite("Host tryout: follow-ups written while the agent answers", .hangGuard)
struct HostFollowUpsTryout {
  @Test("a follow-up written mid-answer is shown waiting, goes once the answer completed, and is answered after it")
  func followUpAfterTheAnswer() async throws {
    // Given an agent that answers twice, slowly
    let clock = TestClock()
    let backend = try ScriptedBackend(
      clock: clock, replies: ["It ships |on |Monday.|<finish>", "The invoice |is attached.|<finish>"], interval: 0.5)
    let store = ChatStore(backend: backend, environment: .deterministic(clock: clock))

    // When the user asks, and writes again while the first answer streams
    store.sendMessage("Where is my order?")
    #expect(await clock.run { store.state.streamingReply != nil })
    store.sendMessage("And the invoice?")

    // Then the follow-up waits under the answer, nothing paused
    #expect(followUpRows(store).map(\.text) == ["And the invoice?"])
    #expect(pausedBanner(store) == nil)
    #expect(store.state.isAnswering)

    // When the agent finishes both
    #expect(await clock.run { store.state.isSettled && !store.state.isAnswering && store.state.followUps.isEmpty })

    // Then the follow-up went after the first answer and was answered after it, in order
    #expect(
      store.state.messages.map(\.text) == [
        "Where is my order?", "It ships on Monday.", "And the invoice?", "The invoice is attached.",
      ])
    store.close()
  }

  @Test("stopping the answer pauses what waits; the banner's button sends it")
  func stopPausesThenResumes() async throws {
    // Given a follow-up waiting behind a streaming answer
    let clock = TestClock()
    let backend = try ScriptedBackend(
      clock: clock, replies: ["It ships |on |Monday.|<finish>", "Attached.|<finish>"], interval: 0.5)
    let store = ChatStore(backend: backend, environment: .deterministic(clock: clock))
    store.sendMessage("Where is my order?")
    #expect(await clock.run { store.state.streamingReply != nil })
    store.sendMessage("And the invoice?")

    // When the user stops the answer
    store.send(.stopReply)

    // Then the follow-up waits, with a banner saying why
    let banner = try #require(pausedBanner(store))
    #expect(banner.text == "The answer stopped before it finished.")
    #expect(followUpRows(store).map(\.text) == ["And the invoice?"])

    // When the user taps Resume, it goes and is answered
    banner.resume()
    #expect(await clock.run { store.state.isSettled && !store.state.isAnswering && store.state.followUps.isEmpty })
    #expect(store.state.messages.map(\.text).suffix(2) == ["And the invoice?", "Attached."])
    #expect(try ReadmeExcerpt(marker: "README-FOLLOWUPS", in: #filePath).isShown(in: "README.md"))
    store.close()
  }
}
