import ConversationState
import ConversationTesting
import Foundation
import Testing

@testable import Persistence

/// A conversation of `count` messages, one a second.
private func history(_ count: Int) -> ConversationState {
  .existing((0..<count).map { .server("message \($0)", id: "s\($0)", at: Double($0)) })
}

/// The conversation's journal, read back as opening reads it.
private func journal(_ scope: ScopeDirectory, _ id: ConversationID = "conv-1") throws -> ConversationJournal.Loaded {
  try #require(try ConversationJournal.load(ConversationWriter.path(in: scope.directory + "/conversations", for: id)))
}

private func archive(_ scope: ScopeDirectory) throws -> MessageArchive {
  try MessageArchive(directory: scope.directory + "/conversations")
}

/// Ways an archive's mark can fail to name a prefix of the journal it is opened with.
enum ForeignMark: String, CaseIterable, CustomTestStringConvertible {
  /// A rewrite stored its mark, then a crash came before its rename: the mark names a file that never landed.
  case rewriteCutBeforeRename
  /// The journal was put back from an older copy, shorter than the file the mark names.
  case journalFromAnOlderCopy
  /// The archive was written by the version before marks: there is no mark table at all.
  case archiveFromBeforeMarks

  var testDescription: String {
    switch self {
    case .rewriteCutBeforeRename: "a rewrite cut before its rename"
    case .journalFromAnOlderCopy: "a journal put back from an older copy"
    case .archiveFromBeforeMarks: "an archive from before marks"
    }
  }
}

@Suite("The archive's journal mark: opening reconciles only what the journal wrote after it")
struct JournalMarkTests {
  @Test("after each write that archives something, the archive's mark names the whole journal")
  func markFollowsTheJournal() throws {
    // Given a conversation written whole
    let root = ScratchRoot()
    let scope = try root.scope()
    var state = history(3)
    let file = try scope.conversation("conv-1")
    try file.persist(state, changes: .reset, at: .story(0))
    #expect(try archive(scope).mark(in: "conv-1") == journal(scope).mark)

    // When a message is appended, then only the draft changes
    let before = state
    state.messages.commit(.server("message 3", id: "s3", at: 3))
    try file.persist(state, changes: state.changes(since: before), at: .story(1))
    let afterMessage = try journal(scope).mark
    #expect(try archive(scope).mark(in: "conv-1") == afterMessage)
    state.draft = "half a thought"
    try file.persist(state, changes: ChangeSet(), at: .story(2))

    // Then the draft, which the archive has no part of, leaves the mark where it was: a prefix whose tail
    // holds nothing to archive
    let loaded = try journal(scope)
    #expect(loaded.mark.length > afterMessage.length)
    #expect(try archive(scope).mark(in: "conv-1") == afterMessage)
    #expect(loaded.unarchived(since: afterMessage).messages.isEmpty)

    // And when it is opened again, the mark moves to the whole journal
    _ = try scope.conversation("conv-1")
    #expect(try archive(scope).mark(in: "conv-1") == loaded.mark)

    // And when the conversation is removed, its mark goes with its messages
    try scope.removeConversation("conv-1")
    #expect(try archive(scope).mark(in: "conv-1") == nil)
    #expect(try archive(scope).count(in: "conv-1") == 0)
  }

  @Test("what the journal wrote after a mark: the messages last written after it and the removals after it")
  func unarchivedSinceAMark() throws {
    // Given a journal rewritten whole with three messages, marked there
    let root = ScratchRoot()
    let scope = try root.scope()
    var state = history(3)
    let file = try scope.conversation("conv-1")
    try file.persist(state, changes: .reset, at: .story(0))
    let rewritten = try journal(scope).mark

    // When it then appends a fourth, edits the second and removes the third
    let before = state
    state.messages.commit(.server("message 3", id: "s3", at: 3))
    _ = state.messages.update("srv-s1") { $0.text = "message 1, edited" }
    _ = state.messages.remove("srv-s2")
    try file.persist(state, changes: state.changes(since: before), at: .story(1))
    let loaded = try journal(scope)

    // Then after the rewrite's mark it wrote the edit, the new message and the removal
    let tail = loaded.unarchived(since: rewritten)
    #expect(tail.messages.map(\.text) == ["message 1, edited", "message 3"])
    #expect(tail.removed == ["srv-s2"])
    // And after its own end, nothing
    let none = loaded.unarchived(since: loaded.mark)
    #expect(none.messages.isEmpty && none.removed.isEmpty)
    // And a mark that names no prefix (none at all, another fingerprint, a length inside a record, a length
    // past the end) gives everything
    let foreign = [
      nil, JournalMark(length: rewritten.length, chain: rewritten.chain ^ 1),
      JournalMark(length: rewritten.length - 1, chain: rewritten.chain),
      JournalMark(length: loaded.mark.length + 100, chain: loaded.mark.chain),
    ]
    for mark in foreign {
      let all = loaded.unarchived(since: mark)
      #expect(
        all.messages.map(\.text) == ["message 0", "message 1, edited", "message 3"], "\(String(describing: mark))")
      #expect(all.removed == ["srv-s2"])
    }
  }

  @Test(
    "a mark that names no prefix of the journal: opening writes every message again", arguments: ForeignMark.allCases)
  func foreignMarkReconcilesWhole(_ foreign: ForeignMark) throws {
    // Given a conversation of 100 messages whose archive lost an old one, and whose mark does not name the
    // journal
    let root = ScratchRoot()
    let scope = try root.scope()
    try scope.conversation("conv-1", window: 200).persist(history(100), changes: .reset, at: .story(0))
    let stored = try archive(scope)
    let whole = try journal(scope).mark
    switch foreign {
    case .rewriteCutBeforeRename:
      try stored.write([], removing: ["srv-s7"], in: "conv-1", mark: JournalMark(length: 4_096, chain: 42))
    case .journalFromAnOlderCopy:
      try stored.write(
        [], removing: ["srv-s7"], in: "conv-1", mark: JournalMark(length: whole.length + 512, chain: whole.chain))
    case .archiveFromBeforeMarks:
      try stored.write([], removing: ["srv-s7"], in: "conv-1")
      try stored.database.execute("DROP TABLE journal_mark")
    }
    #expect(try stored.count(in: "conv-1") == 99)

    // When it is opened again
    let file = try scope.conversation("conv-1", window: 200)

    // Then the archive holds every message of the journal again, and the mark names the journal
    #expect(file.restored?.messages.count == 100)
    #expect(try archive(scope).count(in: "conv-1") == 100)
    #expect(try archive(scope).mark(in: "conv-1") == whole)
  }
}
