import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

@Suite("ChatClient local first", .hangGuard)
struct ChatClientLocalFirstTests {
  /// A conversation of `count` messages stored by an earlier run, whose server cursor is `cursor`.
  private func storeHistory(
    _ count: Int, cursor: PageCursor, serverHasMore: Bool = true, in root: TemporaryRoot
  ) throws {
    var state = ConversationState.existing(
      (0..<count).map { .server("message \($0)", id: "s\($0)", at: Double($0)) }, id: "c1")
    state.history.cursor = cursor
    state.history.hasMoreHistory = serverHasMore
    state.history.hasLoadedFirstPage = true
    let storage = try ChatStorage(root: root.path)
    try storage.scope(StorageScope(workspace: "acme", userID: "u-1042")).conversation("c1")
      .persist(state, changes: .reset, at: .story(0))
  }

  @Test("a long stored conversation opens at its newest page; scrolling up reads the disk, then the server")
  func scrollsFromDiskThenServer() async throws {
    // Given 120 messages stored by an earlier run, the server's cursor pointing past the oldest
    let root = TemporaryRoot()
    try storeHistory(120, cursor: "before-s0", in: root)
    var harness = try await ClientHarness.start(identity: UserIdentity(userID: "u-1042"), root: root.path)

    // When the app opens it
    let chat = harness.client.conversation("c1")
    await harness.client.settled()

    // Then the newest page is shown at once, and older messages are known to be on the device
    #expect(chat.state.messages.map(\.text) == (70..<120).map { "message \($0)" })
    #expect(chat.state.history.hasStoredHistory)

    // When the user scrolls up twice
    chat.send(.loadMoreHistory(pageSize: 50))
    _ = await chat.state(where: { $0.messages.count == 100 && !$0.history.isLoadingHistory })
    chat.send(.loadMoreHistory(pageSize: 50))
    let all = try #require(await chat.state(where: { $0.messages.count == 120 && !$0.history.isLoadingHistory }))

    // Then both pages came from the disk, in order, with nothing asked of the server
    #expect(all.messages.map(\.text) == (0..<120).map { "message \($0)" })
    #expect(!all.history.hasStoredHistory)

    // When the user scrolls up once more, the server is asked, from the cursor the earlier run kept
    chat.send(.loadMoreHistory(pageSize: 50))
    guard case .history("c1", let cursor, let limit, let answer) = await harness.nextCall() else {
      Issue.record("expected a history request")
      return await harness.client.close()
    }
    #expect(cursor == "before-s0" && limit == 50)
    answer.resume(
      returning: HistoryPage(messages: [.server("the very first", id: "s-1", at: -1)], nextCursor: nil, hasMore: false))
    let oldest = try #require(await chat.state(where: { $0.messages.count == 121 }))
    #expect(oldest.messages.first?.text == "the very first")
    await harness.client.close()
  }

  @Test("offline, a conversation whose top was reached in an earlier launch still scrolls up through the disk")
  func topReachedBeforeStillScrollsFromDisk() async throws {
    // Given 2,000 messages stored by a launch in which the user had scrolled to the very first
    let root = TemporaryRoot()
    try storeHistory(2_000, cursor: "before-s0", serverHasMore: false, in: root)
    let harness = try await ClientHarness.start(identity: UserIdentity(userID: "u-1042"), root: root.path)

    // When the app opens it offline
    let chat = harness.client.conversation("c1")
    await harness.client.settled()
    _ = await harness.drop(harness.socket, throwing: ChatError(.network, "offline"))

    // Then it opens at the newest 50 and says older messages can be loaded (they are on the device)
    #expect(chat.state.messages.count == 50)
    #expect(!chat.state.history.hasMoreHistory, "the server's answer from the earlier launch stands")
    #expect(chat.state.history.hasOlderMessages)

    // When the user scrolls up to the top, a page at a time
    var pages = 0
    while chat.state.history.hasOlderMessages && pages < 100 {
      let shown = chat.state.messages.count
      chat.send(.loadMoreHistory(pageSize: 100))
      // A page from the server would wait for an answer this story never gives.
      guard await chat.state(where: { $0.messages.count > shown && !$0.history.isLoadingHistory }) != nil
      else { break }
      pages += 1
    }

    // Then every stored message was read from the disk, in order, with nothing asked of the server
    #expect(pages == 20)
    #expect(chat.state.messages.map(\.text) == (0..<2_000).map { "message \($0)" })
    #expect(!chat.state.history.hasOlderMessages)
    await harness.client.close()
  }

  @Test("reading far back lets go of the newest end; scrolling down reads it back from disk, with what arrived after")
  func windowScrollsBothWays() async throws {
    // Given 300 stored messages, opened at the newest 50, and the user scrolled up four pages
    let root = TemporaryRoot()
    try storeHistory(300, cursor: "before-s0", in: root)
    var harness = try await ClientHarness.start(identity: UserIdentity(userID: "u-1042"), root: root.path)
    let chat = harness.client.conversation("c1")
    await harness.client.settled()
    for loaded in stride(from: 100, through: 250, by: 50) {
      chat.send(.loadMoreHistory(pageSize: 50))
      _ = await chat.state(where: { $0.messages.count == loaded && !$0.history.isLoadingHistory })
    }

    // When the host lets go of all but the oldest 100 shown, and the agent writes meanwhile
    chat.send(.trimNewerHistory(keepingOldest: 100))
    #expect(chat.state.messages.map(\.text) == (50..<150).map { "message \($0)" })
    #expect(chat.state.history.newerGap != nil)
    harness.socket.yield(.event("c1", .messageCreated(.server("a new one", id: "s-new", at: 1_000))))
    _ = await chat.state(where: { $0.messages.last?.text == "a new one" })

    // And the user scrolls back down, a page at a time
    for _ in 0..<10 where chat.state.history.newerGap != nil {
      chat.send(.loadNewerHistory(pageSize: 50))
      _ = await chat.state(where: { !$0.history.isLoadingHistory })
    }

    // Then the newer pages came from the disk in order, each once, before the new message, and nothing was
    // asked of the server
    #expect(chat.state.history.newerGap == nil)
    #expect(chat.state.messages.map(\.text) == (50..<300).map { "message \($0)" } + ["a new one"])
    #expect(chat.state.invariantViolations().isEmpty)
    // (the server's first call after all this is the rating the user now makes: no history page came before)
    let answer = try #require(chat.state.messages[serverID: "s299"])
    chat.send(.rateAnswer(answer.clientID, .up))
    guard case .rate("s299", .up, let rated) = await harness.nextCall() else {
      Issue.record("the server was asked for something before the rating")
      return await harness.client.close()
    }
    rated.resume()
    await harness.client.close()
  }

  @Test("what the user searches is found: stored messages, and one received in this run once it is written")
  func searchFindsStoredMessages() async throws {
    // Given a stored conversation, and a message received in this run
    let root = TemporaryRoot()
    try storeHistory(10, cursor: "c", in: root)
    let harness = try await ClientHarness.start(identity: UserIdentity(userID: "u-1042"), root: root.path)
    let chat = harness.client.conversation("c1")
    await harness.client.settled()
    // (the store subscribes to the shared connection on a task of its own: an event before that is the
    // catch-up's to bring, which this story does not answer)
    _ = await chat.state(where: { $0.connection == .syncing || $0.connection == .connected })
    harness.socket.yield(.event("c1", .messageCreated(.server("Your refund was sent", id: "s-new", at: 500))))
    _ = await chat.state(where: { $0.messages.count == 11 })
    // (written by the conversation's follower soon after the store showed it)
    while !harness.client.isCaughtUp { try await Task.sleep(for: .milliseconds(1)) }
    await harness.client.settled()

    // When the user searches
    let refund = try await harness.client.search("REFUND")
    let older = try await harness.client.search("message 3", in: "c1")

    // Then the new message is found, and the stored ones
    #expect(refund.results.map(\.message.text) == ["Your refund was sent"])
    #expect(older.results.map(\.message.text).contains("message 3"))
    await harness.client.close()
  }

  @Test("without storage a search finds nothing, and says so without an error")
  func searchWithoutStorage() async throws {
    let harness = try await ClientHarness.start()
    #expect(try await harness.client.search("anything") == .empty)
    await harness.client.close()
  }
}
