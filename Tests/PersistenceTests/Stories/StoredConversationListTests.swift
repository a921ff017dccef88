import ConversationState
import ConversationTesting
import Foundation
import Testing

@testable import Persistence

/// The scope's index of stored conversations: the sidebar of an app whose backend keeps no list.
@Suite("Stored conversation list")
struct StoredConversationListTests {
  static func row(_ index: Int, pinnedAt: Double? = nil) -> ConversationSummary {
    ConversationSummary(
      id: ConversationID("c\(index)"), title: "Conversation \(index)", lastActivityAt: .story(Double(index)),
      pinnedAt: pinnedAt.map { .story($0) })
  }

  @Test("pages come pinned first, earliest pinned first, then newest activity first, each row once")
  func pagesInOrder() throws {
    // Given five stored conversations, c2 pinned after c4
    let scope = try ScratchRoot().scope()
    try scope.saveListRows(
      [Self.row(1), Self.row(2, pinnedAt: 20), Self.row(3), Self.row(4, pinnedAt: 10), Self.row(5)], removing: [])

    // When the list pages through them two at a time
    var cursor: PageCursor?
    var ids: [String] = []
    var pages = 0
    repeat {
      let page = try scope.storedConversations(after: cursor, limit: 2)
      #expect(page.totalCount == 5)
      ids += page.conversations.map(\.id.rawValue)
      cursor = page.nextCursor
      pages += 1
      #expect(page.hasMore == (cursor != nil))
    } while cursor != nil

    // Then every row comes once, in the order a sidebar shows
    #expect(ids == ["c4", "c2", "c5", "c3", "c1"])
    #expect(pages == 3)
  }

  @Test("a row saved again replaces the stored one; a deleted conversation leaves the index")
  func replacedAndRemoved() throws {
    let root = ScratchRoot()
    let scope = try root.scope()
    try scope.saveListRows([Self.row(1), Self.row(2)], removing: [])
    var renamed = Self.row(1)
    renamed.title = "Refund"
    renamed.isTitleSetByUser = true
    try scope.saveListRows([renamed], removing: ["c2"])

    let page = try root.scope().storedConversations(after: nil, limit: 10)
    #expect(page.conversations == [renamed])
    #expect(!page.hasMore)

    try scope.removeConversation("c1")
    #expect(try scope.storedConversations(after: nil, limit: 10).conversations.isEmpty)
  }

  @Test("a scope that stored nothing has an empty list, and a cursor from elsewhere reads as the first page")
  func emptyAndForeignCursor() throws {
    let scope = try ScratchRoot().scope()
    #expect(try scope.storedConversations(after: nil, limit: 5).conversations.isEmpty)
    try scope.saveListRows([Self.row(1)], removing: [])
    #expect(try scope.storedConversations(after: "server-cursor-7", limit: 5).conversations.map(\.id) == ["c1"])
  }
}
