import ConversationState
import Foundation
import Reducers
import Testing

@Suite("History paging")
struct HistoryTests {
  static func page(_ range: ClosedRange<Int>, cursor: String?, hasMore: Bool) -> HistoryPage {
    HistoryPage(
      messages: range.map {
        .server("m\($0)", id: "s\($0)", role: $0.isMultiple(of: 2) ? .user : .assistant, at: Double($0))
      },
      nextCursor: cursor.map(PageCursor.init), hasMore: hasMore)
  }

  /// A conversation whose first page (messages 11…20) has loaded.
  static func withFirstPage() -> Chat {
    let chat = Chat.existing()
    let request = chat.nextRequestID
    chat.send(.loadHistory(pageSize: 10))
    chat.send(.historyLoaded(request, page(11...20, cursor: "p2", hasMore: true)))
    return chat
  }

  @Test("the first page holds the newest messages and each older page goes in front")
  func pagesInOrder() {
    let chat = Chat.existing()
    let first = chat.nextRequestID
    #expect(chat.send(.loadHistory(pageSize: 10)) == [.fetchHistory(first, "conv-1", cursor: nil, limit: 10)])
    #expect(chat.state.history.isLoadingHistory)
    chat.send(.historyLoaded(first, Self.page(11...20, cursor: "p2", hasMore: true)))

    let second = chat.nextRequestID
    #expect(chat.send(.loadMoreHistory(pageSize: 10)) == [.fetchHistory(second, "conv-1", cursor: "p2", limit: 10)])
    chat.send(.historyLoaded(second, Self.page(1...10, cursor: nil, hasMore: true)))

    #expect(chat.texts == (1...20).map { "m\($0)" })
    #expect(chat.state.history.hasMoreHistory, "only the server says when history ends")
    #expect(!chat.state.history.isLoadingHistory)
  }

  @Test("a duplicate page changes no message")
  func duplicatePage() {
    let chat = Self.withFirstPage()
    let before = chat.state.messages
    let request = chat.nextRequestID
    chat.send(.loadMoreHistory(pageSize: 10))
    chat.send(.historyLoaded(request, Self.page(11...20, cursor: "p3", hasMore: true)))
    #expect(chat.state.messages == before)
    #expect(chat.state.history.cursor == "p3")
  }

  @Test("an overlapping page adds only the messages not seen yet, in order")
  func overlappingPage() {
    let chat = Self.withFirstPage()
    let request = chat.nextRequestID
    chat.send(.loadMoreHistory(pageSize: 10))
    chat.send(.historyLoaded(request, Self.page(6...15, cursor: "p3", hasMore: true)))
    #expect(chat.texts == (6...20).map { "m\($0)" })
  }

  @Test("an empty last page ends history, and loading more then asks nothing")
  func emptyLastPage() {
    let chat = Self.withFirstPage()
    let request = chat.nextRequestID
    chat.send(.loadMoreHistory(pageSize: 10))
    chat.send(.historyLoaded(request, HistoryPage(messages: [], nextCursor: nil, hasMore: false)))
    #expect(!chat.state.history.hasMoreHistory)
    #expect(chat.state.messages.count == 10)
    #expect(chat.send(.loadMoreHistory(pageSize: 10)) == [])
  }

  @Test("loading more while a load is in flight asks nothing")
  func loadMoreWhileLoading() {
    let chat = Self.withFirstPage()
    #expect(chat.send(.loadMoreHistory(pageSize: 10)).count == 1)
    #expect(chat.send(.loadMoreHistory(pageSize: 10)) == [])
    #expect(chat.send(.loadHistory(pageSize: 10)) == [])
    #expect(chat.state.requests.count == 1)
  }

  @Test("a failed load keeps hasMoreHistory and lets the user try again")
  func failedLoad() {
    let chat = Self.withFirstPage()
    let request = chat.nextRequestID
    chat.send(.loadMoreHistory(pageSize: 10))
    chat.send(.requestFailed(request, ChatError(.network, "offline")))
    #expect(chat.state.history.hasMoreHistory)
    #expect(!chat.state.history.isLoadingHistory)
    #expect(chat.state.userError?.code == .network)
    #expect(chat.send(.loadMoreHistory(pageSize: 10)).count == 1)
  }

  @Test("page sizes outside 1…100 are refused", arguments: [0, -1, 101, Int.max])
  func invalidPageSize(_ size: Int) {
    let chat = Chat.existing()
    #expect(chat.send(.loadHistory(pageSize: size)) == [])
    #expect(chat.send(.loadMoreHistory(pageSize: size)) == [])
    #expect(chat.state.userError?.code == .invalidPageSize)
  }

  @Test("page sizes 1 and 100 are allowed", arguments: [1, 100])
  func validPageSize(_ size: Int) {
    let chat = Chat.existing()
    #expect(chat.send(.loadHistory(pageSize: size)).count == 1)
  }

  @Test("a conversation that does not exist yet has no history to ask for")
  func noConversationYet() {
    let chat = Chat()
    #expect(chat.send(.loadHistory(pageSize: 20)) == [])
    #expect(chat.state.userError == nil)
  }

  @Test("messages without a server ID are skipped with a typed background error; the rest merge")
  func messagesWithoutIDs() {
    let chat = Chat.existing()
    let request = chat.nextRequestID
    chat.send(.loadHistory(pageSize: 10))
    var anonymous = Message.server("no id", id: "x", at: 1)
    anonymous.serverID = nil
    chat.send(
      .historyLoaded(
        request, HistoryPage(messages: [anonymous, .server("ok", id: "s2", at: 2)], nextCursor: nil, hasMore: false)))
    #expect(chat.texts == ["ok"])
    #expect(chat.state.backgroundError?.code == .invalidEvent)
  }

  @Test("a page with a message the backend could not read keeps the rest and its cursor, and says how many")
  func unreadableMessagesLeftOut() {
    // Given a conversation whose first page has loaded
    let chat = Self.withFirstPage()
    // When the next page holds messages 6…10 and two the backend could not read
    let request = chat.nextRequestID
    chat.send(.loadMoreHistory(pageSize: 10))
    var page = Self.page(6...10, cursor: "p3", hasMore: true)
    page.unreadable = [
      ChatError(.invalidEvent, "A message's role \"robot\" is not one this client knows."),
      ChatError(.invalidEvent, "A source's external_url is not http(s)."),
    ]
    chat.send(.historyLoaded(request, page))
    // Then the readable messages go in front, paging goes on from the page's cursor
    #expect(chat.texts == (6...20).map { "m\($0)" })
    #expect(chat.state.history.cursor == "p3" && chat.state.history.hasMoreHistory)
    // And the user learns, as a background error, that two were left out and why the first was
    #expect(chat.state.backgroundError?.code == .invalidEvent)
    #expect(chat.state.backgroundError?.message.hasPrefix("2 message(s) of a history page") == true)
    #expect(chat.state.backgroundError?.message.contains("robot") == true)
    #expect(chat.state.userError == nil)
    // And the next page is asked from there
    let next = chat.nextRequestID
    #expect(chat.send(.loadMoreHistory(pageSize: 10)) == [.fetchHistory(next, "conv-1", cursor: "p3", limit: 10)])
  }

  @Test("a page recorded before pages listed unreadable messages decodes with none")
  func pageWithoutUnreadableDecodes() throws {
    let json = #"{"messages":[],"nextCursor":"p2","hasMore":true}"#
    let page = try JSONDecoder().decode(HistoryPage.self, from: Data(json.utf8))
    #expect(page == HistoryPage(messages: [], nextCursor: "p2", hasMore: true))
    #expect(page.unreadable.isEmpty)
    // And one that lists them reads them back
    var listed = page
    listed.unreadable = [ChatError(.invalidEvent, "bad")]
    #expect(try JSONDecoder().decode(HistoryPage.self, from: JSONEncoder().encode(listed)) == listed)
  }

  @Test("a page that arrives after the live messages interleaves by server time")
  func pageInterleavesLiveMessages() {
    let chat = Chat.existing([.server("live 30", id: "s30", at: 30)])
    let request = chat.nextRequestID
    chat.send(.loadHistory(pageSize: 10))
    chat.send(
      .historyLoaded(
        request,
        HistoryPage(
          messages: [
            .server("m10", id: "s10", at: 10), .server("m40", id: "s40", at: 40), .server("m20", id: "s20", at: 20),
          ],
          nextCursor: nil, hasMore: false)))
    #expect(chat.texts == ["m10", "m20", "live 30", "m40"])
  }

  @Test("a stale history result is ignored")
  func staleHistoryResult() {
    let chat = Chat.existing()
    let before = chat.state
    chat.send(
      .historyLoaded(RequestID(epoch: chat.state.epoch, sequence: 42), Self.page(1...3, cursor: nil, hasMore: false)))
    #expect(chat.state == before)
  }
}
