import ConversationStore
import ConversationTesting
import Foundation
import Testing

// README-LIST-BEGIN
/// A sidebar row's menu: rename, pin, archive, delete. Each shows at once; a refusal puts it back and sets
/// `list.state.error`.
func rowMenu(_ list: ConversationListStore, _ row: ConversationSummary, newTitle: String)
  -> [(title: String, action: () -> Void)]
{
  [
    ("Rename", { list.send(.change(row.id, .title(newTitle))) }),
    (
      row.isPinned ? "Unpin" : "Pin",
      { list.send(.change(row.id, .pinned(!row.isPinned, at: list.environment.clock.now()))) }
    ),
    (row.isArchived ? "Unarchive" : "Archive", { list.send(.change(row.id, .archived(!row.isArchived))) }),
    ("Delete", { list.send(.delete(row.id)) }),
  ]
}

/// The toast shown while a deletion can still be taken back (`ChatPolicy.deleteUndoWindow`).
func undoToast(_ list: ConversationListStore) -> (text: String, undo: () -> Void)? {
  guard let deletion = list.state.deleting.last, !deletion.isCommitted else { return nil }
  return ("“\(deletion.row.title)” deleted", { list.send(.undoDelete(deletion.row.id)) })
}
// README-LIST-END

// README-TITLE-BEGIN
/// Names a new chat after its first answer: asks the agent for a short title on a store of its own (a new
/// conversation on a server that keeps them; nothing kept on an agent backend).
func nameAfterFirstAnswer(_ chat: ChatStore, in list: ConversationListStore, backend: any ChatBackend) async {
  guard let id = chat.state.conversationID, let question = chat.state.messages.first?.text else { return }
  let titler = ChatStore(backend: backend)
  defer { titler.close() }
  if let answer = try? await titler.ask("A title of at most five words for a chat that starts: \(question)") {
    list.send(.titleGenerated(id, answer.text))
  }
}
// README-TITLE-END

/// A host trying the managed list from the README and the doc comments: a `ConversationListStore` against a
/// `ScriptedBackend` (a server that keeps a list) on a `TestClock`.
@Suite("Host tryout: the user manages their list", .hangGuard)
struct HostListTryout {
  static func sidebar(_ clock: TestClock, _ backend: ScriptedBackend) async -> ConversationListStore {
    let list = ConversationListStore(backend: backend, environment: .deterministic(clock: clock))
    list.send(.load(pageSize: 20))
    _ = await list.state(where: { $0.hasLoaded })
    return list
  }

  static let page = ConversationPage(
    conversations: [
      ConversationSummary(id: "c1", title: "Order 1042", lastActivityAt: .story(30)),
      ConversationSummary(id: "c2", title: "Visa", lastActivityAt: .story(20)),
      ConversationSummary(id: "c3", title: "Kettle", lastActivityAt: .story(10)),
    ], nextCursor: nil, hasMore: false)

  @Test("renamed, pinned and archived from the menu: shown at once, in order, and told to the server")
  func menu() async throws {
    let clock = TestClock()
    let backend = try ScriptedBackend(clock: clock, conversationPages: [Self.page])
    let list = await Self.sidebar(clock, backend)

    func item(_ title: String, of id: ConversationID) throws -> () -> Void {
      let row = try #require(list.state.conversations[id])
      return try #require(rowMenu(list, row, newTitle: "Refund for the kettle").first { $0.title == title }).action
    }
    try item("Rename", of: "c3")()
    try item("Pin", of: "c3")()
    try item("Archive", of: "c2")()

    #expect(list.state.shown.map(\.title) == ["Refund for the kettle", "Order 1042"])
    _ = await list.state(where: { $0.edits.isEmpty })
    #expect(backend.listChanges.count == 3)
    #expect(list.state.error == nil)
    list.close()
  }

  @Test("deleted, then undone from the toast; deleted again, it goes once the window passes")
  func deleteWithUndo() async throws {
    let clock = TestClock()
    let backend = try ScriptedBackend(clock: clock, conversationPages: [Self.page])
    let list = await Self.sidebar(clock, backend)

    try #require(rowMenu(list, list.state.conversations["c1"]!, newTitle: "").last).action()
    let toast = try #require(undoToast(list))
    #expect(toast.text == "“Order 1042” deleted")
    toast.undo()
    #expect(list.state.shown.map(\.id) == ["c1", "c2", "c3"])

    try #require(rowMenu(list, list.state.conversations["c1"]!, newTitle: "").last).action()
    #expect(await clock.run { list.state.deleted.contains("c1") })
    #expect(undoToast(list) == nil)
    #expect(backend.listChanges == [.deleted("c1")])
    #expect(try ReadmeExcerpt(marker: "README-LIST", in: #filePath).isShown(in: "README.md"))
    list.close()
  }

  @Test("a rename the server refuses comes back, with the server's reason")
  func refused() async throws {
    let clock = TestClock()
    let backend = try ScriptedBackend(clock: clock, conversationPages: [Self.page])
    let list = await Self.sidebar(clock, backend)
    backend.refuseListChanges(with: ChatError(.invalidTitle, "Titles may not mention competitors."))

    try #require(rowMenu(list, list.state.conversations["c2"]!, newTitle: "Better than Acme").first).action()
    #expect(list.state.conversations["c2"]?.title == "Better than Acme", "shown at once")
    _ = await list.state(where: { $0.edits.isEmpty })
    #expect(list.state.conversations["c2"]?.title == "Visa")
    #expect(list.state.error?.message == "Titles may not mention competitors.")
    list.close()
  }

  @Test("a chat is named after its first answer by asking the agent; a title the user gave stays")
  func generatedTitle() async throws {
    // Given a chat whose first question was answered, listed with no title yet
    let clock = TestClock()
    let backend = try ScriptedBackend(
      clock: clock, replies: ["Your parcel is on its way.|<finish>", "Parcel delivery status|<finish>"])
    let chat = ChatStore(
      ConversationState(conversationID: "c1"), backend: backend, environment: .deterministic(clock: clock))
    defer { chat.close() }
    chat.sendMessage("Where is my parcel?")
    #expect(await clock.run { chat.state.isSettled && chat.state.messages.count == 2 })
    let list = ConversationListStore(backend: backend, environment: .deterministic(clock: clock))
    defer { list.close() }
    list.send(.realtime(.conversationCreated(ConversationSummary(id: "c1", title: "Where is my parcel?"))))

    // When the host asks the agent for a title
    let naming = Task { await nameAfterFirstAnswer(chat, in: list, backend: backend) }
    #expect(await clock.run { list.state.conversations["c1"]?.title == "Parcel delivery status" })
    await naming.value

    // Then a title the user gives is never replaced by a generated one
    list.send(.change("c1", .title("Lost parcel")))
    list.send(.titleGenerated("c1", "Something else"))
    #expect(list.state.conversations["c1"]?.title == "Lost parcel")
    #expect(try ReadmeExcerpt(marker: "README-TITLE", in: #filePath).isShown(in: "README.md"))
  }
}
