import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

@Suite("ChatClient: several threads at once", .hangGuard)
struct ChatClientConcurrencyTests {
  /// One host operation, picked by number so every task runs a different mix.
  /// The stores the host's screens hold now, from any thread.
  final class Screens: Sendable {
    private let stores = StateLock<[ChatStore]>([])
    func withLock<T: Sendable>(_ body: (inout [ChatStore]) -> T) -> T { stores.withLock { body(&$0) } }
  }

  static func operate(_ step: Int, on client: ChatClient, stores: Screens) {
    switch step % 9 {
    case 0: stores.withLock { $0.append(client.conversation(ConversationID("c\(step % 5)"))) }
    case 1: stores.withLock { $0.append(client.newConversation()) }
    case 2: client.identify(UserIdentity(userID: "u\(step % 3)"))
    case 3: client.signOut()
    case 4: client.credentialsRefreshed()
    case 5: stores.withLock { $0.last }?.sendMessage("hello \(step)")
    case 6: _ = stores.withLock { $0.isEmpty ? nil : $0.removeFirst() }  // a screen goes away
    case 7: client.identify(UserIdentity(userID: "u\(step % 3)", displayName: "U \(step)"))
    default: _ = client.state
    }
  }

  @Test(
    "identify, sign out, open, drop and send from four threads: afterwards every store is closed and every socket let go",
    arguments: [false, true])
  func hammer(withStorage: Bool) async throws {
    // Given a client whose server answers at once, and whose realtime connection expires every third time
    let root = TemporaryRoot()
    let server = AnsweringServer(failingRealtimeEvery: 3)
    let client = ChatClient(
      backend: server.backend,
      options: ChatClientOptions(
        workspace: "acme", storage: withStorage ? try ChatStorage(root: root.path) : nil, maximumIdleConversations: 2),
      credentials: {})
    let stores = Screens()
    let handedOut = Screens()

    // When four threads drive it at once
    await withTaskGroup(of: Void.self) { group in
      for thread in 0..<4 {
        group.addTask {
          for step in 0..<150 {
            Self.operate(step * 4 + thread, on: client, stores: stores)
            if let last = stores.withLock({ $0.last }) { handedOut.withLock { $0.append(last) } }
          }
        }
      }
    }
    await client.settled()
    let state = client.state

    // Then the state names exactly the stores the client holds
    #expect(Set(state.conversations.values).isSubset(of: Set(state.open.keys)))
    #expect(state.newConversation.map { state.open[$0] != nil } ?? true)

    // And after close every store any thread got is closed, and every socket was let go
    await client.close()
    let stillOpen = handedOut.withLock { $0 }.filter { !$0.isClosed }
    #expect(stillOpen.isEmpty)
    #expect(await waitUntil { server.realtime.released == server.realtime.opened })
    #expect(client.state.isClosed && client.state.open.isEmpty)
  }
}
