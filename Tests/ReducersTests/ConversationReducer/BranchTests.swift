import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// A regenerated answer keeps the old one as its sibling; the user switches between them.
@Suite("Branches: regenerate into a sibling, switch, and the path on screen")
struct BranchTests {
  /// Q1, A1, Q2, A2: two questions answered.
  static func answered() -> Chat {
    Chat.existing([
      .server("Q1", id: "s1", role: .user, at: 1), .server("A1", id: "s2", at: 2),
      .server("Q2", id: "s3", role: .user, at: 3), .server("A2", id: "s4", at: 4),
    ])
  }

  /// Regenerates `answer` and finishes the new one as `text` (server ID `id`, at `seconds`); returns its
  /// client ID (the streaming reply's).
  @discardableResult
  static func regenerate(_ chat: Chat, _ answer: ClientMessageID, into text: String, id: String, at seconds: Double)
    -> ClientMessageID
  {
    let request = chat.nextRequestID
    chat.send([.regenerate(answer), .replyStarted(request, agent: nil, at: time(seconds)), .replyDelta(request, text)])
    let clientID = chat.state.streamingReply!.clientID
    chat.send(.replyFinished(request, message: .server(text, id: id, at: seconds)))
    return clientID
  }

  @Test("a regenerated answer keeps the old one as its sibling, and the user switches between them")
  func regenerateKeepsSibling() {
    // Given an answered question
    let chat = Self.answered()

    // When the last answer is regenerated
    let v2 = Self.regenerate(chat, "srv-s4", into: "A2 v2", id: "s5", at: 5)

    // Then the new answer is shown, second of two
    #expect(chat.texts == ["Q1", "A1", "Q2", "A2 v2"])
    #expect(chat.state.branches.place(of: v2) == ConversationBranches.Place(index: 1, count: 2))

    // When the user shows the previous sibling, then the next again
    chat.send(.showSibling(of: v2, .previous))
    #expect(chat.texts == ["Q1", "A1", "Q2", "A2"])
    #expect(chat.state.branches.place(of: "srv-s4") == ConversationBranches.Place(index: 0, count: 2))
    chat.send(.showSibling(of: "srv-s4", .next))

    // Then each switch shows the chosen path whole, and nothing was lost
    #expect(chat.texts == ["Q1", "A1", "Q2", "A2 v2"])
    #expect(chat.state.userError == nil)
  }

  @Test("regenerating again adds a third sibling; the agent is sent the path on screen")
  func thirdSiblingAndAgentPath() {
    // Given an answer regenerated twice
    let chat = Self.answered()
    let v2 = Self.regenerate(chat, "srv-s4", into: "A2 v2", id: "s5", at: 5)
    let v3 = Self.regenerate(chat, v2, into: "A2 v3", id: "s6", at: 6)
    #expect(chat.state.branches.place(of: v3) == ConversationBranches.Place(index: 2, count: 3))

    // When the user shows the first
    chat.send(.showSibling(of: v3, .index(0)))

    // Then the first is shown, and it is what an agent request would carry
    #expect(chat.texts == ["Q1", "A1", "Q2", "A2"])
    let window = chat.state.agentContextWindow(ending: .everything, limit: 10)
    #expect(window.messages.map(\.text) == ["Q1", "A1", "Q2", "A2"])
  }

  @Test("a fork inside a hidden path goes with it, and showing a message by ID switches at every fork on the way")
  func nestedForks() {
    // Given A1 regenerated (hiding Q2 and A2 with it), then A1 v2 answered on and its answer regenerated
    let chat = Self.answered()
    let a1v2 = Self.regenerate(chat, "srv-s2", into: "A1 v2", id: "s5", at: 5)
    #expect(chat.texts == ["Q1", "A1 v2"])
    chat.send(.realtime("conv-1", .messageCreated(.server("Q3", id: "s6", role: .user, at: 6))))
    chat.send(.realtime("conv-1", .messageCreated(.server("A3", id: "s7", at: 7))))
    let a3v2 = Self.regenerate(chat, "srv-s7", into: "A3 v2", id: "s8", at: 8)
    #expect(chat.texts == ["Q1", "A1 v2", "Q3", "A3 v2"])

    // When the user goes back to the first A1
    chat.send(.showSibling(of: a1v2, .previous))

    // Then the old path is shown, and the fork after Q3 left the screen with its path
    #expect(chat.texts == ["Q1", "A1", "Q2", "A2"])
    #expect(chat.state.branches.place(of: a3v2) == nil)

    // When the user opens the first A3 (a search result, say) by its ID
    chat.send(.showBranch(containing: "srv-s7"))

    // Then both forks switched to reach it
    #expect(chat.texts == ["Q1", "A1 v2", "Q3", "A3"])
    #expect(chat.state.branches.place(of: "srv-s7") == ConversationBranches.Place(index: 0, count: 2))
    #expect(chat.state.branches.place(of: a1v2) == ConversationBranches.Place(index: 1, count: 2))
  }

  /// What a UI may not do, and the error it gets.
  enum Refusal: String, CaseIterable, CustomTestStringConvertible {
    case whileStreaming, unsentMessage, noSiblings, noSuchSibling, noBranchHolds
    var testDescription: String { rawValue }
  }

  @Test(
    "a switch the UI may not make is refused with a typed error and changes no message", arguments: Refusal.allCases)
  func refused(_ refusal: Refusal) {
    // Given an answer with a sibling
    let chat = Self.answered()
    let v2 = Self.regenerate(chat, "srv-s4", into: "A2 v2", id: "s5", at: 5)
    let action: ConversationAction
    let code: ChatError.Code
    switch refusal {
    case .whileStreaming:
      chat.send(.realtime("conv-1", .replyStarted("s9", agent: nil, at: time(9))))
      (action, code) = (.showSibling(of: v2, .previous), .invalidAction)
    case .unsentMessage:
      chat.send(.disconnect)
      chat.userSends("waiting", id: "c1", at: 9)
      (action, code) = (.showSibling(of: v2, .previous), .invalidAction)
    case .noSiblings: (action, code) = (.showSibling(of: "srv-s1", .next), .unknownMessage)
    case .noSuchSibling: (action, code) = (.showSibling(of: v2, .next), .unknownMessage)
    case .noBranchHolds: (action, code) = (.showBranch(containing: "nowhere"), .unknownMessage)
    }
    let before = chat.state.messages

    // When the UI asks
    let effects = chat.send(action)

    // Then it is refused, asks for nothing, and the messages are as they were
    #expect(effects == [])
    #expect(chat.state.userError?.code == code)
    #expect(chat.state.messages.map(\.clientID) == before.map(\.clientID))
  }

  @Test("a fork whose shown message was trimmed from memory is refused, not half switched or looped on")
  func trimmedForkRefused() {
    // Given A1 regenerated (its path, A1 v2, shown), then answered on, and the older end trimmed so that A1 v2
    // is no longer in memory
    let chat = Self.answered()
    let a1v2 = Self.regenerate(chat, "srv-s2", into: "A1 v2", id: "s5", at: 5)
    chat.send(.realtime("conv-1", .messageCreated(.server("Q3", id: "s6", role: .user, at: 6))))
    chat.send(.realtime("conv-1", .messageCreated(.server("A3", id: "s7", at: 7))))
    chat.send(.trimHistory(keepingNewest: 2))
    #expect(!chat.state.messages.contains(a1v2))
    let before = chat.state.messages.map(\.clientID)

    // When the user asks for the other sibling, or for a message of the hidden path
    for action in [ConversationAction.showSibling(of: a1v2, .previous), .showBranch(containing: "srv-s4")] {
      chat.send(.clearError)
      let effects = chat.send(action)

      // Then it is refused with a typed error, and what is on screen and kept is as it was
      #expect(effects == [])
      #expect(chat.state.userError?.code == .invalidAction)
      #expect(chat.state.messages.map(\.clientID) == before)
      #expect(chat.state.branches.place(of: a1v2) == ConversationBranches.Place(index: 1, count: 2))
    }
  }

  @Test("a read cursor being saved does not hold a switch; a rating in flight does, and canChangeBranch says so")
  func whatHoldsASwitch() {
    // Given an answer with a sibling, connected
    let chat = Self.answered()
    chat.connected()
    let v2 = Self.regenerate(chat, "srv-s4", into: "A2 v2", id: "s5", at: 5)

    // When the UI marks the new answer read (its save is in flight)
    chat.send(.markRead(upTo: "s5"))

    // Then the picker stays enabled, and a switch is made
    #expect(chat.state.canChangeBranch)
    chat.send(.showSibling(of: v2, .previous))
    #expect(chat.texts == ["Q1", "A1", "Q2", "A2"])
    #expect(chat.state.userError == nil)

    // When the user rates the answer on screen (the rating in flight may be rolled back)
    chat.send(.rateAnswer("srv-s4", .up))

    // Then the picker is disabled until it is answered, and a switch is refused
    #expect(!chat.state.canChangeBranch)
    chat.send(.showSibling(of: "srv-s4", .next))
    #expect(chat.state.userError?.code == .invalidAction)
    #expect(chat.texts == ["Q1", "A1", "Q2", "A2"])
  }

  @Test("the branches survive the state's JSON, as a relaunch reads them")
  func branchesEncode() throws {
    let chat = Self.answered()
    let v2 = Self.regenerate(chat, "srv-s4", into: "A2 v2", id: "s5", at: 5)
    let decoded = try JSONDecoder().decode(ConversationState.self, from: JSONEncoder().encode(chat.state))
    #expect(decoded.branches == chat.state.branches)
    #expect(decoded.branches.place(of: v2)?.count == 2)
  }
}

/// What a UI's sibling picker was asked to show, for `ConversationBranches`' example.
private final class Picker {
  var shown: [(index: Int, count: Int)] = []
}

@Test("ConversationBranches' example: a regenerated answer's picker reads 2 of 2")
func siblingPickerExample() {
  let chat = BranchTests.answered()
  let v2 = BranchTests.regenerate(chat, "srv-s4", into: "A2 v2", id: "s5", at: 5)
  let state = chat.state
  let picker = Picker()
  func siblingPicker(index: Int, count: Int) { picker.shown.append((index, count)) }
  for message in state.messages {
    // DOCC-BRANCHES-PLACE-BEGIN
    if let place = state.branches.place(of: message.clientID) {
      siblingPicker(index: place.index, count: place.count)  // "‹ 2/3 ›" is index 1 of 3
    }
    // DOCC-BRANCHES-PLACE-END
  }
  #expect(picker.shown.map(\.index) == [1] && picker.shown.map(\.count) == [2])
  #expect(state.messages.last?.clientID == v2)
}
