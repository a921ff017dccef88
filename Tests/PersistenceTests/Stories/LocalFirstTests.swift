import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

@testable import Persistence

/// A history of `count` messages, one a second, alternating user and agent.
private func history(_ count: Int, id: ConversationID = "conv-1", text: (Int) -> String = { "message \($0)" })
  -> ConversationState
{
  .existing(
    (0..<count).map {
      .server(text($0), id: "\(id.rawValue)-s\($0)", role: $0 % 2 == 0 ? .user : .assistant, at: Double($0))
    },
    id: id)
}

@Suite("Local first: open at the newest page, page older history from disk")
struct LocalFirstTests {
  @Test("a long conversation reopens with its newest page only, and says older messages are stored")
  func opensAtNewestPage() throws {
    // Given a conversation of 1,000 messages on disk
    let root = ScratchRoot()
    try root.scope().conversation("conv-1").persist(history(1_000), changes: .reset, at: .story(0))

    // When it is opened again with a window of 30
    let file = try root.scope().conversation("conv-1", window: 30)

    // Then it shows the newest 30, in order, and knows the rest are on disk
    let restored = try #require(file.restored)
    #expect(restored.messages.map(\.text) == (970..<1_000).map { "message \($0)" })
    #expect(restored.history.hasStoredHistory)
    // And the journal holds only that window: its size does not grow with the history
    #expect(file.fileSize < 30 * 200)
  }

  @Test("older pages come from disk, oldest first, without gaps or repeats, until the first message")
  func pagesOlderHistoryFromDisk() throws {
    // Given a reopened conversation of 1,000 messages
    let root = ScratchRoot()
    try root.scope().conversation("conv-1").persist(history(1_000), changes: .reset, at: .story(0))
    let file = try root.scope().conversation("conv-1", window: 50)
    var shown = Array(try #require(file.restored).messages)

    // When the user scrolls up page by page
    var pages = 0
    while true {
      let page = try file.storedMessages(before: try #require(shown.first).orderKey, limit: 100)
      shown = page.messages + shown
      pages += 1
      if !page.hasMore { break }
    }

    // Then every message is there once, in order, in 10 pages of 100 (the last one 50)
    #expect(pages == 10)
    #expect(shown.map(\.text) == (0..<1_000).map { "message \($0)" })
  }

  @Test("a message edited after it was paged in from disk is stored edited; one deleted stays deleted")
  func editsOfPagedInMessagesAreKept() throws {
    // Given a reopened conversation whose oldest messages were paged in from disk
    let root = ScratchRoot()
    try root.scope().conversation("conv-1").persist(history(200), changes: .reset, at: .story(0))
    let file = try root.scope().conversation("conv-1", window: 50)
    var state = try #require(file.restored)
    let older = try file.storedMessages(before: try #require(state.messages.first).orderKey, limit: 150)
    for message in older.messages { state.messages.commit(message) }
    let loaded = state
    try file.persist(state, changes: state.changes(since: file.restored!), at: .story(1))

    // When the user rates the oldest answer and the server removes another old message
    var rated = try #require(state.messages[serverID: "conv-1-s1"])
    rated.rating = .up
    state.messages.commit(rated)
    _ = state.messages.remove("srv-conv-1-s3")
    try file.persist(state, changes: state.changes(since: loaded), at: .story(2))

    // Then after a relaunch paging finds the rating, and not the removed message
    let reopened = try root.scope().conversation("conv-1", window: 50)
    let everything = try everyStoredMessage(reopened)
    #expect(everything.count == 199)
    #expect(everything.first { $0.serverID == "conv-1-s1" }?.rating == .up)
    #expect(!everything.contains { $0.serverID == "conv-1-s3" })
  }

  @Test("messages trimmed from memory stay stored: after a relaunch, and for the next scroll up")
  func trimmedMessagesStayStored() throws {
    // Given a reopened conversation the user scrolled up through, 300 messages in memory
    let root = ScratchRoot()
    try root.scope().conversation("conv-1").persist(history(300), changes: .reset, at: .story(0))
    let file = try root.scope().conversation("conv-1", window: 50)
    var state = try #require(file.restored)
    let opened = state
    let older = try file.storedMessages(before: try #require(state.messages.first).orderKey, limit: 250)
    for message in older.messages { state.messages.commit(message) }
    try file.persist(state, changes: state.changes(since: opened), at: .story(1))

    // When the user goes back to the newest messages and the app trims what was scrolled past
    let scrolled = state
    _ = ConversationReducer().reduce(into: &state, action: .trimHistory(keepingNewest: 40))
    #expect(state.messages.count == 40 && state.history.hasStoredHistory)
    try file.persist(state, changes: state.changes(since: scrolled), at: .story(2))

    // Then nothing was deleted: the next scroll up reads them again, and so does a relaunch
    let again = try file.storedMessages(before: try #require(state.messages.first).orderKey, limit: 500)
    #expect(again.messages.count == 260 && !again.hasMore)
    #expect(try everyStoredMessage(root.scope().conversation("conv-1")).count == 300)
  }

  @Test("a crash between the journal's write and the archive's loses nothing: opening writes the archive again")
  func archiveThatLagsIsReconciled() throws {
    // Given a conversation whose last message reached the journal but not the archive (the app was killed
    // between the two writes: the archive's transaction, and the journal mark it carried, never happened)
    let root = ScratchRoot()
    let scope = try root.scope()
    var state = history(100)
    try scope.conversation("conv-1").persist(state, changes: .reset, at: .story(0))
    let file = try scope.conversation("conv-1", window: 200)
    let archive = try MessageArchive(directory: scope.directory + "/conversations")
    let markBefore = try #require(try archive.mark(in: "conv-1"))
    let before = state
    state.messages.commit(.server("the newest", id: "conv-1-new", at: 500))
    try file.persist(state, changes: state.changes(since: before), at: .story(1))
    try archive.write([], removing: ["srv-conv-1-new"], in: "conv-1", mark: markBefore)
    #expect(try archive.count(in: "conv-1") == 100)

    // When it is opened again
    _ = try scope.conversation("conv-1", window: 200)

    // Then the archive has the journal's message again, and search finds it
    #expect(try archive.count(in: "conv-1") == 101)
    #expect(try scope.search("newest").results.map(\.message.serverID) == ["conv-1-new"])
  }

  @Test("a damaged archive is moved aside; the conversation opens at its window and pages the rest from the server")
  func damagedArchive() async throws {
    // Given a reopened long conversation whose archive is then damaged
    let root = ScratchRoot()
    let scope = try root.scope()
    var state = history(300)
    state.history.cursor = "server-page-7"
    state.history.hasLoadedFirstPage = true
    try scope.conversation("conv-1").persist(state, changes: .reset, at: .story(0))
    let path = scope.directory + "/conversations/" + MessageArchive.fileName
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x5A, count: 8_192)))

    // When it is opened
    let file = try scope.conversation("conv-1")

    // Then the damaged archive is aside, as it was, and the window is shown
    #expect(FileManager.default.contents(atPath: path + ".corrupt-1") == Data(repeating: 0x5A, count: 8_192))
    let restored = try #require(file.restored)
    #expect(restored.messages.count == ScopeDirectory.defaultWindow)
    // And the older history is asked from the server again, from its newest page (the stored cursor
    // pointed past messages that are no longer on this device)
    #expect(!restored.history.hasStoredHistory)
    #expect(restored.history.cursor == nil && !restored.history.hasLoadedFirstPage && restored.history.hasMoreHistory)
  }

  @Test("the archive and its logs are private to the user: 0600")
  func archiveIsPrivate() throws {
    let root = ScratchRoot()
    let scope = try root.scope()
    try scope.conversation("conv-1").persist(history(10), changes: .reset, at: .story(0))
    let directory = scope.directory + "/conversations"
    let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
      $0.hasPrefix(MessageArchive.fileName)
    }
    #expect(files.contains(MessageArchive.fileName))
    for file in files { #expect(FileSystem.mode(of: "\(directory)/\(file)") == 0o600, "\(file)") }
  }

  @Test("a journal written before the archive existed migrates on open: every message lands in the archive")
  func journalBeforeTheArchive() throws {
    // Given a conversation file of 500 messages written whole, as the previous version wrote it (no archive)
    let root = ScratchRoot()
    let scope = try root.scope()
    try scope.conversation("conv-1", window: .max).persist(history(500), changes: .reset, at: .story(0))
    let directory = scope.directory + "/conversations"
    for suffix in ["", "-wal", "-shm"] {
      try? FileManager.default.removeItem(atPath: "\(directory)/\(MessageArchive.fileName)\(suffix)")
    }

    // When this version opens it
    let file = try scope.conversation("conv-1")

    // Then it shows the newest page and has all 500 messages to page through
    #expect(file.restored?.messages.count == ScopeDirectory.defaultWindow)
    #expect(try everyStoredMessage(file).map(\.text) == (0..<500).map { "message \($0)" })
  }
}

@Suite("Searching stored messages")
struct StoredSearchTests {
  /// A scope with two conversations about coffee, tea and a refund.
  private func scope(_ root: ScratchRoot) throws -> ScopeDirectory {
    let scope = try root.scope()
    let texts = [
      "I ordered a Café au lait", "Your refund is on its way", "Tea or coffee?", "The CAFÉ was closed",
      "Refunds take three days", "cafeteria hours",
    ]
    try scope.conversation("c-a").persist(
      history(3, id: "c-a") { texts[$0] }, changes: .reset, at: .story(0))
    try scope.conversation("c-b").persist(
      .existing(
        (3..<6).map { .server(texts[$0], id: "c-b-s\($0)", at: Double($0) + 100) }, id: "c-b"),
      changes: .reset, at: .story(0))
    return scope
  }

  @Test(
    "words match the start of words, whatever their case and accents",
    arguments: [
      ("cafe", ["cafeteria hours", "The CAFÉ was closed", "I ordered a Café au lait"]),
      ("CAFÉ", ["cafeteria hours", "The CAFÉ was closed", "I ordered a Café au lait"]),
      ("refund", ["Refunds take three days", "Your refund is on its way"]),
      ("refund days", ["Refunds take three days"]),
      ("afe", []),
      ("\"tea\" OR *", ["Tea or coffee?"]),
      ("", []),
    ])
  func matching(words: String, expected: [String]) throws {
    // Given two stored conversations
    let root = ScratchRoot()
    let scope = try scope(root)
    // When the user searches
    let page = try scope.search(words)
    // Then the matching messages come newest first
    #expect(page.results.map(\.message.text) == expected)
    #expect(page.next == nil)
  }

  @Test("each result marks where the words matched, in the message's own text")
  func matchedRanges() throws {
    let root = ScratchRoot()
    let page = try scope(root).search("cafe")
    let marked = page.results.map { result in result.matches.map { String(result.message.text[$0]) } }
    #expect(marked == [["cafe"], ["CAFÉ"], ["Café"]])
  }

  @Test("results page newest first, and a search can keep to one conversation")
  func pagingAndScope() throws {
    let root = ScratchRoot()
    let scope = try scope(root)
    // When the user searches page by page, two at a time
    let first = try scope.search("cafe", limit: 2)
    let second = try scope.search("cafe", after: first.next, limit: 2)
    // Then the pages follow on, and the last says so
    #expect(first.results.map(\.message.text) == ["cafeteria hours", "The CAFÉ was closed"])
    #expect(second.results.map(\.message.text) == ["I ordered a Café au lait"] && second.next == nil)
    #expect(first.byConversation.map(\.conversationID) == ["c-b"])
    // And within one conversation only its messages are found
    #expect(try scope.search("cafe", in: "c-a").results.map(\.conversationID) == ["c-a"])
  }

  @Test("the index follows the messages: an edit is found by its new words, a deleted message is not found")
  func indexFollowsEdits() throws {
    let root = ScratchRoot()
    let scope = try scope(root)
    let file = try scope.conversation("c-a")
    var state = try #require(file.restored)
    let before = state
    var edited = try #require(state.messages[serverID: "c-a-s0"])
    edited.text = "I ordered a flat white"
    state.messages.commit(edited)
    _ = state.messages.remove(try #require(state.messages[serverID: "c-a-s1"]).clientID)
    try file.persist(state, changes: state.changes(since: before), at: .story(1))

    #expect(try scope.search("flat white").results.map(\.message.serverID) == ["c-a-s0"])
    #expect(try scope.search("cafe", in: "c-a").results.isEmpty)
    #expect(try scope.search("refund").results.map(\.message.text) == ["Refunds take three days"])
  }

  @Test("too many words, or a word too long, is refused with tooLarge, not cut")
  func oversizedSearch() throws {
    let root = ScratchRoot()
    let scope = try scope(root)
    let many = (0...SearchWords.maximumWords).map { "w\($0)" }.joined(separator: " ")
    #expect(throws: PersistenceError.self) { try scope.search(many) }
    #expect((try? scope.search(String(repeating: "a", count: SearchWords.maximumWordLength + 1))) == nil)
    #expect(try scope.search(String(repeating: "a", count: SearchWords.maximumWordLength)).results.isEmpty)
  }

  @Test("a scope with nothing stored finds nothing")
  func emptyScope() throws {
    let root = ScratchRoot()
    #expect(try root.scope().search("anything") == .empty)
  }
}
