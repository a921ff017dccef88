import ConversationStore
import ConversationTesting
import Foundation
import Testing

@testable import Demo

@Suite("Editing a message and switching siblings from the demo", .hangGuard)
struct DemoEditCommandTests {
  /// Two questions, each answered: the user's messages on screen are 1 (Q1) and 2 (Q2).
  static var answered: ConversationState {
    .existing(
      [
        .server("Q1", id: "s1", role: .user, at: 1), .server("A1", id: "s2", at: 2),
        .server("Q2", id: "s3", role: .user, at: 3), .server("A2", id: "s4", at: 4),
      ], id: "conv-1")
  }

  /// What is on screen when the user types `/edit`.
  enum Screen: String, CustomTestStringConvertible {
    case twoQuestions, oneQuestion, onlyTheAgent, noConversation
    var testDescription: String { rawValue }

    var state: ConversationState? {
      switch self {
      case .twoQuestions: DemoEditCommandTests.answered
      case .oneQuestion: .existing([.server("Q1", id: "s1", role: .user, at: 1)], id: "conv-1")
      case .onlyTheAgent: .existing([.server("Welcome!", id: "s1", at: 1)], id: "conv-1")
      case .noConversation: nil
      }
    }
  }

  @Test(
    "/edit N TEXT names the user's N-th message on screen, oldest first, and says what is missing otherwise",
    arguments: [
      ("1 Where is order 1042?", .twoQuestions, .edit("srv-s1", text: "Where is order 1042?")),
      ("2  Ship it to Lyon ", .twoQuestions, .edit("srv-s3", text: "Ship it to Lyon")),
      (nil, .twoQuestions, .notice("Which one? /edit N TEXT, where your messages are 1 to 2, oldest first.")),
      ("two Ship it", .twoQuestions, .notice("Which one? /edit N TEXT, where your messages are 1 to 2, oldest first.")),
      ("3 Ship it", .twoQuestions, .notice("You have no message 3 here: your messages are 1 to 2, oldest first.")),
      ("0 Ship it", .twoQuestions, .notice("You have no message 0 here: your messages are 1 to 2, oldest first.")),
      (
        "-9223372036854775808 Ship it", .twoQuestions,
        .notice("You have no message -9223372036854775808 here: your messages are 1 to 2, oldest first.")
      ),
      ("2", .twoQuestions, .notice("/edit 2 needs the new text, for example /edit 2 Where is order 1042?")),
      ("1 Hi", .oneQuestion, .edit("srv-s1", text: "Hi")),
      ("2 Hi", .oneQuestion, .notice("You have no message 2 here: 1 is your only message here.")),
      ("1 Hi", .onlyTheAgent, .notice("You have no message here to edit yet.")),
      ("1 Hi", .noConversation, .notice("You have no message here to edit yet.")),
    ] as [(String?, Screen, DemoSession.EditCommand)])
  func parses(argument: String?, screen: Screen, expected: DemoSession.EditCommand) {
    #expect(DemoSession.edit(argument, in: screen.state) == expected)
  }

  @Test("messages not yet sent count too, and the store is left to refuse them")
  func unsentMessagesAreNumbered() {
    // Given the user asked, was answered, then one message failed and one is queued
    let state = ScreenFixtures.conversation

    // Then the failed one is 2 and the queued one 3
    #expect(DemoSession.edit("2 Hello", in: state) == .edit("c-3", text: "Hello"))
    #expect(DemoSession.edit("3 Hello", in: state) == .edit("c-4", text: "Hello"))
  }

  @Test("after an edit /prev shows the old question and /next comes back, also with a regenerated answer below")
  func switchesAroundAnEdit() {
    // Given two questions answered, the second answer regenerated, then the second question edited and answered
    let chat = ConversationTestStore(Self.answered, exhaustivity: .off)
    Self.connect(chat)
    let regenerated = Self.regenerate(chat, "srv-s4", into: "A2 v2", id: "s5", at: 5)
    Self.edit(chat, "srv-s3", into: "Q2, better", id: "e1", serverIDs: ("s6", "s7"), at: 6)
    #expect(chat.state.messages.map(\.text) == ["Q1", "A1", "Q2, better", "A2 for the better question"])

    // Then /prev switches the edited question and /next has nowhere to go
    #expect(DemoSession.messageToSwitch(.previous, in: chat.state) == "e1")
    #expect(DemoSession.messageToSwitch(.next, in: chat.state) == nil)

    // When the user goes back to the old question
    chat.send(.showSibling(of: "e1", .previous))

    // Then the old branch shows with its regenerated answer last of two; /next goes back to the edit,
    // /prev to the first answer
    #expect(chat.state.messages.map(\.text) == ["Q1", "A1", "Q2", "A2 v2"])
    #expect(DemoSession.messageToSwitch(.next, in: chat.state) == "srv-s3")
    #expect(DemoSession.messageToSwitch(.previous, in: chat.state) == regenerated)

    // When the user goes to the first answer
    chat.send(.showSibling(of: regenerated, .previous))

    // Then /prev has nowhere to go, and /next shows the regenerated answer again
    #expect(chat.state.messages.map(\.text) == ["Q1", "A1", "Q2", "A2"])
    #expect(DemoSession.messageToSwitch(.previous, in: chat.state) == nil)
    #expect(DemoSession.messageToSwitch(.next, in: chat.state) == "srv-s4")
  }

  @Test("/edit, /prev and /next with nothing to act on say so, and change nothing")
  func nothingToEdit() async {
    // Given a session with no conversation open
    let clock = TestClock(start: Date(timeIntervalSince1970: 1_767_225_600))
    let session = DemoSession(
      agent: SimulatedAgent(clock: clock, seed: 1), environment: .deterministic(clock: clock), storage: nil,
      user: nil)

    // When the user edits, and switches
    session.submit("/edit 1 Hello")
    let edit = session.screen().notice
    session.submit("/prev")
    let previous = session.screen().notice

    // Then each says why nothing happened
    #expect(edit == "You have no message here to edit yet.")
    #expect(previous == "No message has siblings yet (/regen or /edit makes one).")
    #expect(session.screen().conversation == nil)
    await session.close()
  }

  @Test("an edit while the agent's reply streams is refused by the store, and the frame shows why in red")
  func refusedWhileStreaming() async {
    // Given a question whose answer has started (the agent then waits for a clock that never moves)
    let clock = TestClock(start: Date(timeIntervalSince1970: 1_767_225_600))
    let session = DemoSession(
      agent: SimulatedAgent(clock: clock, seed: 1), environment: .deterministic(clock: clock), storage: nil,
      user: nil)
    session.submit("Is my account in good standing?")
    #expect(await waitUntil { session.screen().conversation?.streamingReply != nil })
    let before = session.screen().conversation?.messages.map(\.text)

    // When the user edits the question
    session.submit("/edit 1 Where is order 1042?")

    // Then the store refuses, nothing moves, and the frame says why
    let screen = session.screen()
    #expect(
      screen.conversation?.userError?.message == "Wait for the reply to finish before editing or switching branches.")
    #expect(screen.conversation?.messages.map(\.text) == before)
    #expect(screen.conversation?.branches.isEmpty == true)
    let frame = FrameRenderer.render(screen, width: 80, height: 24, color: false)
    #expect(frame.contains { $0.contains("✗ Wait for the reply to finish before editing or switching branches.") })
    await session.close()
  }

  // MARK: Steps on a conversation test store

  private static func connect(_ chat: ConversationTestStore) {
    let connection = chat.nextRequestID
    chat.send(.connect)
    let sync = chat.nextRequestID
    chat.send(.connectionOpened(connection))
    if chat.state.connection == .syncing { chat.send(.syncLoaded(sync, [])) }
  }

  /// Regenerates `answer` into `text`; returns the new answer's client ID.
  private static func regenerate(
    _ chat: ConversationTestStore, _ answer: ClientMessageID, into text: String, id: String, at seconds: Double
  ) -> ClientMessageID {
    let request = chat.nextRequestID
    chat.send(.regenerate(answer))
    chat.send(.replyStarted(request, agent: nil, at: .story(seconds)))
    chat.send(.replyDelta(request, text))
    let clientID = chat.state.streamingReply?.clientID ?? "none"
    chat.send(.replyFinished(request, message: .server(text, id: id, at: seconds)))
    return clientID
  }

  /// Edits `message` into `text` (client ID `id`), and lets the server accept it and the agent answer.
  private static func edit(
    _ chat: ConversationTestStore, _ message: ClientMessageID, into text: String, id: ClientMessageID,
    serverIDs: (question: String, answer: String), at seconds: Double
  ) {
    let request = chat.nextRequestID
    chat.send(.edit(message, OutgoingMessage(clientID: id, text: text, createdAt: .story(seconds))))
    chat.send(
      .sendAccepted(
        request,
        confirmed: .confirmed(text, clientID: id, serverID: serverIDs.question, at: seconds),
        conversationID: "conv-1"))
    chat.send(.replyStarted(request, agent: nil, at: .story(seconds + 1)))
    chat.send(.replyDelta(request, "A2 for the better question"))
    chat.send(
      .replyFinished(
        request, message: .server("A2 for the better question", id: serverIDs.answer, at: seconds + 1))
    )
  }
}
