import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// What the forward paging stories share: a real store on a `ForwardPagingServer` through the article's
/// `SupportServer`, and the arithmetic of what a page should cost.
enum ForwardStory {
  /// The texts of the server's messages `range`, as `ForwardPagingServer` numbers them.
  static func texts(_ range: Range<Int>) -> [String] { range.map { "message \($0)" } }

  /// Forward pages of `pageLimit` that hold messages `range`: what one store page costs once walked.
  static func forwardPages(overlapping range: Range<Int>, pageLimit: Int) -> Int {
    range.isEmpty ? 0 : (range.upperBound - 1) / pageLimit - range.lowerBound / pageLimit + 1
  }

  /// Requests a first walk of a conversation of `count` messages makes.
  static func walk(_ count: Int, pageLimit: Int, cursorOnNewestPage: Bool = false) -> Int {
    max(1, (count + pageLimit - 1) / pageLimit) + (cursorOnNewestPage && count > 0 ? 1 : 0)
  }

  /// A real store on conversation `c1` of `server` (unless `state` names another), through the article's
  /// `SupportServer` with `pageLimit` as the server's cap; store and adapter share `policy`.
  static func store(
    on server: ForwardPagingServer, _ state: ConversationState = ConversationState(conversationID: "c1"),
    pageLimit: Int = 50, policy: ChatPolicy = ChatPolicy()
  ) throws -> ChatStore {
    let backend = try SupportServer(api: SupportAPI(server: server), pageLimit: pageLimit, policy: policy)
    return ChatStore(state, policy: policy, backend: backend, environment: .deterministic())
  }

  /// Sends `action` and waits until the history load it started is over (at once when it started none).
  static func load(_ action: ConversationAction, on store: ChatStore) async throws -> ConversationState {
    store.send(action)
    return try #require(await store.state(where: { !$0.history.isLoadingHistory }))
  }

  /// Scrolls up a store page at a time from `shown` newest messages until the first, checking each page
  /// joins the last with no gap and nothing twice, and costs only the forward pages it holds (no new walk).
  static func scrollToFirst(
    _ store: ChatStore, on server: ForwardPagingServer, count: Int, shown: Int, pageSize: Int, pageLimit: Int
  ) async throws -> ConversationState {
    var shown = shown
    var state = store.state
    for _ in 0..<count where state.history.hasMoreHistory {
      let asked = server.requests.count
      state = try await load(.loadMoreHistory(pageSize: pageSize), on: store)
      let added = min(pageSize, count - shown)
      #expect(state.userError == nil)
      #expect(state.messages.map(\.text) == texts((count - shown - added)..<count), "a gap or a duplicate")
      #expect(
        server.requests.count - asked
          == forwardPages(overlapping: (count - shown - added)..<(count - shown), pageLimit: pageLimit),
        "an older page cost more than the forward pages it holds: it walked again")
      shown += added
    }
    return state
  }
}
