import ConversationStore
import Foundation
import Testing

@testable import Demo

@Suite("The follow-up queue on screen and in the transcript")
struct FollowUpRenderingTests {
  @Test("queued turns show dimmed and numbered under the streaming reply; a long one wraps under its own text")
  func queuedUnderTheReply() {
    // Given Ada streaming her answer while two follow-ups wait, the second long and partly in Japanese
    let screen = ScreenFixtures.queued

    // When it is drawn at 80x24, with color and without
    let frame = FrameText.trimmed(FrameRenderer.render(screen, width: 80, height: 24, color: false))
    let colored = FrameRenderer.render(screen, width: 80, height: 24, color: true)

    // Then the turns follow the reply's text, numbered in the order they will go, the long one wrapped
    // after its number (its wide characters counted two columns each)
    #expect(
      frame[4...11] == [
        " Refund for a broken … (2)│ Ada",
        "  A refund is on its way  │   ⚙ lookup order 1042…",
        " Old question             │   Let me check▌",
        "  ended · Thanks, bye     │ ⋯ 1 queued: And the invoice?",
        "                          │ ⋯ 2 queued: 請求書の宛先を変えられますか？ Can the",
        "                          │             invoice go to my office instead of my",
        "                          │             home?",
        "                          │",
      ])
    // And they are dimmed, as they are not sent yet
    #expect(colored[7].contains("\u{1B}[2m⋯ 1 queued: And the invoice?"))
    #expect(colored[10].contains("\u{1B}[2m            home?"))
  }

  @Test("a paused queue says why under the stopped answer, and that /resume sends the next")
  func pausedUnderTheAnswer() {
    // Given Ada's answer stopped with a follow-up waiting
    let screen = ScreenFixtures.queuePaused

    // When it is drawn at 80x24
    let frame = FrameText.trimmed(FrameRenderer.render(screen, width: 80, height: 24, color: false))
    let colored = FrameRenderer.render(screen, width: 80, height: 24, color: true)

    // Then the turn waits under the answer, and the pause line, too long for the pane, wraps rather than
    // losing the command at its end
    #expect(
      frame[2...8] == [
        "•Order 1042               │ you",
        "  Please call me          │   Where is order 1042?",
        " Refund for a broken … (2)│ Ada · stopped",
        "  A refund is on its way  │   Let me check",
        " Old question             │ ⋯ 1 queued: And the invoice?",
        "  ended · Thanks, bye     │ queue paused: the answer was stopped — /resume to",
        "                          │ send the next",
      ])
    // And it stands out from the dimmed turn, as the user has to act on it
    #expect(colored[7].contains("\u{1B}[33mqueue paused: the answer was stopped"))
  }

  @Test(
    "the pause line says how the queue was stopped, and what lets it go on",
    arguments: [
      (FollowUpPause.answerEnded("a-1", .cancelled), "the answer was stopped — /resume to send the next"),
      (
        .answerEnded("a-1", .failed(ChatError(.providerError, "model down"))),
        "the answer failed — /resume to send the next"
      ),
      (.answerEnded("a-1", .truncated), "the answer was cut off — /resume to send the next"),
      (
        .answerEnded("a-1", .rejected(ChatError(.invalidEvent, "bad order"))),
        "the answer broke the protocol — /resume to send the next"
      ),
      (.sendFailed("c-1"), "a message of yours was not sent — /resume to send the next"),
      (
        .refused("q-1", ChatError(.messageTooLong, "A message holds at most 10 characters.")),
        "the next was refused: A message holds at most 10 characters. — /editq 1 TEXT or /unqueue 1"
      ),
    ])
  func pauseWords(pause: FollowUpPause, expected: String) {
    var queue = FollowUpQueue()
    queue.turns = [OutgoingMessage(clientID: "q-1", text: "And the invoice?", createdAt: .story(3))]
    queue.pause = pause
    #expect(FollowUpLines.pauseText(queue) == "queue paused: " + expected)
  }

  @Test("the transcript prints a turn when queued and when renumbered or rewritten, one taken out, and a pause once")
  func transcriptFollowsTheQueue() {
    // Given a conversation on screen, printed
    var screen = ScreenFixtures.queued
    var transcript = Transcript()
    let first = transcript.lines(for: screen)
    #expect(
      first.suffix(2) == [
        "⋯ 1 queued: And the invoice?", "⋯ 2 queued: " + screen.conversation!.followUps.turns[1].text,
      ])

    // When nothing about the queue changes
    // Then it is not printed again
    #expect(transcript.lines(for: screen) == [])

    // When the first turn is taken out and the second rewritten
    screen.conversation?.followUps.turns.removeFirst()
    screen.conversation?.followUps.turns[0].text = "Can it go to my office?"

    // Then the first says it left unsent, and the second is printed with its new number and text
    #expect(transcript.lines(for: screen) == ["⋯ taken out: And the invoice?", "⋯ 1 queued: Can it go to my office?"])

    // When the queue pauses, twice seen
    screen.conversation?.followUps.pause = .answerEnded("r-1", .cancelled)
    let paused = transcript.lines(for: screen)
    let again = transcript.lines(for: screen)

    // Then the pause is printed once
    #expect(paused == ["· queue paused: the answer was stopped — /resume to send the next"])
    #expect(again == [])
  }

  @Test("opening another conversation does not say the turns of the one before were taken out")
  func otherConversation() {
    // Given a conversation with follow-ups waiting, printed
    var screen = ScreenFixtures.queued
    var transcript = Transcript()
    _ = transcript.lines(for: screen)

    // When the user opens another conversation, where nothing waits
    screen.conversation = .existing([.server("A refund is on its way", id: "m-9", at: 1)], id: "c-refund")

    // Then the transcript names it and its message, and says nothing of the other's queue
    #expect(
      transcript.lines(for: screen) == [
        "== c-refund (alice) ==", "· not connected", "assistant: A refund is on its way",
      ])
  }

  @Test("a turn that was sent is not said to be taken out: it shows as the user's message")
  func sentTurnIsNotTakenOut() {
    // Given a follow-up waiting, printed
    var screen = ScreenFixtures.queued
    screen.conversation?.followUps.turns.removeLast()
    var transcript = Transcript()
    _ = transcript.lines(for: screen)

    // When it goes: it leaves the queue and is the user's newest message
    screen.conversation?.followUps.turns = []
    _ = screen.conversation?.messages.appendOutgoing(
      Message(clientID: "q-1", role: .user, text: "And the invoice?", createdAt: .story(5), delivery: .sending))

    // Then the transcript prints it as the user's message, and nothing about the queue
    #expect(transcript.lines(for: screen) == ["you: And the invoice?  (sending)"])
  }
}
