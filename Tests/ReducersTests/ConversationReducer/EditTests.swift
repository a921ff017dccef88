import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// A sent question edited: the new one is its sibling, sent after the message before it, and answered.
@Suite("Branches: edit a sent message into a sibling")
struct EditTests {
  static func edited(_ text: String, id: ClientMessageID, at seconds: Double) -> OutgoingMessage {
    OutgoingMessage(clientID: id, text: text, createdAt: time(seconds))
  }

  /// The send effect among `effects`.
  static func sent(_ effects: [ConversationEffect]) -> SendPayload? {
    effects.lazy.compactMap { effect -> SendPayload? in
      if case .sendMessage(_, let payload) = effect { return payload }
      return nil
    }.first
  }

  @Test("an edited question is sent after the message before it, answered, and the old one stays its sibling")
  func editIntoSibling() {
    // Given two questions answered
    let chat = BranchTests.answered()
    chat.connected()

    // When the user edits the second question
    let request = chat.nextRequestID
    let effects = chat.send(.edit("srv-s3", Self.edited("Q2, better", id: "e1", at: 5)))

    // Then the old question and its answer leave the screen, the edit is sent after A1, and it is 2 of 2
    #expect(chat.texts == ["Q1", "A1", "Q2, better"])
    let payload = Self.sent(effects)
    #expect(payload?.clientID == "e1")
    #expect(payload?.text == "Q2, better")
    #expect(payload?.placement == .after("s2"))
    #expect(chat.state.branches.place(of: "e1") == ConversationBranches.Place(index: 1, count: 2))

    // When the server accepts it and the agent answers
    chat.send(
      .sendAccepted(
        request, confirmed: .confirmed("Q2, better", clientID: "e1", serverID: "s5", at: 5), conversationID: "conv-1"))
    chat.send([.replyStarted(request, agent: nil, at: time(6)), .replyDelta(request, "A2, better")])
    chat.send(.replyFinished(request, message: .server("A2, better", id: "s6", at: 6)))
    #expect(chat.texts == ["Q1", "A1", "Q2, better", "A2, better"])

    // And the user goes back to the first question
    chat.send(.showSibling(of: "e1", .previous))

    // Then the old question and its answer are shown whole, and the agent would be sent them
    #expect(chat.texts == ["Q1", "A1", "Q2", "A2"])
    let window = chat.state.agentContextWindow(ending: .everything, limit: 10)
    #expect(window.messages.map(\.text) == ["Q1", "A1", "Q2", "A2"])
    #expect(chat.state.userError == nil)
  }

  @Test("after a switch, the next message is sent after the branch on screen; without branches, after the newest")
  func sendAfterSwitchNamesParent() {
    // Given a conversation without branches
    let chat = BranchTests.answered()
    chat.connected()
    let request = chat.nextRequestID

    // When the user writes, the send names no parent: the wire is as it was
    #expect(Self.sent(chat.send(.send(Self.edited("Q3", id: "c3", at: 5))))?.placement == nil)
    chat.send(
      .sendAccepted(
        request, confirmed: .confirmed("Q3", clientID: "c3", serverID: "s5", at: 5), conversationID: "conv-1"))
    chat.send(.replyFinished(request, message: .server("A3", id: "s6", at: 6)))

    // Given A2 regenerated into a sibling, and the old answer shown again
    let v2 = BranchTests.regenerate(chat, "srv-s4", into: "A2 v2", id: "s7", at: 7)
    chat.send(.showSibling(of: v2, .previous))
    #expect(chat.texts == ["Q1", "A1", "Q2", "A2", "Q3", "A3"])

    // When the user writes on that branch
    let payload = Self.sent(chat.send(.send(Self.edited("Q4", id: "c4", at: 8))))

    // Then the send names the branch's last message as the one it follows
    #expect(payload?.placement == .after("s6"))
  }

  /// What a UI may not do, and the error it gets.
  enum Refusal: String, CaseIterable, CustomTestStringConvertible {
    case agentsMessage, noSuchMessage, whileStreaming, unsentMessage, emptyText, clientIDOfASibling, conversationEnded
    var testDescription: String { rawValue }
  }

  @Test("an edit the UI may not make is refused with a typed error and changes nothing", arguments: Refusal.allCases)
  func refused(_ refusal: Refusal) {
    // Given two questions answered, the last answer regenerated into a sibling
    let chat = BranchTests.answered()
    let v2 = BranchTests.regenerate(chat, "srv-s4", into: "A2 v2", id: "s5", at: 5)
    var target: ClientMessageID = "srv-s3"
    var replacement = Self.edited("Better", id: "e1", at: 9)
    let code: ChatError.Code
    switch refusal {
    case .agentsMessage: (target, code) = (v2, .invalidAction)
    case .noSuchMessage: (target, code) = ("nowhere", .unknownMessage)
    case .whileStreaming:
      chat.send(.realtime("conv-1", .replyStarted("s9", agent: nil, at: time(9))))
      code = .invalidAction
    case .unsentMessage:
      chat.send(.disconnect)
      chat.userSends("waiting", id: "c1", at: 9)
      code = .invalidAction
    case .emptyText:
      replacement.text = "  "
      code = .emptyMessage
    case .clientIDOfASibling:
      replacement.clientID = "srv-s4"  // the answer regenerated away, kept off screen
      code = .invalidAction
    case .conversationEnded:
      chat.send(.realtime("conv-1", .statusChanged(.ended)))
      code = .conversationNotOngoing
    }
    let messages = chat.state.messages
    let branches = chat.state.branches

    // When the UI asks
    let effects = chat.send(.edit(target, replacement))

    // Then it is refused, asks for nothing, and the messages and branches are as they were
    #expect(effects == [])
    #expect(chat.state.userError?.code == code)
    #expect(chat.state.messages == messages)
    #expect(chat.state.branches == branches)
  }

  @Test("an edit whose send failed, discarded, brings the question it replaced back")
  func discardedEditRestores() {
    // Given a question edited, and the edit's send refused
    let chat = BranchTests.answered()
    chat.connected()
    let request = chat.nextRequestID
    chat.send(.edit("srv-s3", Self.edited("Q2, better", id: "e1", at: 5)))
    chat.send(.requestFailed(request, ChatError(.messageTooLong, "too long"), at: time(6)))
    #expect(chat.texts == ["Q1", "A1", "Q2, better"])

    // When the user gives the edit up
    chat.send(.discard("e1"))

    // Then the conversation is as it was before the edit, with no fork left
    #expect(chat.texts == ["Q1", "A1", "Q2", "A2"])
    #expect(chat.state.branches.isEmpty)
  }

  @Test("a server that keeps no branches sends the old question again: it stays off screen")
  func linearServerCopiesStayOff() {
    // Given a question edited and answered
    let chat = BranchTests.answered()
    chat.connected()
    let request = chat.nextRequestID
    chat.send(.edit("srv-s3", Self.edited("Q2, better", id: "e1", at: 5)))
    chat.send(
      .sendAccepted(
        request, confirmed: .confirmed("Q2, better", clientID: "e1", serverID: "s5", at: 5), conversationID: "conv-1"))
    chat.send(.replyFinished(request, message: .server("A2, better", id: "s6", at: 6)))

    // When its history page (a line: every message it has) and a late echo arrive
    let history = chat.nextRequestID
    chat.send(.loadHistory(pageSize: 20))
    chat.send(
      .historyLoaded(
        history,
        HistoryPage(
          messages: [
            .server("Q1", id: "s1", role: .user, at: 1), .server("A1", id: "s2", at: 2),
            .server("Q2", id: "s3", role: .user, at: 3), .server("A2", id: "s4", at: 4),
            .server("Q2, better", id: "s5", role: .user, at: 5), .server("A2, better", id: "s6", at: 6),
          ], nextCursor: nil, hasMore: false)))
    chat.send(.realtime("conv-1", .messageCreated(.server("A2", id: "s4", at: 4))))

    // Then the screen shows the edited branch only, and the old one is still its sibling
    #expect(chat.texts == ["Q1", "A1", "Q2, better", "A2, better"])
    #expect(chat.state.branches.place(of: "e1") == ConversationBranches.Place(index: 1, count: 2))
  }

  @Test(
    "an edit of the first question, made offline, waits in the outbox to go first, or beside it while older history is not loaded",
    arguments: [true, false])
  func offlineEditQueues(olderHistoryOnServer: Bool) {
    // Given a conversation with an answered question (all of it loaded, or not), offline, with the outbox
    var state = ConversationState.existing([
      .server("Q1", id: "s1", role: .user, at: 1), .server("A1", id: "s2", at: 2),
    ])
    state.history.hasMoreHistory = olderHistoryOnServer
    let chat = Chat(state, policy: OutboxDeliveryTests.policy)
    let connection = chat.connected()
    chat.send(.connectionLost(connection, ChatError(.network, "tunnel"), at: time(5), jitter: 0.5))

    // When the user edits the question
    let effects = chat.send(.edit("srv-s1", Self.edited("Q1, better", id: "e1", at: 6)))

    // Then it is handed to the outbox as a send that goes first; with older messages not loaded, what comes
    // before is unknown here, and it goes beside the question it replaces (the server knows its parent)
    var expected = Self.edited("Q1, better", id: "e1", at: 6)
    expected.placement = olderHistoryOnServer ? .beside("s1") : .first
    #expect(
      effects.contains(
        .enqueueOutbox(
          OutboxOperation(id: "send-e1", conversationID: "conv-1", kind: .send(expected), enqueuedAt: time(6)))))
    #expect(chat.texts == ["Q1, better"])
    #expect(chat.state.branches.place(of: "e1") == ConversationBranches.Place(index: 1, count: 2))
  }

  @Test("an edit of a later question made offline carries the message it follows to the outbox")
  func offlineEditCarriesParent() {
    // Given two questions answered, offline, with the outbox
    let state = BranchTests.answered().state
    let chat = Chat(state, policy: OutboxDeliveryTests.policy)
    let connection = chat.connected()
    chat.send(.connectionLost(connection, ChatError(.network, "tunnel"), at: time(5), jitter: 0.5))

    // When the user edits the second question
    let effects = chat.send(.edit("srv-s3", Self.edited("Q2, better", id: "e1", at: 6)))

    // Then the outbox's operation names A1 as the message it follows
    let placements = effects.compactMap { effect -> MessagePlacement?? in
      if case .enqueueOutbox(let operation) = effect, case .send(let outgoing) = operation.kind {
        return outgoing.placement
      }
      return nil
    }
    #expect(placements == [.some(.after("s2"))])
  }
}
