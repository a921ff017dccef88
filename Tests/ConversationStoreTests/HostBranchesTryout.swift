import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// A host trying conversations as trees for the first time, from the README, the articles and the doc
/// comments of `ConversationAction.edit`, `.regenerate`, `.showSibling`, `.showBranch` and
/// `ConversationBranches`: a real `ChatStore` against a `ScriptedBackend` on a `TestClock`.
@Suite("Host tryout: edit, regenerate and switch branches")
struct HostBranchesTryout {
  /// What a host keeps around for one conversation screen.
  struct Screen {
    let clock: TestClock
    let backend: ScriptedBackend
    let store: ChatStore

    let sent: SendLog

    init(replies: [String]) throws {
      clock = TestClock()
      backend = try ScriptedBackend(clock: clock, replies: replies, interval: 0.1)
      let log = SendLog(backend)
      sent = log
      store = ChatStore(backend: log, environment: .deterministic(clock: clock))
    }

    var state: ConversationState { store.state }

    /// What the sibling picker of each row says, the way a UI draws it: "‹ 2/2 ›", or nothing.
    var siblingMarks: [String] {
      let state = store.state
      return state.messages.map { message in
        guard let place = state.branches.place(of: message.clientID) else { return "" }
        return "‹ \(place.index + 1)/\(place.count) ›"
      }
    }

    /// The texts on screen, in order.
    var texts: [String] { store.state.messages.map(\.text) }

    /// A new message for `.edit`, made the way `sendMessage` makes one: an ID and the time from the
    /// store's environment.
    func outgoing(_ text: String) -> OutgoingMessage {
      OutgoingMessage(
        clientID: ClientMessageID(store.environment.makeID()), text: text, createdAt: store.environment.clock.now())
    }

    /// `ConversationAction.edit`'s doc example, as written there.
    func edit(_ question: Message) {
      // DOCC-EDIT-BEGIN
      let edited = OutgoingMessage(
        clientID: ClientMessageID(store.environment.makeID()), text: "Ship it to Lyon",
        createdAt: store.environment.clock.now())
      store.send(.edit(question.clientID, edited))
      // DOCC-EDIT-END
    }

    /// Lets the scripted agent answer: time passes until nothing is in flight and no reply streams.
    func letTheAgentAnswer() async -> Bool {
      let store = self.store
      return await clock.run {
        let state = store.state
        return state.isSettled && state.streamingReply == nil && state.messages.outgoing.isEmpty
      }
    }

    /// Sends `action` as a user would, and returns the error it was refused with, checking that nothing
    /// else in the state changed.
    func refused(_ action: ConversationAction, sourceLocation: SourceLocation = #_sourceLocation) -> ChatError? {
      store.send(.clearError)
      let before = store.state
      store.send(action)
      let after = store.state
      var expected = before
      expected.userError = after.userError
      #expect(after == expected, "\(action) changed more than userError", sourceLocation: sourceLocation)
      #expect(after.messages.map(\.clientID) == before.messages.map(\.clientID), sourceLocation: sourceLocation)
      #expect(after.branches == before.branches, sourceLocation: sourceLocation)
      return after.userError
    }
  }

  @Test("a question is edited, answered, switched back to, and followed up on the old branch")
  func editSwitchAndFollowUp() async throws {
    // Given a conversation whose agent answers three times.
    let screen = try Screen(replies: [
      "It ships |today.|<finish>",
      "Lyon: |Thursday.|<finish>",
      "Yes, |tracking sent.|<finish>",
    ])
    let store = screen.store

    // When the user asks and the agent answers,
    let question = store.sendMessage("Where is my order?")
    #expect(await screen.letTheAgentAnswer())
    // then the conversation is a line: no sibling picker anywhere.
    #expect(screen.texts == ["Where is my order?", "It ships today."])
    #expect(screen.state.messages.last?.reply == .completed)
    #expect(screen.state.branches.isEmpty)
    #expect(screen.siblingMarks == ["", ""])
    let firstAnswer = try #require(screen.state.messages.last).clientID

    // When the user edits the question,
    let edit = screen.outgoing("When does it reach Lyon?")
    store.send(.edit(question, edit))
    // then the edit replaces the question on screen at once, as a new message being sent,
    #expect(screen.state.userError == nil)
    #expect(screen.state.messages.map(\.clientID) == [edit.clientID])
    // and once the agent answers it, the edit is the second of two versions of the question.
    #expect(await screen.letTheAgentAnswer())
    #expect(screen.texts == ["When does it reach Lyon?", "Lyon: Thursday."])
    #expect(screen.state.messages.allSatisfy { $0.delivery == .sent })
    #expect(screen.siblingMarks == ["‹ 2/2 ›", ""])
    #expect(screen.state.branches.place(of: edit.clientID) == ConversationBranches.Place(index: 1, count: 2))
    // The old question and its answer are kept off screen, not in `messages`.
    #expect(screen.state.branches.place(of: question) == nil)
    #expect(screen.state.messages[clientID: question] == nil)
    #expect(screen.state.branches.forks.count == 1)
    #expect(screen.state.branches.forks.first?.after == nil)  // the first message of the conversation
    let newAnswer = try #require(screen.state.messages.last).clientID

    // When the user taps "‹" on the edited question,
    store.send(.showSibling(of: edit.clientID, .previous))
    // then the old question and its answer are back, marked "‹ 1/2 ›".
    #expect(screen.state.userError == nil)
    #expect(screen.texts == ["Where is my order?", "It ships today."])
    #expect(screen.state.messages.map(\.clientID) == [question, firstAnswer])
    #expect(screen.siblingMarks == ["‹ 1/2 ›", ""])
    // There is no sibling before the first one.
    #expect(screen.refused(.showSibling(of: question, .previous))?.code == .unknownMessage)

    // When the user sends a follow-up on the old branch,
    store.sendMessage("Can you send the tracking link?")
    #expect(await screen.letTheAgentAnswer())
    // then it is answered there, and the branch keeps its place among the question's versions.
    #expect(
      screen.texts == [
        "Where is my order?", "It ships today.", "Can you send the tracking link?", "Yes, tracking sent.",
      ])
    #expect(screen.siblingMarks == ["‹ 1/2 ›", "", "", ""])
    let followUpAnswer = try #require(screen.state.messages.last).clientID

    // When the user jumps to the edited branch by one of its messages (a search hit, a link),
    store.send(.showBranch(containing: newAnswer))
    // then that branch is shown whole,
    #expect(screen.state.userError == nil)
    #expect(screen.texts == ["When does it reach Lyon?", "Lyon: Thursday."])
    #expect(screen.siblingMarks == ["‹ 2/2 ›", ""])
    // and the follow-up was kept with the old branch: jumping to it brings all four back.
    store.send(.showBranch(containing: followUpAnswer))
    #expect(screen.texts.count == 4)
    #expect(screen.siblingMarks == ["‹ 1/2 ›", "", "", ""])
    // Showing a branch already on screen changes nothing.
    #expect(screen.refused(.showBranch(containing: question)) == nil)

    // Picking a version by index works too ("2" in a menu of versions).
    store.send(.showSibling(of: question, .index(1)))
    #expect(screen.texts == ["When does it reach Lyon?", "Lyon: Thursday."])
    // There is no third version.
    #expect(screen.refused(.showSibling(of: edit.clientID, .next))?.code == .unknownMessage)
    #expect(screen.refused(.showSibling(of: edit.clientID, .index(2)))?.code == .unknownMessage)
    screen.store.close()
  }

  @Test("an answer regenerated becomes 2 of 2, under an edited question that stays 2 of 2")
  func regenerateUnderAnEdit() async throws {
    // Given a question edited and answered.
    let screen = try Screen(replies: ["First.|<finish>", "Second.|<finish>", "Third, |better.|<finish>"])
    let store = screen.store
    let question = store.sendMessage("Hi")
    #expect(await screen.letTheAgentAnswer())
    let edit = screen.outgoing("Hello")
    store.send(.edit(question, edit))
    #expect(await screen.letTheAgentAnswer())
    let answer = try #require(screen.state.messages.last).clientID
    #expect(screen.siblingMarks == ["‹ 2/2 ›", ""])

    // When the user regenerates the answer,
    store.send(.regenerate(answer))
    #expect(screen.state.userError == nil)
    // then, while the new one streams, the old answer is still on screen,
    #expect(await screen.clock.run { store.state.streamingReply != nil })
    #expect(screen.state.messages.map(\.clientID) == [edit.clientID, answer])
    // and once it finishes, the new answer is "‹ 2/2 ›" and the question keeps its own "‹ 2/2 ›".
    #expect(await screen.letTheAgentAnswer())
    #expect(screen.texts == ["Hello", "Third, better."])
    #expect(screen.siblingMarks == ["‹ 2/2 ›", "‹ 2/2 ›"])

    // When the user goes back to the first answer, then to the first question,
    let regenerated = try #require(screen.state.messages.last).clientID
    store.send(.showSibling(of: regenerated, .previous))
    #expect(screen.texts == ["Hello", "Second."])
    #expect(screen.siblingMarks == ["‹ 2/2 ›", "‹ 1/2 ›"])
    store.send(.showSibling(of: edit.clientID, .previous))
    #expect(screen.texts == ["Hi", "First."])
    #expect(screen.siblingMarks == ["‹ 1/2 ›", ""])
    // then coming back to the edit shows its answer as the user left it (the first one).
    store.send(.showSibling(of: question, .next))
    #expect(screen.texts == ["Hello", "Second."])
    screen.store.close()
  }

  @Test("the mistakes a host makes are refused with a typed error and change nothing")
  func mistakesAreRefused() async throws {
    // Given a question edited and answered, and shown again as it was first.
    let screen = try Screen(replies: [
      "It ships |today.|<finish>",
      "Lyon: |Thursday.|<finish>",
      "A |slow |answer |in |many |pieces.|<finish>",
      "<error 500 SERVER_ERROR>",
    ])
    let store = screen.store
    let question = store.sendMessage("Where is my order?")
    #expect(await screen.letTheAgentAnswer())
    let answer = try #require(screen.state.messages.last).clientID
    let edit = screen.outgoing("When does it reach Lyon?")
    store.send(.edit(question, edit))
    #expect(await screen.letTheAgentAnswer())
    store.send(.showSibling(of: edit.clientID, .previous))
    #expect(screen.state.messages.map(\.clientID) == [question, answer])

    // When the host edits the agent's answer, it is refused: only the user's messages can be edited.
    #expect(screen.refused(.edit(answer, screen.outgoing("Better answer")))?.code == .invalidAction)
    // When it edits a message that is not on screen (the edit, now off screen), or does not exist.
    #expect(screen.refused(.edit(edit.clientID, screen.outgoing("Again")))?.code == .unknownMessage)
    #expect(screen.refused(.edit("no-such-message", screen.outgoing("Again")))?.code == .unknownMessage)
    // When the edit is empty, it is refused as a send would be.
    #expect(screen.refused(.edit(question, screen.outgoing("")))?.code == .emptyMessage)
    // When the edit reuses a client ID already in the conversation.
    #expect(
      screen.refused(
        .edit(question, OutgoingMessage(clientID: answer, text: "Dup", createdAt: screen.clock.now())))?
        .code == .invalidAction)
    // When the host switches a message that has no siblings.
    #expect(screen.refused(.showSibling(of: answer, .next))?.code == .unknownMessage)
    #expect(screen.refused(.showBranch(containing: "no-such-message"))?.code == .unknownMessage)

    // Given a follow-up whose answer is streaming,
    store.sendMessage("Is it insured?")
    #expect(await screen.clock.run { store.state.streamingReply != nil })
    // when the user edits their question, or switches, meanwhile, it is refused and the reply goes on.
    #expect(screen.refused(.edit(question, screen.outgoing("Where is it now?")))?.code == .invalidAction)
    #expect(screen.refused(.showSibling(of: question, .next))?.code == .invalidAction)
    #expect(screen.refused(.showBranch(containing: edit.clientID))?.code == .invalidAction)
    #expect(await screen.letTheAgentAnswer())
    #expect(screen.state.messages.last?.text == "A slow answer in many pieces.")

    // Given a message the user wrote that could not be sent,
    let unsent = store.sendMessage("Hello?")
    #expect(
      await screen.clock.run {
        if case .failed = store.state.messages[clientID: unsent]?.delivery { return store.state.isSettled }
        return false
      })
    // when the user switches branches meanwhile, it is refused: the unsent message would be lost.
    #expect(screen.refused(.showSibling(of: question, .next))?.code == .invalidAction)
    #expect(screen.refused(.showBranch(containing: edit.clientID))?.code == .invalidAction)
    // Editing an unsent message is refused too (take it back into the draft instead).
    #expect(screen.refused(.edit(unsent, screen.outgoing("Hello!")))?.code == .invalidAction)

    // Once the user discards it, switching works again.
    store.send(.discard(unsent))
    store.send(.showSibling(of: question, .next))
    #expect(screen.state.userError == nil)
    #expect(screen.state.messages.first?.clientID == edit.clientID)
    screen.store.close()
  }

  @Test("an edit that could not be sent, discarded, shows the branch it replaced again")
  func failedEditDiscarded() async throws {
    // Given a question answered, and an agent that fails the next send.
    let screen = try Screen(replies: ["It ships today.|<finish>", "<error 500 SERVER_ERROR>"])
    let store = screen.store
    let question = store.sendMessage("Where is my order?")
    #expect(await screen.letTheAgentAnswer())
    let before = screen.texts

    // When the user edits the question and the edit fails,
    let edit = screen.outgoing("Where is it now?")
    store.send(.edit(question, edit))
    #expect(
      await screen.clock.run {
        if case .failed = store.state.messages[clientID: edit.clientID]?.delivery { return store.state.isSettled }
        return false
      })
    #expect(screen.state.messages.map(\.clientID) == [edit.clientID])

    // then discarding it brings the question and its answer back, with no sibling picker.
    store.send(.discard(edit.clientID))
    #expect(screen.texts == before)
    #expect(screen.state.branches.isEmpty)
    #expect(screen.siblingMarks == ["", ""])
    screen.store.close()
  }

  @Test("what goes to the server says where each message goes in the tree")
  func placementsOnTheWire() async throws {
    // Given a question answered in a conversation this device started.
    let screen = try Screen(replies: ["A1.|<finish>", "A2.|<finish>", "F.|<finish>", "G.|<finish>"])
    let store = screen.store
    let question = store.sendMessage("Q1")
    #expect(await screen.letTheAgentAnswer())
    let firstAnswer = try #require(screen.state.messages.last)

    // When the user edits the conversation's first message,
    let edit = screen.outgoing("Q2")
    store.send(.edit(question, edit))
    #expect(await screen.letTheAgentAnswer())
    // then, as `MessagePlacement.first` and `SendPayload.placement` say, the edit goes first of all, so a
    // server that keeps a tree makes it a sibling of Q1 (a conversation this device started has nothing
    // older on the server)
    #expect(screen.sent.payload(of: edit.clientID)?.placement == .first)

    // When the user switches back and follows up on the old branch, the follow-up goes after its answer.
    store.send(.showSibling(of: edit.clientID, .previous))
    let followUp = store.sendMessage("F1")
    #expect(await screen.letTheAgentAnswer())
    let placement = try #require(screen.sent.payload(of: followUp)?.placement)
    #expect(placement == .after(try #require(firstAnswer.serverID)))

    // When the user edits that follow-up, the edit follows the same answer.
    let second = screen.outgoing("F2")
    store.send(.edit(followUp, second))
    #expect(await screen.letTheAgentAnswer())
    #expect(screen.sent.payload(of: second.clientID)?.placement == .after(try #require(firstAnswer.serverID)))
    #expect(screen.siblingMarks == ["‹ 1/2 ›", "", "‹ 2/2 ›", ""])
    store.close()
  }
}

/// A host's own backend in front of the scripted one: it keeps what each send put on the wire.
final class SendLog: ChatBackend {
  private let scripted: ScriptedBackend
  private let payloads = StateLock<[SendPayload]>([])

  init(_ scripted: ScriptedBackend) { self.scripted = scripted }

  /// The payload of the send of `message`, as the backend got it.
  func payload(of message: ClientMessageID) -> SendPayload? {
    payloads.withLock { sends in sends.last { $0.clientID == message } }
  }

  func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    payloads.withLock { $0.append(payload) }
    return scripted.send(payload)
  }
  func regenerate(in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    scripted.regenerate(in: conversation, replyTo: prompt, answer: answer)
  }
  func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws -> HistoryPage {
    try await scripted.history(of: conversation, before: cursor, limit: limit)
  }
  func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] {
    try await scripted.messages(in: conversation, after: after)
  }
  func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    scripted.realtime(conversation: conversation)
  }
}

@Test("ConversationAction.edit's example edits a sent question into a sibling")
func editDocExample() async throws {
  let screen = try HostBranchesTryout.Screen(replies: ["It ships Monday.", "Lyon, then."])
  screen.store.sendMessage("Ship it to Paris")
  #expect(await screen.letTheAgentAnswer())
  let question = try #require(screen.state.messages.first)
  screen.edit(question)
  #expect(await screen.letTheAgentAnswer())
  #expect(screen.texts == ["Ship it to Lyon", "Lyon, then."])
  #expect(screen.siblingMarks == ["‹ 2/2 ›", ""])
  screen.store.close()
}

// README-BRANCHES-BEGIN
/// A row's sibling picker, "‹ 2/3 ›", with its arrows enabled only while the path on screen may change.
func siblingPicker(for message: Message, in state: ConversationState) -> (label: String, enabled: Bool)? {
  guard let place = state.branches.place(of: message.clientID) else { return nil }
  return ("‹ \(place.index + 1)/\(place.count) ›", state.canChangeBranch)
}

/// The picker's arrows, and Edit on a message the user sent: each a new sibling or another one shown.
func branchButtons(_ store: ChatStore, message: Message, newText: String?, forward: Bool) {
  if let newText {
    let edited = OutgoingMessage(
      clientID: ClientMessageID(store.environment.makeID()), text: newText, createdAt: store.environment.clock.now())
    store.send(.edit(message.clientID, edited))
  } else {
    store.send(.showSibling(of: message.clientID, forward ? .next : .previous))
  }
}
// README-BRANCHES-END

@Test("the README's sibling picker and branch buttons edit, draw and switch as it says")
func readmeBranches() async throws {
  let screen = try HostBranchesTryout.Screen(replies: ["It ships Monday.", "Lyon, then."])
  screen.store.sendMessage("Ship it to Paris")
  #expect(await screen.letTheAgentAnswer())
  let question = try #require(screen.state.messages.first)
  branchButtons(screen.store, message: question, newText: "Ship it to Lyon", forward: false)
  #expect(await screen.letTheAgentAnswer())
  let edited = try #require(screen.state.messages.first)
  #expect(siblingPicker(for: edited, in: screen.state)?.label == "‹ 2/2 ›")
  #expect(siblingPicker(for: edited, in: screen.state)?.enabled == true)
  #expect(siblingPicker(for: try #require(screen.state.messages.last), in: screen.state) == nil)
  branchButtons(screen.store, message: edited, newText: nil, forward: false)
  #expect(screen.texts == ["Ship it to Paris", "It ships Monday."])
  #expect(
    try ReadmeExcerpt(marker: "README-BRANCHES", in: #filePath).isShown(in: "README.md"),
    "README.md shows the branch picker as this file has it")
  screen.store.close()
}
