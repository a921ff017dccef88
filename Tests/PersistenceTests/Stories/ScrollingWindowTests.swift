import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

@testable import Persistence

/// A host that scrolls a stored conversation: it sends the paging and trimming actions a list view sends,
/// answers the store's stored-page effects from the file, and persists each state, as `ChatClient` does.
private struct ScrollingHost {
  let file: ConversationFile
  var state: ConversationState
  private var persisted: ConversationState
  /// The most committed messages memory held at once.
  private(set) var mostInMemory = 0
  /// Every message that came into memory from a page, in the order they came.
  private(set) var pagedIn: [String] = []

  init(_ file: ConversationFile) throws {
    self.file = file
    state = try #require(file.restored)
    persisted = state
  }

  /// Counts afresh from here (the user turns round).
  mutating func startCounting() {
    mostInMemory = 0
    pagedIn = []
  }

  mutating func send(_ action: ConversationAction) throws {
    var effects = ConversationReducer().reduce(into: &state, action: action)
    while let effect = effects.first {
      effects.removeFirst()
      let page: (messages: [Message], hasMore: Bool)
      let requestID: RequestID
      switch effect {
      case .fetchStoredHistory(let id, _, let before, let limit):
        (requestID, page) = (id, try file.storedMessages(before: before, limit: limit))
      case .fetchNewerStoredHistory(let id, _, let after, let limit):
        (requestID, page) = (id, try file.storedMessages(after: after, limit: limit))
      default: continue
      }
      let before = state
      effects += ConversationReducer().reduce(
        into: &state, action: .storedHistoryLoaded(requestID, page.messages, hasMore: page.hasMore))
      pagedIn += page.messages.filter { before.messages[clientID: $0.clientID] == nil }.map(\.text)
    }
    var committed = 0
    for message in state.messages where message.isCommitted { committed += 1 }
    mostInMemory = max(mostInMemory, committed)
    try file.persist(state, changes: state.changes(since: persisted), at: .story(Double(pagedIn.count)))
    persisted = state
  }
}

/// `count` messages, one a second, alternating user and agent.
/// Its newest page came from the server once, as when the conversation was first shown.
private func history(_ count: Int) -> ConversationState {
  var state = ConversationState.existing(
    (0..<count).map {
      .server("message \($0)", id: "conv-1-s\($0)", role: $0 % 2 == 0 ? .user : .assistant, at: Double($0))
    })
  state.history.hasLoadedFirstPage = true
  return state
}

@Suite("Local first: a window that scrolls both ways keeps memory flat")
struct ScrollingWindowTests {
  @Test("scrolling up through 10,000 stored messages and back down holds at most the window, each message once")
  func memoryStaysFlatBothWays() throws {
    // Given a reopened conversation of 10,000 stored messages, showing its newest 50
    let root = ScratchRoot()
    try root.scope().conversation("conv-1").persist(history(10_000), changes: .reset, at: .story(0))
    var host = try ScrollingHost(root.scope().conversation("conv-1", window: 50))

    // When the user scrolls to the first message, a page of 50 at a time, and the host keeps 150 in memory
    // (bounded: a store that stopped paging fails the test instead of hanging it)
    for _ in 0..<400 where host.state.history.hasStoredHistory {
      try host.send(.loadMoreHistory(pageSize: 50))
      try host.send(.trimNewerHistory(keepingOldest: 150))
    }

    // Then memory never held more than the window and a page, and every older message came in once, in order
    #expect(!host.state.history.hasStoredHistory)
    #expect(host.mostInMemory <= 200)
    #expect(host.pagedIn == (0..<9_950).reversed().chunked(50).flatMap { $0.reversed() }.map { "message \($0)" })
    #expect(host.state.messages.first?.text == "message 0")
    let gap = try #require(host.state.history.newerGap)
    #expect(gap.through == history(10_000).messages.last?.orderKey)

    // When the user scrolls all the way back down, trimming what is above
    host.startCounting()
    for _ in 0..<400 where host.state.history.newerGap != nil {
      try host.send(.loadNewerHistory(pageSize: 50))
      try host.send(.trimHistory(keepingNewest: 150))
    }

    // Then the window is the newest 150 again, memory stayed flat, and each newer message came back once
    #expect(host.state.history.newerGap == nil)
    #expect(host.mostInMemory <= 200)
    #expect(host.pagedIn == (150..<10_000).map { "message \($0)" })
    #expect(host.state.messages.map(\.text) == (9_850..<10_000).map { "message \($0)" })
    #expect(host.state.invariantViolations().isEmpty)
    // And storage lost nothing on the way
    #expect(try everyStoredMessage(root.scope().conversation("conv-1")).count == 10_000)
  }

  @Test("a message that arrives while the user reads far back joins after the gap, and is not paged in twice")
  func arrivalsWhileScrolledUp() throws {
    // Given a conversation of 500 stored messages the user scrolled far up in, newest end trimmed
    let root = ScratchRoot()
    try root.scope().conversation("conv-1").persist(history(500), changes: .reset, at: .story(0))
    var host = try ScrollingHost(root.scope().conversation("conv-1", window: 50))
    for _ in 0..<2 { try host.send(.loadMoreHistory(pageSize: 50)) }
    try host.send(.trimNewerHistory(keepingOldest: 50))
    #expect(host.state.messages.last?.text == "message 399")

    // When the agent writes meanwhile, and the server deletes one of the newest messages shown
    try host.send(.realtime("conv-1", .messageCreated(.server("a new one", id: "conv-1-new", at: 1_000))))
    try host.send(.realtime("conv-1", .messageCreated(.server("soon gone", id: "conv-1-gone", at: 1_001))))
    try host.send(.realtime("conv-1", .messageDeleted("conv-1-gone")))

    // Then the timeline is the window, then the gap, then the new message
    #expect(host.state.messages.suffix(2).map(\.text) == ["message 399", "a new one"])
    #expect(host.state.history.newerGap?.after == host.state.messages[serverID: "conv-1-s399"]?.orderKey)

    // And scrolling down brings the gap's messages back once, the new one not twice
    let pagedInBefore = host.pagedIn.count
    for _ in 0..<10 where host.state.history.newerGap != nil { try host.send(.loadNewerHistory(pageSize: 60)) }
    #expect(host.state.history.newerGap == nil)
    #expect(host.state.messages.suffix(101).map(\.text) == (400..<500).map { "message \($0)" } + ["a new one"])
    #expect(Array(host.pagedIn.dropFirst(pagedInBefore)) == (400..<500).map { "message \($0)" })

    // And storage keeps the trimmed ones and the new one, but not the deleted one
    let stored = try everyStoredMessage(root.scope().conversation("conv-1")).map(\.text)
    #expect(stored.count == 501)
    #expect(stored.last == "a new one")
    #expect(!stored.contains("soon gone"))
  }

  @Test("a conversation left while the user read far back reopens at its newest page")
  func reopensAtNewestAfterLeavingScrolledUp() throws {
    // Given a user far up in a conversation of 400 messages, the newest end trimmed, and a long draft
    // typed meanwhile: the journal is compacted, and now holds the window the user reads
    let root = ScratchRoot()
    try root.scope().conversation("conv-1").persist(history(400), changes: .reset, at: .story(0))
    var host = try ScrollingHost(root.scope().conversation("conv-1", window: 50))
    for _ in 0..<6 { try host.send(.loadMoreHistory(pageSize: 50)) }
    try host.send(.trimNewerHistory(keepingOldest: 60))
    for round in 0..<10 { try host.send(.setDraft(String(repeating: "draft ", count: 7_000) + "\(round)")) }
    #expect(host.file.fileSize < 300_000)  // less than the drafts written: it was rewritten

    // When the app is relaunched
    let reopened = try #require(try root.scope().conversation("conv-1", window: 50).restored)

    // Then it shows the newest 50, not the window the user had, and older ones are stored
    #expect(reopened.messages.map(\.text) == (350..<400).map { "message \($0)" })
    #expect(reopened.history.hasStoredHistory && reopened.history.newerGap == nil)
    #expect(reopened.invariantViolations().isEmpty)
  }

  @Test("trimming the newer end keeps the answer being rated and everything before it", arguments: [45, 21])
  func trimKeepsMessagesInUse(rated: Int) throws {
    // Given 50 messages in memory, one answer being rated
    var state = history(50)
    let answer = try #require(state.messages[serverID: "conv-1-s\(rated)"])
    _ = ConversationReducer().reduce(into: &state, action: .rateAnswer(answer.clientID, .up))

    // When the host trims the newer end down to 10
    _ = ConversationReducer().reduce(into: &state, action: .trimNewerHistory(keepingOldest: 10))

    // Then the rated answer and everything older stays; only what is newer went, and is marked stored
    #expect(state.messages.last?.serverID == answer.serverID)
    #expect(state.messages.count == rated + 1)
    #expect(state.history.newerGap == StoredGap(after: answer.orderKey, through: history(50).messages.last!.orderKey))
  }
}

extension Array {
  fileprivate func chunked(_ size: Int) -> [[Element]] {
    stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
  }
}
extension ReversedCollection {
  fileprivate func chunked(_ size: Int) -> [[Element]] { Array(self).chunked(size) }
}
