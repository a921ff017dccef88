import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// A conversation-list story on the testing kit's `TestStore`, non-exhaustive: each step checks what the test
/// asserts, and the kit checks the list's invariants after every step.
struct ListStory {
  let store = TestStore(ConversationListState(), exhaustivity: .off)

  /// The current list; setting it arranges a story's "given" without going through the reducer.
  var state: ConversationListState {
    get { store.state }
    nonmutating set { store.arrange { $0 = newValue } }
  }

  @discardableResult
  func send(_ action: ConversationListAction, sourceLocation: SourceLocation = #_sourceLocation)
    -> [ConversationListEffect]
  {
    store.send(action, sourceLocation: sourceLocation)
  }

  var nextRequestID: RequestID { store.nextRequestID }
  var ids: [ConversationID] { state.conversations.map(\.id) }
}

func summary(_ id: Int, at seconds: Double? = nil, title: String? = nil) -> ConversationSummary {
  ConversationSummary(
    id: ConversationID("c\(id)"), title: title ?? "Conversation \(id)",
    lastActivityAt: time(seconds ?? Double(1_000 - id)))
}

func page(_ ids: ClosedRange<Int>, cursor: String?, hasMore: Bool) -> ConversationPage {
  ConversationPage(conversations: ids.map { summary($0) }, nextCursor: cursor.map(PageCursor.init), hasMore: hasMore)
}

@Suite("Conversation list")
struct ConversationListTests {
  static func loaded(_ ids: ClosedRange<Int> = 1...3, hasMore: Bool = true) -> ListStory {
    let list = ListStory()
    let request = list.nextRequestID
    list.send(.load(pageSize: ids.count))
    list.send(.pageLoaded(request, page(ids, cursor: "next", hasMore: hasMore)))
    return list
  }

  @Test("load replaces the list with the first page; loadMore appends, deduplicated by ID")
  func paging() {
    let list = ListStory()
    let first = list.nextRequestID
    #expect(list.send(.load(pageSize: 3)) == [.fetchConversations(first, cursor: nil, limit: 3)])
    #expect(list.state.isLoading)
    list.send(.pageLoaded(first, page(1...3, cursor: "p2", hasMore: true)))

    let second = list.nextRequestID
    #expect(list.send(.loadMore(pageSize: 3)) == [.fetchConversations(second, cursor: "p2", limit: 3)])
    #expect(list.send(.loadMore(pageSize: 3)) == [], "no second request while one is in flight")
    list.send(.pageLoaded(second, page(3...5, cursor: nil, hasMore: false)))

    #expect(list.ids == ["c1", "c2", "c3", "c4", "c5"])
    #expect(!list.state.hasMore)
    #expect(list.send(.loadMore(pageSize: 3)) == [], "nothing after the last page")
  }

  @Test("the list keeps the server's total from the last page that gives one, for \"3 of 41\"")
  func totalCount() {
    // Given a first page that says the user has 41 conversations
    let list = ListStory()
    let first = list.nextRequestID
    list.send(.load(pageSize: 3))
    var counted = page(1...3, cursor: "p2", hasMore: true)
    counted.totalCount = 41
    list.send(.pageLoaded(first, counted))
    #expect(list.state.totalCount == 41)
    #expect(list.state.conversations.count == 3)

    // When the next page says nothing of the total, the last one stands
    let second = list.nextRequestID
    list.send(.loadMore(pageSize: 3))
    list.send(.pageLoaded(second, page(4...6, cursor: "p3", hasMore: true)))
    #expect(list.state.totalCount == 41)

    // And a refresh that counts again wins; a negative count reads as none left
    let refresh = list.nextRequestID
    list.send(.refresh)
    var recounted = page(1...3, cursor: "p2", hasMore: true)
    recounted.totalCount = -2
    list.send(.pageLoaded(refresh, recounted))
    #expect(list.state.totalCount == 0)
  }

  @Test("page sizes outside 1…100 are typed errors; the default is 20", arguments: [0, 101, -5])
  func pageSizes(_ size: Int) {
    let list = ListStory()
    #expect(list.send(.load(pageSize: size)) == [])
    #expect(list.state.error?.code == .invalidPageSize)
    #expect(ConversationListState.defaultPageSize == 20)
  }

  @Test("refresh reconciles the loaded window instead of collapsing to page one")
  func refreshReconciles() {
    let list = Self.loaded(1...3)
    let more = list.nextRequestID
    list.send(.loadMore(pageSize: 3))
    list.send(.pageLoaded(more, page(4...6, cursor: "p3", hasMore: true)))

    let refresh = list.nextRequestID
    #expect(list.send(.refresh) == [.fetchConversations(refresh, cursor: nil, limit: 6)])
    // On the server: c9 is new, c2 was deleted, c3 has a new title; c4…c6 are unchanged.
    var renamed = summary(3)
    renamed.title = "Renamed"
    let fresh = ConversationPage(
      conversations: [summary(9, at: 2_000), summary(1), renamed, summary(4)], nextCursor: "r2", hasMore: true)
    list.send(.pageLoaded(refresh, fresh))

    #expect(list.ids == ["c9", "c1", "c3", "c4", "c5", "c6"])
    #expect(list.state.conversations["c3"]?.title == "Renamed")
    #expect(list.state.cursor == "p3", "paging continues after what was already paged in")
  }

  @Test("a new message moves its conversation to the top with its preview and unread count")
  func realtimeReorders() {
    let list = Self.loaded(1...4)
    list.send(.realtime(.messageCreated("c3", preview: "Your refund is on its way", role: .assistant, at: time(5_000))))
    #expect(list.ids == ["c3", "c1", "c2", "c4"])
    #expect(list.state.conversations["c3"]?.lastMessagePreview == "Your refund is on its way")
    #expect(list.state.conversations["c3"]?.unreadCount == 1)

    list.send(.realtime(.messageCreated("c4", preview: "thanks", role: .user, at: time(5_001))))
    #expect(list.ids == ["c4", "c3", "c1", "c2"])
    #expect(list.state.conversations["c4"]?.unreadCount == 0, "the user's own message is not unread")

    list.send(.markRead("c3"))
    #expect(list.state.conversations["c3"]?.unreadCount == 0)
  }

  @Test("a new conversation appears at the top, titled by the customer's first message")
  func newConversation() {
    let list = Self.loaded(1...2)
    let created = ConversationSummary(
      id: "new", title: "", lastActivityAt: time(9_000),
      lastMessagePreview:
        "My package arrived damaged and I would like to get a replacement sent out as soon as possible please\nthanks")
    list.send(.realtime(.conversationCreated(created)))
    #expect(list.ids.first == "new")
    let title = list.state.conversations["new"]?.title ?? ""
    #expect(title.hasPrefix("My package arrived damaged"))
    #expect(title.count == ConversationSummary.maximumTitleLength)
    #expect(title.hasSuffix("…"))
  }

  @Test("status and title changes update in place; deletes remove; unknown IDs are ignored")
  func inPlaceUpdates() {
    let list = Self.loaded(1...3)
    list.send(.realtime(.statusChanged("c2", .ended)))
    list.send(.realtime(.titleChanged("c1", "Billing")))
    list.send(.realtime(.conversationDeleted("c3")))
    list.send(.realtime(.statusChanged("nope", .ended)))
    list.send(.realtime(.messageCreated("nope", preview: "?", role: .assistant, at: time(1))))
    #expect(list.ids == ["c1", "c2"])
    #expect(list.state.conversations["c2"]?.status == .ended)
    #expect(list.state.conversations["c1"]?.title == "Billing")
  }

  @Test("a failed load keeps the list and reports a typed error; clearError clears it")
  func failedLoad() {
    let list = Self.loaded(1...3)
    let more = list.nextRequestID
    list.send(.loadMore(pageSize: 3))
    list.send(.requestFailed(more, ChatError(.rateLimited, "slow down", status: 429)))
    #expect(list.ids == ["c1", "c2", "c3"])
    #expect(list.state.error?.retryable == true)
    list.send(.clearError)
    #expect(list.state.error == nil)
  }

  @Test("a page from before an identity change is ignored")
  func stalePageAfterIdentityChange() {
    let list = ListStory()
    let request = list.nextRequestID
    list.send(.load(pageSize: 20))
    #expect(list.send(.identityChanged) == [.cancel(request)])
    list.send(.pageLoaded(request, page(1...3, cursor: nil, hasMore: false)))
    #expect(list.state.conversations.isEmpty)
    #expect(list.state.epoch == IdentityEpoch(1))
  }

  @Test("many moves to the top keep the list exact (tombstones are swept)")
  func manyMoves() {
    let list = Self.loaded(1...50)
    var expected = list.ids
    for step in 0..<2_000 {
      let id = ConversationID("c\(1 + (step * 7) % 50)")
      list.state.conversations.moveToTop(ConversationSummary(id: id, title: "t", lastActivityAt: time(Double(step))))
      expected.removeAll { $0 == id }
      expected.insert(id, at: 0)
    }
    #expect(list.ids == expected)
    #expect(list.state.invariantViolations() == [])
  }

  @Test("sweeping the emptied slots never resets a subscriber, and lists with the same rows stay equal")
  func compactionIsNoReset() {
    // Given a list a subscriber has drawn
    let list = Self.loaded(1...50)
    var drawn = list.state.conversations
    // When enough moves happen for the tombstones to be swept, frame by frame
    for step in 0..<500 {
      let id = ConversationID("c\(1 + (step * 7) % 50)")
      list.state.conversations.moveToTop(ConversationSummary(id: id, title: "t", lastActivityAt: time(Double(step))))
      let changes = list.state.conversations.changes(since: drawn)
      // Then no frame is a reset, and each names the moved row
      #expect(!changes.isReset, "step \(step)")
      #expect(changes.updated.contains(id) || changes.inserted.contains(id), "step \(step)")
      drawn = list.state.conversations
    }
    // And a list rebuilt from the same rows (other slots, other lineage) is equal; one row different is not
    let rebuilt = ConversationList(Array(list.state.conversations))
    #expect(rebuilt == list.state.conversations)
    var edited = list.state.conversations
    edited.update("c1") { $0.title = "changed" }
    #expect(edited != list.state.conversations)
    #expect(list.state.invariantViolations() == [])
  }

  @Test("an undone delete comes back in the slot it left: a subscriber redraws that row alone")
  func undoneDeleteRedrawsOneRow() {
    // Given a long list a subscriber has drawn, and a row deleted from its middle
    let list = Self.loaded(1...100)
    list.send(.delete("c60"))
    let drawn = list.state.conversations
    // When the user undoes the delete
    list.send(.undoDelete("c60"))
    // Then the row is back where it was, and the change set names only it (not every row below it)
    #expect(list.ids == (1...100).map { ConversationID("c\($0)") })
    #expect(list.state.conversations.changes(since: drawn) == ChangeSet(inserted: ["c60"]))
  }

  @Test("a row put back where its neighbours moved on lands in its place by activity, not in its old slot")
  func putBackAfterNeighboursMoved() {
    // Given c3 deleted, then c2 and c4 made newer than it (c2 to the top, c4 just behind c1)
    let list = Self.loaded(1...5, hasMore: false)  // c1 newest … c5 oldest
    list.send(.delete("c3"))
    list.send(.realtime(.messageCreated("c2", preview: "new", role: .assistant, at: time(5_000))))
    list.send(.realtime(.messageCreated("c4", preview: "new", role: .assistant, at: time(998))))
    // When the delete is undone
    list.send(.undoDelete("c3"))
    // Then c3 sits by its activity, below c4 now
    #expect(list.ids == ["c2", "c1", "c4", "c3", "c5"])
  }

  @Test("a row edited in place is a different list from the snapshot before it, however the rows are held")
  func editedRowIsUnequal() {
    // Given a list and a snapshot that shares its slots
    let list = Self.loaded(1...100)
    let snapshot = list.state.conversations
    // When one row's title changes in place, far down the list
    list.state.conversations.update("c90") { $0.title = "Renamed" }
    // Then the two lists differ; put back, they are equal again
    #expect(list.state.conversations != snapshot)
    list.state.conversations.update("c90") { $0.title = "Conversation 90" }
    #expect(list.state.conversations == snapshot)
  }

  @Test("list snapshots name the moved conversation")
  func listChanges() {
    let list = Self.loaded(1...100)
    #expect(list.state.conversations.count == 100)
    var moved = list.state
    moved.conversations.moveToTop(summary(50, at: 9_999))
    #expect(moved.changes(since: list.state) == ChangeSet(updated: ["c50"]))
  }
}

@Suite("Conversation list ordering")
struct ConversationListOrderingTests {
  @Test("realtime events order rows by their time: one that arrives late lands in its place, not on top")
  func outOfOrderEvents() {
    let list = ConversationListTests.loaded(1...3, hasMore: false)  // c1 newest … c3 oldest
    list.send(.realtime(.messageCreated("c3", preview: "new", role: .assistant, at: time(5_000))))
    #expect(list.state.conversations.map(\.id) == ["c3", "c1", "c2"])
    // An event from before c3's activity but after c2's arrives late.
    list.send(.realtime(.messageCreated("c2", preview: "late", role: .assistant, at: time(1_500))))
    #expect(list.state.conversations.map(\.id) == ["c3", "c2", "c1"])
    let before = list.state
    list.send(.realtime(.messageCreated("c1", preview: "older still", role: .assistant, at: time(0))))
    #expect(list.state.conversations.map(\.id) == ["c3", "c2", "c1"], "an old event moves nothing")
    #expect(!list.state.conversations.changes(since: before.conversations).isReset)
  }

  @Test("the same message told twice (the realtime connection, then a conversation's catch-up) counts once")
  func toldTwiceCountsOnce() {
    let list = ConversationListTests.loaded(1...3, hasMore: false)
    let unread = list.state.conversations["c2"]?.unreadCount ?? 0
    let event = ConversationListEvent.messageCreated(
      "c2", preview: "Your refund is on its way", role: .assistant, at: time(5_000), messageID: "s9")
    list.send(.realtime(event))
    list.send(.realtime(event))
    #expect(list.state.conversations["c2"]?.unreadCount == unread + 1)
    #expect(list.state.conversations.map(\.id).first == "c2")
  }

  @Test("a message older than the row's newest keeps the newer preview")
  func olderMessageKeepsPreview() {
    let list = ConversationListTests.loaded(1...3, hasMore: false)
    list.send(.realtime(.messageCreated("c3", preview: "newest", role: .assistant, at: time(5_000), messageID: "s2")))
    list.send(.realtime(.messageCreated("c3", preview: "older", role: .assistant, at: time(4_000), messageID: "s1")))
    #expect(list.state.conversations["c3"]?.lastMessagePreview == "newest")
    #expect(list.state.conversations["c3"]?.lastMessageID == "s2")
    #expect(list.state.conversations["c3"]?.unreadCount == 2, "both are unread")
  }

  @Test("a summary without a title or a date gets a title from the first message and sorts last until active")
  func optionalTitleAndDate() {
    let summary = ConversationSummary(id: "c9")
    #expect(summary.title == "" && summary.lastActivityAt == .distantPast)
    let page = ConversationPage(conversations: [summary], nextCursor: nil, hasMore: false, totalCount: 1)
    #expect(page.totalCount == 1)
  }
}
