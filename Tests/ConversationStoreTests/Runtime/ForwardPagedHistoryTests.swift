import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Stories of a real store on a support server that pages forward (oldest first, after a cursor, 50 a page),
/// through the backends article's `SupportServer` and its `ForwardPagedHistory`.
@Suite("Runtime: history from a server that pages forward", .hangGuard)
struct ForwardPagedHistoryTests {
  /// How a forward server ends its pages and counts its messages: the four kinds met in the wild.
  struct ServerShape: Sendable, CustomTestStringConvertible {
    var givesTotal: Bool
    var cursorOnNewestPage: Bool

    static let all = [false, true].flatMap { total in
      [false, true].map { ServerShape(givesTotal: total, cursorOnNewestPage: $0) }
    }

    var testDescription: String {
      "\(givesTotal ? "with" : "without") a total, \(cursorOnNewestPage ? "a cursor" : "no cursor") on the newest page"
    }
  }

  /// A conversation, the server's page cap and the store's page size.
  struct Paging: Sendable, CustomTestStringConvertible {
    var messages: Int
    var serverPageLimit: Int
    var storePageSize: Int

    var testDescription: String {
      "\(messages) messages, \(serverPageLimit) a server page, \(storePageSize) a store page"
    }
  }

  @Test(
    "a conversation opens at its newest messages and scrolls up to its first, the forward pages walked once",
    arguments: ServerShape.all)
  func opensAtNewestAndScrollsToFirst(_ shape: ServerShape) async throws {
    // Given a support conversation of 237 messages on a server that pages forward, 50 at a time
    let server = ForwardPagingServer(
      conversations: ["c1": 237], givesTotal: shape.givesTotal, cursorOnNewestPage: shape.cursorOnNewestPage)
    let store = try ForwardStory.store(on: server)
    defer { store.close() }

    // When the app opens it
    let opened = try await ForwardStory.load(.loadHistory(pageSize: 20), on: store)

    // Then it shows the newest 20 and knows there are 237, having walked forward once to find them
    #expect(opened.messages.map(\.text) == ForwardStory.texts(217..<237))
    #expect(opened.history.hasMoreHistory && opened.history.totalCount == 237 && opened.userError == nil)
    let pageStarts: [String?] = [nil, "c1-49", "c1-99", "c1-149", "c1-199"]
    #expect(server.requests.map(\.after) == pageStarts + (shape.cursorOnNewestPage ? ["c1-236"] : []))

    // When the user scrolls up until there is nothing older
    let first = try await ForwardStory.scrollToFirst(
      store, on: server, count: 237, shown: 20, pageSize: 20, pageLimit: 50)

    // Then every message shows once, in order, and the store knows it has the first
    #expect(first.messages.map(\.serverID) == (0..<237).map { ForwardPagingServer.message($0, in: "c1").serverID })
    #expect(!first.history.hasMoreHistory)
    #expect(first.history.totalCount == 237)
    #expect(server.requests.allSatisfy { $0.limit == 50 }, "every forward page is asked for with the server's cap")

    // And scrolling further asks nothing more of the server
    let asked = server.requests.count
    _ = try await ForwardStory.load(.loadMoreHistory(pageSize: 20), on: store)
    #expect(server.requests.count == asked)
  }

  @Test(
    "a store page larger than the server's cap joins forward pages",
    arguments: [
      Paging(messages: 237, serverPageLimit: 50, storePageSize: 100),
      Paging(messages: 100, serverPageLimit: 7, storePageSize: 20),
      Paging(messages: 61, serverPageLimit: 30, storePageSize: 100),
    ])
  func joinsPages(_ paging: Paging) async throws {
    // Given a server whose pages hold fewer messages than the store asks for
    let server = ForwardPagingServer(conversations: ["c1": paging.messages], pageLimit: paging.serverPageLimit)
    let store = try ForwardStory.store(on: server, pageLimit: paging.serverPageLimit)
    defer { store.close() }

    // When the app opens the conversation
    let opened = try await ForwardStory.load(.loadHistory(pageSize: paging.storePageSize), on: store)

    // Then the newest page is whole, from the pages the walk fetched anyway
    let newest = min(paging.storePageSize, paging.messages)
    #expect(opened.messages.map(\.text) == ForwardStory.texts((paging.messages - newest)..<paging.messages))
    #expect(server.requests.count == ForwardStory.walk(paging.messages, pageLimit: paging.serverPageLimit))

    // And scrolling up joins as many forward pages as each store page needs, to the first message
    let first = try await ForwardStory.scrollToFirst(
      store, on: server, count: paging.messages, shown: newest, pageSize: paging.storePageSize,
      pageLimit: paging.serverPageLimit)
    #expect(first.messages.count == paging.messages && !first.history.hasMoreHistory)
    #expect(server.requests.allSatisfy { $0.limit == paging.serverPageLimit })
  }

  @Test("an empty conversation opens empty, with nothing older to load", arguments: ServerShape.all)
  func emptyConversation(_ shape: ServerShape) async throws {
    // Given a conversation the server has no message of yet
    let server = ForwardPagingServer(
      conversations: ["c1": 0], givesTotal: shape.givesTotal, cursorOnNewestPage: shape.cursorOnNewestPage)
    let store = try ForwardStory.store(on: server)
    defer { store.close() }

    // When the app opens it
    let opened = try await ForwardStory.load(.loadHistory(pageSize: 20), on: store)

    // Then it is loaded, empty, counted as 0, after one request
    #expect(opened.history.hasLoadedFirstPage && opened.messages.isEmpty && opened.userError == nil)
    #expect(!opened.history.hasMoreHistory)
    #expect(opened.history.totalCount == 0)
    #expect(server.requests.count == 1)

    // And scrolling up asks nothing
    _ = try await ForwardStory.load(.loadMoreHistory(pageSize: 20), on: store)
    #expect(server.requests.count == 1)
  }
}
