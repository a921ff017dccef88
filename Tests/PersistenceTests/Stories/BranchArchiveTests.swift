import ConversationState
import ConversationTesting
import Foundation
import Testing

@testable import Persistence

/// The branches on disk: messages off screen are kept in the archive (searchable, never paged into the
/// conversation), and in a journal record of their own that a change of any other field does not rewrite.
@Suite("Branches in the archive and the journal", .hangGuard)
struct BranchArchiveTests {
  /// A conversation written message by message: `count` messages, user and agent in turn.
  struct Story {
    let scope: ScopeDirectory
    var file: ConversationFile
    var state = ConversationState.existing([])
    var time = 0.0

    init(_ root: ScratchRoot, count: Int, window: Int = ScopeDirectory.defaultWindow) throws {
      scope = try root.scope()
      file = try scope.conversation("conv-1", window: window)
      for index in 1...count {
        commit("m\(index) words", id: "s\(index)", role: index.isMultiple(of: 2) ? .assistant : .user)
        try write(ChangeSet(inserted: ["srv-s\(index)"]))
      }
    }

    mutating func commit(_ text: String, id: String, role: Role) {
      time += 1
      state.messages.commit(.server(text, id: id, role: role, at: time))
    }

    mutating func write(_ changes: ChangeSet<ClientMessageID>) throws {
      try file.persist(state, changes: changes, at: .story(time))
    }

    /// The user edits message `serverID` (of the user's) into `text`: it and what followed leave the
    /// screen as the sibling before, as `ConversationAction.edit` forks.
    mutating func edit(_ serverID: String, into text: String, id: String) throws {
      let leaving = state.messages.removeCommitted(from: ClientMessageID("srv-\(serverID)"))
      let before = state.messages.last?.clientID
      state.branches.keep(leaving, after: before, replacedBy: ClientMessageID("srv-\(id)"))
      commit(text, id: id, role: .user)
      try write(ChangeSet(inserted: ["srv-\(id)"], removed: Set(leaving.map(\.clientID))))
    }

    /// The user shows sibling `index` of the message `shown` that starts the path on screen at a fork.
    mutating func show(_ index: Int, atForkShowing shown: ClientMessageID) throws {
      let leaving = state.messages.removeCommitted(from: shown)
      let coming = state.branches.show(index, atForkShowing: shown, keeping: leaving)
      #expect(coming != nil, "no sibling \(index) at \(shown)")
      for message in coming ?? [] { state.messages.commit(message) }
      try write(ChangeSet(inserted: Set((coming ?? []).map(\.clientID)), removed: Set(leaving.map(\.clientID))))
    }

    /// What a search of `words` finds: each text, and whether it is off screen.
    func search(_ words: String) throws -> [String: Bool] {
      Dictionary(
        try scope.search(words, limit: 100).results.map { ($0.message.text, $0.isOffScreen) },
        uniquingKeysWith: { first, _ in first })
    }

    var journalPath: String { ConversationWriter.path(in: scope.directory + "/conversations", for: "conv-1") }

    var archive: MessageArchive { get throws { try MessageArchive(directory: scope.directory + "/conversations") } }
  }

  @Test(
    "a question edited away is found by a search, marked off screen; shown again, it is on screen and the edit is not")
  func searchSaysWhichBranch() throws {
    // Given a conversation of four messages whose third (a question) the user edited
    let root = ScratchRoot()
    var story = try Story(root, count: 4)
    try story.edit("s3", into: "m3 rewritten words", id: "s5")

    // When the user searches, switches back to the first version, and searches again
    let afterEdit = try story.search("words")
    try story.show(0, atForkShowing: "srv-s5")
    let afterSwitch = try story.search("words")

    // Then each search names the messages on a branch not shown
    #expect(
      afterEdit == [
        "m1 words": false, "m2 words": false, "m3 words": true, "m4 words": true, "m3 rewritten words": false,
      ])
    #expect(
      afterSwitch == [
        "m1 words": false, "m2 words": false, "m3 words": false, "m4 words": false, "m3 rewritten words": true,
      ])
    // And paging the conversation from disk reads only the path on screen
    let page = try story.archive.newest(in: "conv-1", limit: 10)
    #expect(page.messages.map(\.text) == ["m1 words", "m2 words", "m3 words", "m4 words"])
    #expect(try story.archive.count(in: "conv-1", offScreen: true) == 1)
  }

  @Test("a branch that leaves the conversation leaves nothing in the archive or the search")
  func droppedBranchIsDeleted() throws {
    // Given an edited question, its first version off screen
    let root = ScratchRoot()
    var story = try Story(root, count: 4)
    try story.edit("s3", into: "m3 rewritten words", id: "s5")

    // When the edit is deleted (a server deleted it), and its fork with it
    let dropped = story.state.branches.dropForks(showing: ["srv-s5"])
    _ = story.state.messages.removeCommitted(from: "srv-s5")
    try story.write(ChangeSet(removed: ["srv-s5"]))

    // Then neither version is stored or found
    #expect(dropped.map(\.text) == ["m3 words", "m4 words"])
    #expect(try story.search("m3") == [:])
    #expect(try story.archive.count(in: "conv-1", offScreen: true) == 0)
    #expect(try story.archive.count(in: "conv-1") == 2)
  }

  @Test(
    "a change of any other stored field appends the same bytes whatever the branches hold",
    arguments: [0, 200])
  func metaDoesNotCarryTheBranches(hidden: Int) throws {
    // Given a conversation with `hidden` messages off screen (edited away), or none
    let root = ScratchRoot()
    var story = try Story(root, count: hidden + 2)
    if hidden > 0 { try story.edit("s1", into: "m1 rewritten", id: "edit") }
    let size = try #require(FileManager.default.attributesOfItem(atPath: story.journalPath)[.size] as? Int)

    // When a stored field other than the branches changes (feedback was offered)
    story.state.hasOfferedFeedback = true
    try story.write(ChangeSet())

    // Then the journal grew by one meta record, as big as it is without branches
    let grown = try #require(FileManager.default.attributesOfItem(atPath: story.journalPath)[.size] as? Int) - size
    #expect(grown < 1_000, "\(grown) bytes for a meta record with \(hidden) messages off screen")
    // And the branches read back
    let restored = try #require(try story.scope.conversation("conv-1").restored)
    #expect(restored.branches.messagesOffScreen.count == (hidden > 0 ? hidden + 2 : 0))
    #expect(restored.hasOfferedFeedback)
  }

  @Test("a format-5 file (branches in the meta record) opens with them, and its messages off screen become searchable")
  func version5To6() async throws {
    // Given a format-5 file whose meta record carries an edited question's first version
    let root = ScratchRoot()
    let scope = try root.scope()
    var state = ConversationState.existing([.server("first question", id: "s1", at: 1)])
    let replaced = state.messages.removeCommitted(from: "srv-s1")
    state.branches.keep(replaced, after: nil, replacedBy: "srv-s2")
    state.messages.commit(.server("second question", id: "s2", at: 2))
    var meta = ConversationMeta(state)
    meta.stored.branches = state.branches
    let records = [ConversationRecord.meta(meta)] + state.messages.map(ConversationRecord.message)
    let path = try MigrationTests.writeConversationFile(
      version: 5, payloads: records.map { $0.encode(version: 5) }, in: scope
    ).path

    // When this version opens it
    let file = try scope.conversation("conv-1")

    // Then the branch is there, the file is the newest format, and the first version is found off screen
    #expect(file.restored?.branches.messagesOffScreen.map(\.text) == ["first question"])
    let header = try #require(FileManager.default.contents(atPath: path))
    #expect(header[8] == ConversationRecord.formatVersion)
    #expect(
      try scope.search("question").results.map { "\($0.message.text) \($0.isOffScreen)" }.sorted() == [
        "first question true", "second question false",
      ])
    #expect(try scope.conversation("conv-1").restored?.branches == state.branches)
  }

  @Test("a crash between the journal's write and the archive's keeps the messages that left for a branch")
  func reconciledAfterACrash() throws {
    // Given an edit whose journal write landed and whose archive write did not (the archive is set back to
    // the mark it had before, with the edit's messages as they were)
    let root = ScratchRoot()
    var story = try Story(root, count: 4)
    let archive = try story.archive
    let mark = try #require(try archive.mark(in: "conv-1"))
    try story.edit("s3", into: "m3 rewritten words", id: "s5")
    try archive.write(
      story.state.branches.messagesOffScreen, removing: ["srv-s5"], in: "conv-1", mark: mark)

    // When it is opened again
    _ = try story.scope.conversation("conv-1")

    // Then the archive holds the edit on screen and its first version off screen
    #expect(
      try story.search("words") == [
        "m1 words": false, "m2 words": false, "m3 words": true, "m4 words": true, "m3 rewritten words": false,
      ])
  }

  @Test("a rewrite killed between its archive's transaction and its rename leaves the archive as the journal")
  func rewriteThatNeverLanded() throws {
    // Given a conversation on disk, and an edit whose rewrite archives the new branch and then cannot write
    // its file (as a kill before the rename leaves it: the archive has a file that never landed)
    let root = ScratchRoot()
    var story = try Story(root, count: 4)
    let path = story.journalPath
    StorageFaults.failWrites(under: path, with: ENOSPC)
    #expect(throws: PersistenceError.self) { try story.edit("s3", into: "m3 rewritten words", id: "s5") }
    StorageFaults.lift(under: path)
    #expect(try story.search("words")["m3 rewritten words"] == false, "the archive took the edit first")

    // When it is opened again
    let reopened = try story.scope.conversation("conv-1")

    // Then the archive holds what the journal holds: the first version on screen, the edit gone
    let shown = try #require(reopened.restored).messages.map(\.text)
    #expect(shown == ["m1 words", "m2 words", "m3 words", "m4 words"])
    #expect(
      try story.search("words") == ["m1 words": false, "m2 words": false, "m3 words": false, "m4 words": false])
    let newest = try reopened.storedMessages(
      before: MessageOrderKey(createdAt: .distantFuture, tieBreak: ""), limit: 10
    ).messages.map(\.text)
    #expect(newest == shown)
  }

  @Test(
    "a rewrite killed before its rename, after an edit of a message older than the journal's window, loses no older message"
  )
  func rewriteThatNeverLandedBelowTheWindow() throws {
    // Given a conversation of six messages whose journal keeps the newest two (an edit of the fifth landed and
    // rewrote it: older messages are in the archive alone), all of them in memory, and an edit of the third
    // whose rewrite archives the new branch and then cannot write its file: the archive marked the third
    // and what followed it off screen, for a file that never landed
    let root = ScratchRoot()
    var story = try Story(root, count: 6, window: 2)
    try story.edit("s5", into: "m5 rewritten words", id: "s7")
    let path = story.journalPath
    StorageFaults.failWrites(under: path, with: ENOSPC)
    #expect(throws: PersistenceError.self) { try story.edit("s3", into: "m3 rewritten words", id: "s9") }
    StorageFaults.lift(under: path)
    #expect(try story.search("words")["m3 words"] == true, "the archive took the edit first")

    // When it is opened again, as the next launch opens it
    let reopened = try story.scope.conversation("conv-1", window: 2)

    // Then the journal's newest two are shown, and paging older reads every message before them on screen:
    // the third is not lost below the window; only the first edit's old path is off screen
    let restored = try #require(reopened.restored)
    #expect(restored.messages.map(\.text) == ["m4 words", "m5 rewritten words"])
    let older = try reopened.storedMessages(
      before: try #require(restored.messages.first?.orderKey), limit: 10
    ).messages.map(\.text)
    #expect(older == ["m1 words", "m2 words", "m3 words"])
    let search = try story.search("words")
    #expect(search["m5 words"] == true && search["m6 words"] == true)
    #expect(search["m3 words"] == false)
    #expect(search["m3 rewritten words"] == nil, "the edit that never landed is gone")
  }
}
