import ChatHTTP
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Edits and sibling switches (#52) against the reference server, which keeps a tree as
/// `Docs/HTTP-PROTOCOL.md` (Branches) describes: a send's `parent_id` decides where the new message goes, and
/// the server's line of history follows it.
@Suite("Branches against the reference server, which keeps a tree", .hangGuard)
struct ReferenceServerBranchTests {
  static let firstQuestion = "When does my parcel ship?"
  static let secondQuestion = "Can it go to Paris?"
  static let editedQuestion = "Can it go to Lyon?"
  static let followUp = "And how long does it take?"

  /// The state once the answer to `question` has finished and nothing but the connection is in flight.
  static func answered(_ store: ChatStore, _ question: String, count: Int) async throws -> ConversationState {
    try #require(
      await store.state(within: 60) { state in
        state.messages.count == count && state.streamingReply == nil && state.isSettled
          && state.messages.last?.reply == .completed
          && state.messages.last?.text.hasPrefix("You said: \(question). ") == true
      })
  }

  /// A store whose user asked two questions and got both answers from `server`.
  static func twoQuestionsAnswered(on server: ReferenceServer, connected: Bool) async throws -> ChatStore {
    let store = ChatStore(backend: try server.backend())
    if connected { store.send(.connect) }
    store.sendMessage(firstQuestion)
    _ = try await answered(store, firstQuestion, count: 2)
    store.sendMessage(secondQuestion)
    _ = try await answered(store, secondQuestion, count: 4)
    return store
  }

  /// Edits the second question of `store` into `editedQuestion` and waits for the edit's answer.
  static func editSecondQuestion(_ store: ChatStore) async throws -> ConversationState {
    let question = try #require(store.state.messages.first { $0.text == secondQuestion })
    store.send(.edit(question.clientID, OutgoingMessage(clientID: "edit-1", text: editedQuestion, createdAt: Date())))
    return try await answered(store, editedQuestion, count: 4)
  }

  /// The server's line of history, as a device that keeps no branches loads it: a fresh store's first page.
  static func lineOnServer(_ server: ReferenceServer, _ conversation: ConversationID) async throws -> [Message] {
    let reader = ChatStore(ConversationState(conversationID: conversation), backend: try server.backend())
    defer { reader.close() }
    reader.send(.loadHistory(pageSize: 50))
    return Array(try #require(await reader.state(within: 60) { $0.history.hasLoadedFirstPage }).messages)
  }

  /// Waits until `store` has applied every realtime event the server sent so far: the server announces a
  /// title, after them on the same connection, and the store shows it.
  static func realtimeApplied(_ store: ChatStore, on server: ReferenceServer, _ mark: String) async throws {
    let conversation = try #require(store.state.conversationID)
    try await server.control(
      "events", ["conversation_id": conversation.rawValue, "type": "conversation.title", "data": ["title": mark]])
    _ = try #require(await store.state(within: 60) { $0.title == mark })
  }

  @Test("an edited question is answered on a new line; switching back and writing on continues the old one")
  func editThenSwitchBack() async throws {
    // Given a user who asked two questions and got both answers, live on the realtime stream
    let server = try await ReferenceServer.start()
    let store = try await Self.twoQuestionsAnswered(on: server, connected: true)
    defer { store.close() }
    let before = store.state.messages.map(\.text)
    let oldIDs = store.state.messages.map(\.serverID)
    let conversation = try #require(store.state.conversationID)

    // When the user edits the second question and gets the answer to the edit
    let edited = try await Self.editSecondQuestion(store)

    // Then the server's history is the edited line, message for message
    #expect(edited.messages.map(\.text).prefix(3) == [Self.firstQuestion, before[1], Self.editedQuestion])
    let editedLine = try await Self.lineOnServer(server, conversation)
    #expect(editedLine.map(\.text) == edited.messages.map(\.text))
    #expect(editedLine.map(\.serverID) == edited.messages.map(\.serverID))
    // And the client still has the old question and its answer, as the sibling before the edit
    #expect(edited.branches.place(of: "edit-1") == ConversationBranches.Place(index: 1, count: 2))
    let fork = try #require(edited.branches.forks.first { $0.shown == "edit-1" })
    #expect(fork.paths.first?.messages.map(\.text) == Array(before.suffix(2)))

    // When the server's announcements of the new line have reached the store, the user switches back to the
    // old question and writes a follow-up there
    try await Self.realtimeApplied(store, on: server, "after the edit")
    let oldQuestion = try #require(fork.paths.first?.messages.first)
    store.send(.showSibling(of: "edit-1", .previous))
    let switched = try #require(await store.state(within: 60) { $0.messages.map(\.text) == before })
    #expect(switched.userError == nil)
    store.sendMessage(Self.followUp)
    _ = try await Self.answered(store, Self.followUp, count: 6)

    // Then the server followed the old branch: its history is the old line plus the follow-up and its answer
    try await Self.realtimeApplied(store, on: server, "after the follow-up")
    let shown = store.state
    let line = try await Self.lineOnServer(server, conversation)
    #expect(line.count == 6)
    #expect(Array(line.map(\.text).prefix(4)) == before)
    #expect(line.map(\.text).suffix(2).first == Self.followUp)
    // And the client's screen shows the same, having kept what it showed through the server's announcements
    #expect(shown.messages.map(\.text) == line.map(\.text))
    #expect(shown.messages.map(\.serverID) == line.map(\.serverID))
    #expect(shown.branches.place(of: oldQuestion.clientID) == ConversationBranches.Place(index: 0, count: 2))
    #expect(shown.userError == nil)
    #expect(shown.backgroundError == nil)
    // Through these announcements: the old question and answer left the line at the edit, the edited ones
    // at the follow-up
    let events = try await server.state()["events"] as? [[String: Any]] ?? []
    let deleted = events.filter { $0["event"] as? String == "message.deleted" }
      .map { ($0["data"] as? [String: Any])?["message_id"] as? String }
    #expect(deleted == (oldIDs.suffix(2) + edited.messages.map(\.serverID).suffix(2)).map { $0?.rawValue })
  }

  @Test("an edit's send names the message it follows: the server records parent_id and stores the edit after it")
  func editNamesItsParent() async throws {
    // Given a user who asked two questions and got both answers
    let server = try await ReferenceServer.start()
    let store = try await Self.twoQuestionsAnswered(on: server, connected: false)
    defer { store.close() }
    let firstAnswer = try #require(store.state.messages.dropFirst().first?.serverID)

    // When the user edits the second question
    let edited = try await Self.editSecondQuestion(store)

    // Then only the edit's send carried a parent_id, the first answer's ID
    let log = try await server.state()["log"] as? [[String: Any]] ?? []
    let sends = log.filter { $0["path"] as? String == "/v1/messages" }
    #expect(sends.count == 3)
    #expect(sends.compactMap { $0["parent_id"] as? String } == [firstAnswer.rawValue])
    // And the server stored the edit after the first answer, and its answer after the edit
    let conversation = try #require(edited.conversationID)
    let conversations = try await server.state()["conversations"] as? [String: Any]
    let parents = (conversations?[conversation.rawValue] as? [String: Any])?["parents"] as? [String: Any]
    let edit = try #require(edited.messages.first { $0.clientID == "edit-1" }?.serverID)
    let editAnswer = try #require(edited.messages.last?.serverID)
    #expect(parents?[edit.rawValue] as? String == firstAnswer.rawValue)
    #expect(parents?[editAnswer.rawValue] as? String == edit.rawValue)
  }

  @Test(
    "an edit of the first message loaded, with older history not loaded, goes beside it: the server follows its parent"
  )
  func editOfFirstLoadedGoesBeside() async throws {
    // Given a conversation of two answered questions, and a second device that loaded only its newest page
    let server = try await ReferenceServer.start()
    let first = try await Self.twoQuestionsAnswered(on: server, connected: false)
    defer { first.close() }
    let conversation = try #require(first.state.conversationID)
    let firstAnswer = try #require(first.state.messages.dropFirst().first?.serverID)
    let second = ChatStore(ConversationState(conversationID: conversation), backend: try server.backend())
    defer { second.close() }
    second.send(.loadHistory(pageSize: 2))
    let page = try #require(await second.state(within: 60) { $0.history.hasLoadedFirstPage })
    #expect(page.messages.map(\.text).first == Self.secondQuestion)
    #expect(page.history.hasOlderMessages)
    let replaced = try #require(page.messages.first?.serverID)

    // When the user edits the second question there, the first message that device shows
    second.send(
      .edit(
        try #require(page.messages.first?.clientID),
        OutgoingMessage(clientID: "edit-1", text: Self.editedQuestion, createdAt: Date())))
    _ = try await Self.answered(second, Self.editedQuestion, count: 2)

    // Then the edit's send named the question it replaces, not a parent this device never loaded
    let log = try await server.state()["log"] as? [[String: Any]] ?? []
    let edit = try #require(log.last { $0["path"] as? String == "/v1/messages" })
    #expect(edit["sibling_of"] as? String == replaced.rawValue)
    #expect(edit["parent_id"] == nil || edit["parent_id"] is NSNull)
    // And the server put the edit after the first answer, so its line is the first exchange and the edit's
    let line = try await Self.lineOnServer(server, conversation).map(\.text)
    #expect(line.prefix(3) == [Self.firstQuestion, line[1], Self.editedQuestion])
    let conversations = try await server.state()["conversations"] as? [String: Any]
    let parents = (conversations?[conversation.rawValue] as? [String: Any])?["parents"] as? [String: Any]
    let editID = try #require(second.state.messages.first { $0.clientID == "edit-1" }?.serverID)
    #expect(parents?[editID.rawValue] as? String == firstAnswer.rawValue)
  }
}
