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
}
