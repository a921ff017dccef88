import ConversationState
import ConversationTesting
import Foundation
import Testing

@testable import Persistence

#if canImport(Glibc)
  import Glibc
#endif

/// Every write the storage makes, refused by the system (a full disk, a folder whose permissions changed):
/// each fails with a typed error naming the call and the errno, and what was stored before stays readable.
@Suite("Storage faults at every write")
struct StorageFaultTests {
  /// The writes the storage makes, each tried under a fault.
  enum Write: String, CaseIterable, Sendable {
    case journalAppend, archiveTransaction, outboxEnqueue, listFile, installationID
  }

  static let codes: [Int32] = [ENOSPC, EACCES]

  /// A conversation stored before the fault: one confirmed message.
  static func stored(in scope: ScopeDirectory) throws -> ConversationState {
    let state = ConversationState.existing([.server("Stored before", id: "s1", at: 1)], id: "c1")
    try scope.conversation("c1").persist(state, changes: .reset, at: .story(0))
    return state
  }

  @Test(
    "each write fails typed, with its errno, and what was stored before is still read back", arguments: Write.allCases,
    codes)
  func writeRefused(_ write: Write, code: Int32) throws {
    // Given a scope with a conversation, a list and an outbox operation stored before the fault
    let root = ScratchRoot()
    let scope = try root.scope()
    let before = try Self.stored(in: scope)
    var list = ConversationListState()
    list.conversations.place(ConversationSummary(id: "c1", title: "Order 1042", lastActivityAt: .story(1)))
    try scope.conversationList.save(list)
    let outbox = try scope.outbox()
    _ = try outbox.enqueue(
      OutboxOperation(id: "op-1", conversationID: "c1", kind: .markRead(upTo: "s1"), enqueuedAt: .story(1)),
      at: .story(1))
    let file = try scope.conversation("c1")

    // When the system refuses writes (all of them, or only the archive's)
    let folder = write == .archiveTransaction ? "\(scope.directory)/conversations/messages.sqlite" : root.path
    StorageFaults.failWrites(under: folder, with: code)
    defer { StorageFaults.lift(under: folder) }
    var next = before
    next.messages.commit(.server("Arrived during", id: "s2", at: 2))
    let failure: PersistenceError?
    do {
      switch write {
      case .journalAppend, .archiveTransaction:
        try file.persist(next, changes: next.messages.changes(since: before.messages), at: .story(2))
      case .outboxEnqueue:
        _ = try outbox.enqueue(
          OutboxOperation(id: "op-2", conversationID: "c1", kind: .markRead(upTo: "s2"), enqueuedAt: .story(2)),
          at: .story(2))
      case .listFile:
        try scope.conversationList.save(ConversationListState())
      case .installationID:
        _ = try ChatStorage(root: root.path + "-new").installationID()
      }
      failure = nil
    } catch {
      failure = error
    }

    // Then it failed typed, saying which call and why
    let error = try #require(failure, "\(write) went through under the fault")
    #expect(error.kind == .io)
    #expect(error.detail.contains("errno \(code)"), "\(error)")
    StorageFaults.lift(under: folder)

    // And what was stored before is still read back whole
    let reopened = try root.scope()
    #expect(try reopened.conversation("c1").restored?.messages.map(\.text).first == "Stored before")
    #expect(try reopened.conversationList.load()?.conversations["c1"]?.title == "Order 1042")
    #expect(try reopened.outbox().operations.map(\.id).contains("op-1"))
  }
}
