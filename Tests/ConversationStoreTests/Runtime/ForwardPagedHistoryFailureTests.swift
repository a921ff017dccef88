import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// A forward server that lies, and history cursors the adapter did not hand out in this run: each ends in a
/// typed error or in paging that goes on with no gap, never in a hang or a trap.
@Suite("Runtime: a forward server that lies, and cursors from elsewhere", .hangGuard)
struct ForwardPagedHistoryFailureTests {
  /// A lie told while the adapter walks to the newest page, and the requests it takes to be caught.
  struct WalkLie: Sendable, CustomTestStringConvertible {
    var lie: ForwardPagingServer.Lie
    var requests: Int

    var testDescription: String { "\(lie), caught after \(requests) requests" }
  }

  @Test(
    "a server that lies while the newest page is looked for fails the load typed; the store keeps what it showed",
    arguments: [
      // The third page's next cursor is its own: the walk would circle.
      WalkLie(lie: .repeatsCursor(fromRequest: 3), requests: 3),
      WalkLie(lie: .oversizedPage(fromRequest: 3), requests: 3),
      // Capped by the policy below: 10 pages, then no more requests.
      WalkLie(lie: .neverEnds, requests: 10),
    ])
  func lieWhileWalking(_ told: WalkLie) async throws {
    // Given a conversation the device shows two messages of, on a server that lies
    let server = ForwardPagingServer(conversations: ["c1": 237], lie: told.lie)
    var policy = ChatPolicy()
    policy.maximumHistoryWalkPages = 10
    let shown = ConversationState.existing(
      [ForwardPagingServer.message(235, in: "c1"), ForwardPagingServer.message(236, in: "c1")], id: "c1")
    let store = try ForwardStory.store(on: server, shown, policy: policy)
    defer { store.close() }

    // When the app loads its history
    let failed = try await ForwardStory.load(.loadHistory(pageSize: 20), on: store)

    // Then the load fails with INVALID_RESPONSE after a bounded number of requests, and nothing changed
    #expect(failed.userError?.code == .invalidResponse)
    #expect(failed.messages.map(\.text) == ForwardStory.texts(235..<237))
    #expect(failed.history.hasMoreHistory && !failed.history.hasLoadedFirstPage)
    #expect(server.requests.count == told.requests)

    // When the server behaves again and the user tries again
    server.lie(nil)
    let asked = server.requests.count
    let opened = try await ForwardStory.load(.loadHistory(pageSize: 20), on: store)

    // Then the failed walk was not remembered: it walks from the first page, and the newest 20 show
    #expect(server.requests.dropFirst(asked).first?.after == nil)
    #expect(server.requests.count - asked == ForwardStory.walk(237, pageLimit: 50))
    #expect(opened.messages.map(\.text) == ForwardStory.texts(217..<237))
  }

  @Test("a page too large while the user scrolls up fails that page typed; what shows stays, and the next try loads it")
  func oversizedOlderPage() async throws {
    // Given a conversation opened at its newest 20
    let server = ForwardPagingServer(conversations: ["c1": 237])
    let store = try ForwardStory.store(on: server)
    defer { store.close() }
    let opened = try await ForwardStory.load(.loadHistory(pageSize: 20), on: store)

    // When the server sends more than its cap for the forward page the next older page is in
    server.lie(.oversizedPage(fromRequest: server.requests.count + 1))
    let failed = try await ForwardStory.load(.loadMoreHistory(pageSize: 20), on: store)

    // Then the page is refused whole: the 20 still show, and paging can go on from the same place
    #expect(failed.userError?.code == .invalidResponse)
    #expect(failed.messages == opened.messages)
    #expect(failed.history.hasMoreHistory && failed.history.cursor == opened.history.cursor)

    // When the server behaves and the user scrolls up again, the older page joins with no gap
    server.lie(nil)
    let older = try await ForwardStory.load(.loadMoreHistory(pageSize: 20), on: store)
    #expect(older.messages.map(\.text) == ForwardStory.texts(197..<237))
  }

  @Test("after a relaunch the kept cursor walks again once, and paging goes on where it left off")
  func cursorFromAnEarlierRun() async throws {
    // Given a run that showed the newest 60 of 237 messages and kept its state (as a journal does)
    let server = ForwardPagingServer(conversations: ["c1": 237])
    let earlier = try ForwardStory.store(on: server)
    _ = try await ForwardStory.load(.loadHistory(pageSize: 20), on: earlier)
    _ = try await ForwardStory.load(.loadMoreHistory(pageSize: 20), on: earlier)
    let left = try await ForwardStory.load(.loadMoreHistory(pageSize: 20), on: earlier)
    earlier.close()
    let kept = try JSONDecoder().decode(ConversationState.self, from: JSONEncoder().encode(left))
    #expect(kept.history.cursor == left.history.cursor && kept.messages.count == 60)

    // When the app is launched again (a new backend that remembers nothing) and the user scrolls up
    let store = try ForwardStory.store(on: server, kept)
    defer { store.close() }
    let asked = server.requests.count
    let older = try await ForwardStory.load(.loadMoreHistory(pageSize: 20), on: store)

    // Then it walks forward once more, then brings the 20 just older than those shown
    #expect(older.userError == nil)
    #expect(older.messages.map(\.text) == ForwardStory.texts(157..<237))
    #expect(
      server.requests.count - asked
        == ForwardStory.walk(237, pageLimit: 50) + ForwardStory.forwardPages(overlapping: 157..<177, pageLimit: 50))

    // And the rest comes back without another walk, to the first message
    let first = try await ForwardStory.scrollToFirst(
      store, on: server, count: 237, shown: 80, pageSize: 20, pageLimit: 50)
    #expect(first.messages.count == 237 && !first.history.hasMoreHistory)
  }

  @Test("a cursor the adapter never made (the server's own, from an older backend) starts again at the newest page")
  func cursorOfAnotherMaking() async throws {
    // Given the newest 20 messages stored with a cursor a backward-paging backend handed out before
    let server = ForwardPagingServer(conversations: ["c1": 237])
    var state = ConversationState.existing((217..<237).map { ForwardPagingServer.message($0, in: "c1") }, id: "c1")
    state.history.cursor = "eyJiZWZvcmUiOiJjMS0yMTcifQ"
    state.history.hasLoadedFirstPage = true
    let store = try ForwardStory.store(on: server, state)
    defer { store.close() }

    // When the user scrolls up
    let again = try await ForwardStory.load(.loadMoreHistory(pageSize: 20), on: store)

    // Then the newest page comes again (one walk), merged into what shows: nothing twice, nothing lost
    #expect(again.userError == nil)
    #expect(again.messages.map(\.text) == ForwardStory.texts(217..<237))
    #expect(again.history.hasMoreHistory && again.history.cursor != state.history.cursor)
    #expect(server.requests.count == ForwardStory.walk(237, pageLimit: 50))

    // And scrolling on goes back to the first message with no gap
    let first = try await ForwardStory.scrollToFirst(
      store, on: server, count: 237, shown: 20, pageSize: 20, pageLimit: 50)
    #expect(first.messages.count == 237 && !first.history.hasMoreHistory)
  }
}
