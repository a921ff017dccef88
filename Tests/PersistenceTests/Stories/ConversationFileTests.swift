import ConversationState
import ConversationTesting
import Foundation
import Testing

@testable import Persistence

@Suite("Conversation files")
struct ConversationFileTests {
  @Test("a conversation written and reopened comes back with its messages, draft, cursors and reply")
  func roundTrip() throws {
    // Given a conversation with history, a draft, a read cursor, a title and a reply streaming
    let root = ScratchRoot()
    var state = ConversationState.existing(
      [
        .server("Hi, how can I help?", id: "s1", at: 1),
        .confirmed("My order is late", clientID: "c1", serverID: "s2", at: 2),
      ])
    state.title = "Late order"
    state.draft = "It was order 10"
    state.readCursor = ReadCursor(messageID: "s2", orderKey: state.messages.lastCommitted!.orderKey)
    state.history.cursor = "page-2"
    state.history.hasMoreHistory = true
    _ = state.messages.appendOutgoing(
      Message(clientID: "c2", role: .user, text: "Anyone?", createdAt: .story(3), delivery: .queued))
    state.streamingReply = StreamingReply(
      requestID: RequestID(epoch: IdentityEpoch(), sequence: 7), clientID: "r1", text: StreamedText("Let me "),
      startedAt: .story(4), serverID: "s3")

    // When it is persisted and the file is opened again
    try root.scope().conversation("conv-1").persist(state, changes: .reset, at: .story(5))
    let reopened = try root.scope().conversation("conv-1")

    // Then everything the next run needs is there, and nothing of the run that made it
    let restored = try #require(reopened.restored)
    #expect(reopened.restoreError == nil)
    #expect(Array(restored.messages) == Array(state.messages))
    #expect(restored.draft == "It was order 10")
    #expect(restored.title == "Late order")
    #expect(restored.readCursor == state.readCursor)
    #expect(restored.history.cursor == "page-2" && restored.history.hasMoreHistory)
    #expect(restored.streamingReply?.text.string == "Let me ")
    #expect(restored.streamingReply?.serverID == "s3")
    #expect(restored.requests.isEmpty)
  }

  @Test("appending one message appends one record: the file grows by that message, whatever the history")
  func appendDoesNotRewrite() throws {
    // Given a conversation of 2,000 messages on disk
    let root = ScratchRoot()
    let file = try root.scope().conversation("conv-1")
    var state = ConversationState.existing((0..<2_000).map { .server("message \($0)", id: "s\($0)", at: Double($0)) })
    try file.persist(state, changes: .reset, at: .story(0))
    let before = file.fileSize

    // When one confirmed message arrives
    let old = state
    state.messages.commit(.server("one more", id: "s-new", at: 5_000))
    try file.persist(state, changes: state.changes(since: old), at: .story(1))

    // Then the file grew by about one record, and it reads back whole: the newest page at once, the rest
    // from the archive
    #expect(file.fileSize > before)
    #expect(file.fileSize - before < 200)
    let reopened = try root.scope().conversation("conv-1")
    let restored = try #require(reopened.restored)
    #expect(restored.messages.committedCount == ScopeDirectory.defaultWindow)
    #expect(restored.messages.lastCommitted?.text == "one more")
    #expect(restored.history.hasStoredHistory)
    let older = try reopened.storedMessages(before: try #require(restored.messages.first?.orderKey), limit: 5_000)
    #expect(older.messages.count == 2_001 - ScopeDirectory.defaultWindow && !older.hasMore)
    #expect(older.messages.map(\.text) == (0..<1_951).map { "message \($0)" })
  }

  @Test("streamed text is written at most once per interval, and whole when the reply ends")
  func streamedTextIsCoalesced() throws {
    // Given a reply streaming into a stored conversation, with a 1-second write interval
    let root = ScratchRoot()
    let file = try root.scope().conversation("conv-1", replyWriteInterval: 1)
    var state = ConversationState.existing([.server("Hi", id: "s1", at: 1)])
    state.streamingReply = StreamingReply(
      requestID: RequestID(epoch: IdentityEpoch(), sequence: 1), clientID: "r1", startedAt: .story(2))
    try file.persist(state, changes: .reset, at: .story(10))
    let afterStart = file.fileSize

    // When 100 deltas arrive within half a second
    for index in 0..<100 {
      let old = state
      state.streamingReply?.text.append("word\(index) ")
      try file.persist(state, changes: state.changes(since: old), at: .story(10 + Double(index) * 0.005))
    }

    // Then none of them was written yet
    #expect(file.fileSize == afterStart)

    // When the interval has passed, one chunk carries all the text so far
    let old = state
    state.streamingReply?.text.append("done.")
    try file.persist(state, changes: state.changes(since: old), at: .story(11.5))
    let restored = try #require(try root.scope().conversation("conv-1").restored)
    #expect(restored.streamingReply?.text.string == state.streamingReply?.text.string)
  }

  @Test("streamed reasoning waits for the interval like text; a part that starts or ends is written at once")
  func streamedPartsAreCoalesced() throws {
    // Given a reply streaming a reasoning part into a stored conversation, with a 1-second write interval
    let root = ScratchRoot()
    let file = try root.scope().conversation("conv-1", replyWriteInterval: 1)
    var state = ConversationState.existing([.server("Hi", id: "s1", at: 1)])
    var reply = StreamingReply(
      requestID: RequestID(epoch: IdentityEpoch(), sequence: 1), clientID: "r1", startedAt: .story(2))
    reply.parts = [StreamingPart(id: "think", kind: .reasoning, isOpen: true)]
    state.streamingReply = reply
    try file.persist(state, changes: .reset, at: .story(10))
    let afterStart = file.fileSize

    // When reasoning deltas arrive within half a second (the reducer counts their bytes as they stream)
    for index in 0..<50 {
      state.streamingReply?.parts[0].text.append("step\(index) ")
      state.streamingReply?.countPartBytes("step\(index) ".utf8.count)
      try file.persist(state, changes: .reset, at: .story(10 + Double(index) * 0.005))
    }

    // Then none of them was written yet
    #expect(file.fileSize == afterStart)

    // When the part ends, that is written at once, with the reasoning so far
    state.streamingReply?.parts[0].isOpen = false
    state.streamingReply?.parts[0].encryptedValue = "enc"
    try file.persist(state, changes: .reset, at: .story(10.3))
    #expect(file.fileSize > afterStart)
    let restored = try #require(try root.scope().conversation("conv-1").restored)
    #expect(restored.streamingReply?.parts == state.streamingReply?.parts)
  }

  @Test("flush writes the text held back by the interval")
  func flushWritesHeldBackText() throws {
    let root = ScratchRoot()
    let file = try root.scope().conversation("conv-1", replyWriteInterval: 60)
    var state = ConversationState.existing([])
    state.streamingReply = StreamingReply(
      requestID: RequestID(epoch: IdentityEpoch(), sequence: 1), clientID: "r1", startedAt: .story(2))
    try file.persist(state, changes: .reset, at: .story(10))
    state.streamingReply?.text.append("held back")
    try file.persist(state, changes: .reset, at: .story(11))
    #expect(try root.scope().conversation("conv-1").restored?.streamingReply?.text.string == "")

    try file.flush(at: .story(12))

    #expect(try root.scope().conversation("conv-1").restored?.streamingReply?.text.string == "held back")
  }

  @Test("a new conversation moves to its server ID's file once the server created it")
  func newConversationGetsItsFile() throws {
    // Given a first message written before the server created the conversation
    let root = ScratchRoot()
    let file = try root.scope().conversation(nil)
    var state = ConversationState()
    _ = state.messages.appendOutgoing(
      Message(clientID: "c1", role: .user, text: "Hello", createdAt: .story(1), delivery: .queued))
    try file.persist(state, changes: .reset, at: .story(1))
    #expect(try root.scope().conversation(nil).restored?.messages.count == 1)

    // When the server confirms it in conversation conv-9
    state.conversationID = "conv-9"
    _ = state.messages.update("c1") { $0.delivery = .sent }
    try file.persist(state, changes: .reset, at: .story(2))

    // Then it is stored under conv-9, and the "new conversation" slot is empty again
    #expect(try root.scope().conversation("conv-9").restored?.messages.count == 1)
    #expect(try root.scope().conversation(nil).restored == nil)
  }

  @Test("discarded messages stay discarded after a relaunch")
  func removalIsStored() throws {
    let root = ScratchRoot()
    let file = try root.scope().conversation("conv-1")
    var state = ConversationState.existing([])
    _ = state.messages.appendOutgoing(
      Message(
        clientID: "c1", role: .user, text: "typo", createdAt: .story(1), delivery: .failed(ChatError(.network, ""))))
    try file.persist(state, changes: .reset, at: .story(1))

    let old = state
    _ = state.messages.remove("c1")
    try file.persist(state, changes: state.changes(since: old), at: .story(2))

    #expect(try root.scope().conversation("conv-1").restored?.messages.isEmpty == true)
  }

  @Test("a journal that has grown to twice its compacted size is rewritten, and still reads back the same")
  func compaction() async throws {
    // Given a conversation whose one message is edited many times (each edit appends a record)
    let root = ScratchRoot()
    let events = EventLog()
    let storage = try root.storage(onEvent: events.record)
    let scope = try storage.scope(StorageScope(workspace: "acme", userID: "u1"))
    let file = try scope.conversation("conv-1")
    var state = ConversationState.existing([.server("v0", id: "s1", at: 1)])
    try file.persist(state, changes: .reset, at: .story(0))
    let filler = String(repeating: "x", count: 4_000)

    // When 600 edits of 4 KB each have been written (2.4 MB of journal)
    for edit in 1...600 {
      let old = state
      _ = state.messages.update("srv-s1") { $0.text = "v\(edit) \(filler)" }
      try file.persist(state, changes: state.changes(since: old), at: .story(Double(edit)))
    }

    // Then the journal was compacted along the way, and the latest edit is what comes back
    await storage.eventsDelivered()
    #expect(events.rewrites >= 2)
    #expect(file.fileSize < 2 * 1_048_576 + 8_192)
    let restored = try #require(try scope.conversation("conv-1").restored)
    #expect(restored.messages[clientID: "srv-s1"]?.text == "v600 \(filler)")
  }
}

/// Collects storage events for assertions.
final class EventLog: Sendable {
  private let events = StateLock<[StorageEvent]>([])

  var record: @Sendable (StorageEvent) -> Void { { event in self.events.withLock { $0.append(event) } } }

  var all: [StorageEvent] { events.withLock { $0 } }

  var rewrites: Int {
    all.count { if case .rewritten = $0 { return true } else { return false } }
  }
}

@Suite("A conversation's branches on disk")
struct BranchStorageTests {
  @Test("a regenerated answer's sibling is in the file, and a relaunch shows the same path with it")
  func branchesSurviveRelaunch() throws {
    // Given a conversation whose last answer was regenerated (the old one kept as its sibling)
    let root = ScratchRoot()
    let scope = try root.scope()
    var state = ConversationState.existing([
      .server("Where is order 1042?", id: "s1", role: .user, at: 1), .server("It ships Monday.", id: "s2", at: 2),
    ])
    let old = state.messages.removeCommitted(from: "srv-s2")
    let newer = Message.server("It ships Thursday.", id: "s3", at: 3)
    state.branches.keep(old, after: "srv-s1", replacedBy: newer.clientID)
    state.messages.commit(newer)
    state.unreadCount = 2
    let file = try scope.conversation("conv-1")
    try file.persist(state, changes: .reset, at: .story(3))
    try file.flush(at: .story(3))

    // When the app starts again
    let restored = try #require(try scope.conversation("conv-1").restored)

    // Then the path on screen and its sibling are as they were
    #expect(restored.messages.map(\.text) == ["Where is order 1042?", "It ships Thursday."])
    #expect(restored.branches == state.branches)
    #expect(restored.branches.place(of: newer.clientID) == ConversationBranches.Place(index: 1, count: 2))
  }
}

@Suite("Branches on disk: switches written as change sets")
struct BranchSwitchStorageTests {
  @Test("a path switched away and back, each switch written as a change set, comes back whole after a relaunch")
  func switchedBackAndForth() throws {
    // Given five messages, the last two edited into a sibling, and the user switching back (each step written
    // as the change set a store gives)
    let root = ScratchRoot()
    let scope = try root.scope()
    let file = try scope.conversation("conv-1")
    var state = ConversationState.existing([])
    for index in 1...5 {
      let old = state
      state.messages.commit(
        .server("m\(index)", id: "s\(index)", role: index.isMultiple(of: 2) ? .assistant : .user, at: Double(index)))
      try file.persist(state, changes: state.messages.changes(since: old.messages), at: .story(Double(index)))
    }
    let replaced = state.messages.removeCommitted(from: "srv-s4")
    state.branches.keep(replaced, after: "srv-s3", replacedBy: "srv-s6")
    state.messages.commit(.server("edit", id: "s6", role: .user, at: 6))
    try file.persist(state, changes: ChangeSet(inserted: ["srv-s6"], removed: ["srv-s4", "srv-s5"]), at: .story(6))
    let leaving = state.messages.removeCommitted(from: "srv-s6")
    let coming = state.branches.show(0, atForkShowing: "srv-s6", keeping: leaving)
    for message in coming ?? [] { state.messages.commit(message) }
    try file.persist(state, changes: ChangeSet(inserted: ["srv-s4", "srv-s5"], removed: ["srv-s6"]), at: .story(7))

    // When the app starts again
    let restored = try #require(try scope.conversation("conv-1").restored)

    // Then the path on screen and the sibling are as they were
    #expect(restored.messages.map(\.text) == ["m1", "m2", "m3", "m4", "m5"])
    #expect(restored.branches.messagesOffScreen.map(\.text) == ["edit"])
  }

  @Test("a message the archive served, switched away and back unchanged, is written again and survives a relaunch")
  func servedThenSwitchedBack() throws {
    // Given a conversation whose newest answer was regenerated, reopened, and its messages read back from the
    // archive (as scrolling up does)
    let root = ScratchRoot()
    let scope = try root.scope()
    var file = try scope.conversation("conv-1")
    var state = ConversationState.existing([])
    for index in 1...3 {
      state.messages.commit(.server("m\(index)", id: "s\(index)", role: .user, at: Double(index)))
      try file.persist(state, changes: ChangeSet(inserted: ["srv-s\(index)"]), at: .story(Double(index)))
    }
    let replaced = state.messages.removeCommitted(from: "srv-s3")
    state.branches.keep(replaced, after: "srv-s2", replacedBy: "srv-s4")
    state.messages.commit(.server("m3 again", id: "s4", at: 4))
    try file.persist(state, changes: ChangeSet(inserted: ["srv-s4"], removed: ["srv-s3"]), at: .story(4))
    file = try scope.conversation("conv-1")
    state = try #require(file.restored)
    _ = try file.storedMessages(before: MessageOrderKey(createdAt: .distantFuture, tieBreak: ""), limit: 10)

    // When the user switches to the old answer and back, each switch written as its change set
    for (shown, index) in [("srv-s4", 0), ("srv-s3", 1)] {
      let leaving = state.messages.removeCommitted(from: ClientMessageID(shown))
      let coming = state.branches.show(index, atForkShowing: ClientMessageID(shown), keeping: leaving) ?? []
      #expect(!coming.isEmpty)
      for message in coming { state.messages.commit(message) }
      try file.persist(
        state, changes: ChangeSet(inserted: Set(coming.map(\.clientID)), removed: Set(leaving.map(\.clientID))),
        at: .story(5))
    }

    // Then after a relaunch the answer shown is still there (the archive's copy, removed by the first switch,
    // is not taken for what is stored)
    let restored = try #require(try scope.conversation("conv-1").restored)
    #expect(restored.messages.map(\.text) == ["m1", "m2", "m3 again"])
    #expect(restored.branches.messagesOffScreen.map(\.text) == ["m3"])
  }
}
