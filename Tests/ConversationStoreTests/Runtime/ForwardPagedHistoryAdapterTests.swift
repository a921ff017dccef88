import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// The adapter on its own, called as the runtime calls it: what it remembers, for how many conversations,
/// from many threads, and what it refuses.
@Suite("Runtime: ForwardPagedHistory's memory and limits", .hangGuard)
struct ForwardPagedHistoryAdapterTests {
  static func adapter(on server: ForwardPagingServer, policy: ChatPolicy = ChatPolicy()) throws -> ForwardPagedHistory {
    try ForwardPagedHistory(serverPageLimit: server.pageLimit, policy: policy) { conversation, after, limit in
      try server.page(of: conversation, after: after, limit: limit)
    }
  }

  /// How many conversations are remembered, and what the first one's next older page then costs.
  struct Bound: Sendable, CustomTestStringConvertible {
    var remembered: Int
    var requests: Int

    var testDescription: String { "\(remembered) remembered: \(requests) requests" }
  }

  @Test(
    "past the bound the conversation paged least recently is forgotten, and its next older page walks again",
    arguments: [
      // Forgotten: its 2 pages walked again (the next 20 are in the pages the walk fetched anyway).
      Bound(remembered: 1, requests: 2),
      Bound(remembered: 0, requests: 2),
      // Remembered: only the page the next 20 are in.
      Bound(remembered: 2, requests: 1),
    ])
  func boundedMemory(_ bound: Bound) async throws {
    // Given an adapter that remembers `remembered` conversations, and two conversations of 60 messages
    let server = ForwardPagingServer(conversations: ["a": 60, "b": 60])
    var policy = ChatPolicy()
    policy.rememberedHistoryWalks = bound.remembered
    let history = try Self.adapter(on: server, policy: policy)

    // When the user opens a, then b, then scrolls up in a
    let newestA = try await history.history(of: "a", before: nil, limit: 20)
    _ = try await history.history(of: "b", before: nil, limit: 20)
    let asked = server.requests.count
    let olderA = try await history.history(of: "a", before: newestA.nextCursor, limit: 20)

    // Then a's older page costs what its bound allows, and is right either way
    #expect(server.requests.count - asked == bound.requests)
    #expect(olderA.messages.map(\.text) == ForwardStory.texts(20..<40))
    #expect(olderA.hasMore)
  }

  @Test("conversations paged at once from many tasks each walk once and come back whole")
  func concurrentConversations() async throws {
    // Given eight conversations of different lengths behind one adapter
    let sizes = (0..<8).map { 30 + 41 * $0 }
    let ids = sizes.indices.map { ConversationID("c\($0)") }
    let server = ForwardPagingServer(conversations: Dictionary(uniqueKeysWithValues: zip(ids, sizes)))
    let history = try Self.adapter(on: server)

    // When each is paged from its newest message to its first, all at once
    let paged = try await withThrowingTaskGroup(of: (ConversationID, [String]).self) { group in
      for id in ids {
        group.addTask {
          var page = try await history.history(of: id, before: nil, limit: 20)
          var texts = page.messages.map(\.text)
          while page.hasMore {
            page = try await history.history(of: id, before: page.nextCursor, limit: 20)
            texts = page.messages.map(\.text) + texts
          }
          return (id, texts)
        }
      }
      return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
    }

    // Then every conversation is whole and in order, and each cost one walk and the pages it paged back
    for (id, size) in zip(ids, sizes) {
      #expect(paged[id] == ForwardStory.texts(0..<size), "\(id)")
      var expected = ForwardStory.walk(size, pageLimit: 50)
      var shown = min(20, size)
      while shown < size {
        let added = min(20, size - shown)
        expected += ForwardStory.forwardPages(overlapping: (size - shown - added)..<(size - shown), pageLimit: 50)
        shown += added
      }
      let asked = server.requests.filter { $0.conversation == id }.count
      #expect(asked == expected, "\(id) made \(asked) requests, not \(expected): it walked again, or fetched twice")
    }
  }

  @Test("messages deleted before the oldest one shown: the next page still ends just before it")
  func deletedBeforeTheBoundary() async throws {
    // Given the newest 20 of 237 messages paged in (217 to 236)
    let server = ForwardPagingServer(conversations: ["c1": 237])
    let history = try Self.adapter(on: server)
    let newest = try await history.history(of: "c1", before: nil, limit: 20)

    // When five messages just before them are deleted on the server, and the user scrolls up
    server.delete(210..<215, in: "c1")
    let older = try await history.history(of: "c1", before: newest.nextCursor, limit: 20)

    // Then the page is the 20 still there just before message 217: none of those shown comes twice
    #expect(older.messages.map(\.text) == ForwardStory.texts(192..<210) + ForwardStory.texts(215..<217))
  }

  @Test("a kept cursor past the pages the server has now reads as the end of its newest page: no gap")
  func cursorPastTheServersPages() async throws {
    // Given a cursor an earlier run kept at the 10th forward page, and a server that now has 5
    let server = ForwardPagingServer(conversations: ["c1": 237])
    let history = try Self.adapter(on: server)

    // When the next older page is asked for from it
    let page = try await history.history(of: "c1", before: "fwd1/9/3/c1-480", limit: 20)

    // Then the newest messages come (the store merges those it shows), and paging goes on back from them
    #expect(page.messages.map(\.text) == ForwardStory.texts(217..<237))
    #expect(page.hasMore)
    #expect(server.requests.count == ForwardStory.walk(237, pageLimit: 50))
  }

  @Test("a walk stops between requests once its task is cancelled (a store closed mid-walk)")
  func cancelledWalk() async throws {
    // Given a server whose second page arrives after the caller gave up
    let server = ForwardPagingServer(conversations: ["c1": 237])
    let history = try ForwardPagedHistory(serverPageLimit: 50) { conversation, after, limit in
      if after != nil { withUnsafeCurrentTask { $0?.cancel() } }
      return try server.page(of: conversation, after: after, limit: limit)
    }

    // When the newest page is asked for, in a task of its own as the runtime asks
    let walking = Task { try await history.history(of: "c1", before: nil, limit: 20) }
    let result = await walking.result
    #expect(throws: CancellationError.self) { try result.get() }

    // Then the walk asked for no page after the cancelled one
    #expect(server.requests.count == 2)
  }

  @Test("settings that cannot work are refused typed, never trapped on")
  func refusedSettings() async throws {
    // Given a server, and a host that configures the adapter wrongly
    let server = ForwardPagingServer(conversations: ["c1": 3])
    var walkless = ChatPolicy()
    walkless.maximumHistoryWalkPages = 0

    // When it asks for pages of no message, or walks of no page, then it is told so, typed
    let emptyPages = #expect(throws: ChatError.self) {
      try ForwardPagedHistory(serverPageLimit: 0) { conversation, after, limit in
        try server.page(of: conversation, after: after, limit: limit)
      }
    }
    #expect(emptyPages?.code == .invalidConfiguration)
    let noWalk = #expect(throws: ChatError.self) { try Self.adapter(on: server, policy: walkless) }
    #expect(noWalk?.code == .invalidConfiguration)

    // When a caller asks for a history page of no message, then it is refused, and nothing is asked
    let history = try Self.adapter(on: server)
    let refused = await #expect(throws: ChatError.self) { try await history.history(of: "c1", before: nil, limit: 0) }
    #expect(refused?.code == .invalidPageSize)
    #expect(server.requests.isEmpty)
  }
}
