import ConversationState
import ConversationTesting
import Foundation
import Testing

@testable import Persistence

@Suite("Conversation list file")
struct ConversationListFileTests {
  static func summary(_ index: Int) -> ConversationSummary {
    ConversationSummary(
      id: ConversationID("conv-\(index)"), title: "Conversation \(index)", lastActivityAt: .story(Double(-index)))
  }

  @Test("the list's first rows come back after a relaunch, with its paging")
  func roundTrip() throws {
    let root = ScratchRoot()
    var list = ConversationListState()
    list.conversations = ConversationList((0..<3).map(Self.summary))
    list.cursor = "p2"
    list.hasMore = true
    list.hasLoaded = true

    try root.scope().conversationList.save(list)
    let restored = try #require(try root.scope().conversationList.load())

    #expect(Array(restored.conversations) == Array(list.conversations))
    #expect(restored.cursor == "p2" && restored.hasMore && restored.hasLoaded)
    #expect(restored.loading == nil)
  }

  @Test("past the first pages the rest is left to load again: no cursor that would skip rows")
  func truncatedListHasNoCursor() throws {
    let root = ScratchRoot()
    var list = ConversationListState()
    list.conversations = ConversationList((0..<(ConversationListFile.maximumRows + 50)).map(Self.summary))
    list.cursor = "p9"
    list.hasMore = false

    try root.scope().conversationList.save(list)
    let restored = try #require(try root.scope().conversationList.load())

    #expect(restored.conversations.count == ConversationListFile.maximumRows)
    #expect(restored.cursor == nil)
    #expect(restored.hasMore)
  }

  /// One change to each field the list file keeps, named for the test's output.
  static let keptChanges: [(field: String, change: @Sendable (inout ConversationListState) -> Void)] = [
    ("conversations", { $0.conversations.update("conv-1") { $0.title = "Renamed" } }),
    ("cursor", { $0.cursor = "p3" }),
    ("hasMore", { $0.hasMore.toggle() }),
    ("hasLoaded", { $0.hasLoaded.toggle() }),
    (
      "edits",
      { $0.edits.append(PendingListEdit(conversationID: "conv-1", change: .archived(true), confirmed: summary(1))) }
    ),
    ("deleting", { $0.deleting.append(PendingDelete(row: summary(9))) }),
    ("deleted", { $0.deleted.insert("conv-42") }),
    ("showsArchived", { $0.showsArchived.toggle() }),
    ("requestSequence", { $0.requestSequence += 1 }),
  ]

  @Test(
    "a change to any field the file keeps is one a saver that skips unchanged snapshots writes, and it comes back",
    arguments: keptChanges)
  func everyKeptFieldIsCompared(field: String, change: @Sendable (inout ConversationListState) -> Void) throws {
    // Given a list as it was saved
    let root = ScratchRoot()
    var saved = ConversationListState()
    saved.conversations = ConversationList((0..<3).map(Self.summary))
    saved.cursor = "p2"
    // When one field the file keeps changes
    var changed = saved
    change(&changed)
    // Then the saver does not skip it, and what it writes reads back with the change
    #expect(!ConversationListFile.keepsSame(saved, changed), "\(field) changed and would not be written")
    #expect(ConversationListFile.keepsSame(saved, saved))
    try root.scope().conversationList.save(changed)
    let restored = try #require(try root.scope().conversationList.load())
    #expect(ConversationListFile.keepsSame(restored, changed), "\(field) did not come back as saved")
  }
}
