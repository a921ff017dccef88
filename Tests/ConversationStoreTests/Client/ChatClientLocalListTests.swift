import ConversationTesting
import Foundation
import Persistence
import Testing

@testable import ConversationStore

/// An app on a backend that keeps no list (an agent backend), with storage: its sidebar is the stored
/// conversations, and the user manages them on the device.
@Suite("ChatClient keeps the list on the device when the backend has none", .hangGuard)
struct ChatClientLocalListTests {
  @Test("the stored conversations page in after a relaunch, pinned first, renamed and deleted as the user left them")
  func sidebarFromStorage() async throws {
    let root = TemporaryRoot()
    // Given a person who had five conversations, renamed one, pinned one and deleted one
    do {
      let harness = try await ClientHarness.start(identity: UserIdentity(userID: "ana"), root: root.path)
      let list = harness.client.list
      for index in 1...5 {
        list.send(
          .realtime(
            .conversationCreated(
              ConversationSummary(
                id: ConversationID("c\(index)"), title: "Chat \(index)", lastActivityAt: .story(Double(index))))))
      }
      list.send(.change("c2", .title("Visa papers")))
      list.send(.change("c1", .pinned(true, at: .story(100))))
      list.send(.delete("c4"))
      await harness.client.settled()
      harness.clock.advance(by: ChatPolicy().deleteUndoWindow)
      #expect(await waitUntil { list.state.deleted.contains("c4") && list.state.edits.isEmpty })
      await harness.client.close()
    }

    // When the app relaunches and the sidebar loads two at a time (the backend answers each page as an
    // agent backend does: it keeps no list)
    var harness = try await ClientHarness.start(identity: UserIdentity(userID: "ana"), root: root.path)
    let list = harness.client.list
    list.send(.load(pageSize: 2))
    await harness.refusePage()
    #expect(await waitUntil { list.state.hasLoaded && !list.state.isLoading })
    #expect(list.state.error == nil)
    #expect(list.state.conversations.map(\.id) == ["c1", "c5"], "pinned first, then the newest")
    #expect(list.state.totalCount == 4)
    while list.state.hasMore {
      list.send(.loadMore(pageSize: 2))
      await harness.refusePage()
      #expect(await waitUntil { !list.state.isLoading })
    }

    // Then every stored conversation is there once, as the user left it
    #expect(list.state.shown.map(\.title) == ["Chat 1", "Chat 5", "Chat 3", "Visa papers"])
    #expect(list.state.conversations["c2"]?.isTitleSetByUser == true)
    await harness.client.close()
  }
}

extension ClientHarness {
  /// Answers the next list page request as a backend without a list does.
  mutating func refusePage() async {
    while let call = await calls.next() {
      guard case .conversations(_, _, let answer) = call else { continue }
      answer.resume(throwing: ChatError.unsupported("a conversation list"))
      return
    }
  }
}
