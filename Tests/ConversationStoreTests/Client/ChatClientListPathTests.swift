import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

#if canImport(Glibc)
  import Glibc
#endif

/// A message the realtime connection brings reaches the list once, whether or not a store of its
/// conversation is open, subscribing, or being opened by the list's own screen at that moment.
@Suite("ChatClient list: one path for every message", .hangGuard)
struct ChatClientListPathTests {
  /// Keeps a core busy until stopped: the machine the race shows on is a loaded one. It yields the core at
  /// every turn, so the other tests running beside it in the same process are slowed, not starved.
  final class CPUHog: Sendable {
    private let running = StateLock(true)
    init() {
      let running = running
      Thread.detachNewThread {
        while running.withLock({ $0 }) { sched_yield() }
      }
    }
    func stop() { running.withLock { $0 = false } }
  }

  /// Rows c0...c4, oldest first.
  static let rows = (0..<5).map { ConversationSummary.row(ConversationID("c\($0)"), at: Double($0)) }

  @Test("a list loop that opens the stores of the rows it shows always ends with the newest message on top")
  func prefetchingListLoop() async throws {
    // (not under ThreadSanitizer, which loads the machine by itself)
    let hog = StoryScale.isSanitized ? nil : CPUHog()
    defer { hog?.stop() }
    var misses: [Int] = []
    for iteration in 0..<StoryScale.count(200, sanitized: 20) {
      // Given a client whose list shows five conversations, and a screen that opens the store of every row
      // it shows (a prefetch) as each list snapshot arrives
      var harness = try await ClientHarness.start(identity: UserIdentity(userID: "u-1"))
      try await harness.loadList(Self.rows)
      let client = harness.client
      let prefetch = Task {
        var held: [ChatStore] = []
        for await snapshot in client.list.snapshots() {
          for row in snapshot.state.conversations { held.append(client.conversation(row.id)) }
          held = Array(held.suffix(10))
        }
      }

      // When the agent writes in each conversation in turn, the last in c2
      for (index, id) in ["c4", "c0", "c3", "c1", "c2"].enumerated() {
        let at = 100 + Double(index)
        harness.socket.yield(
          .event(ConversationID(id), .messageCreated(.server("news \(index)", id: "s\(id)-\(index)", at: at))))
      }

      // Then the list ends with c2 on top, its preview the newest message, each row counted once
      let settled = await client.list.state(within: 10) { state in
        state.conversations.top?.id == "c2" && state.conversations.top?.lastMessagePreview == "news 4"
          && state.conversations.allSatisfy { $0.unreadCount == 1 }
      }
      if settled == nil { misses.append(iteration) }
      prefetch.cancel()
      await client.close()
      if misses.count == 3 { break }  // enough to show it; each miss waits out its 10 s
    }
    #expect(misses.isEmpty, "the newest message was missed, or counted twice, in iterations \(misses)")
  }
}
