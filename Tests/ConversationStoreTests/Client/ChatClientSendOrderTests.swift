import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

@Suite("ChatClient: each thread's messages in its order", .hangGuard)
struct ChatClientSendOrderTests {
  /// The texts of `thread`'s messages among `texts`, in the order they appear.
  static func thread(_ thread: Int, in texts: [String]) -> [String] { texts.filter { $0.hasPrefix("t\(thread)-") } }

  static func expected(_ thread: Int, count: Int) -> [String] { (0..<count).map { "t\(thread)-\($0)" } }

  @Test("400 messages from 4 threads: each thread's go out, show and are stored in the order it sent them")
  func fourThreadsKeepTheirOrder() async throws {
    // Given a client with storage on a server that stamps what it receives in arrival order
    let root = TemporaryRoot()
    let storage = try ChatStorage(root: root.path)
    let server = ArrivalOrderServer()
    let threads = 4
    let perThread = StoryScale.count(100, sanitized: 20)
    // Every message goes as it is written (the default would queue them behind the agent's answers).
    var options = ChatClientOptions(workspace: "acme", storage: storage)
    options.policy.whileAnswering = .overlap
    do {
      let client = ChatClient(backend: server, identity: UserIdentity(userID: "u-1"), options: options)
      let chat = client.conversation("c1")
      _ = await chat.state(where: { !$0.isRestoring })

      // When four threads each send 250 messages at once
      DispatchQueue.concurrentPerform(iterations: threads) { thread in
        for index in 0..<perThread { chat.sendMessage("t\(thread)-\(index)") }
      }

      // Then every message is confirmed once
      let done = try #require(
        await chat.state(
          within: 150, where: { $0.messages.count == threads * perThread && $0.messages.outgoing.isEmpty }))
      #expect(server.arrived.count == threads * perThread, "each sent once")
      let shown = done.messages.map(\.text)
      for thread in 0..<threads {
        // And each thread's messages reached the server, and show, in the order that thread sent them
        #expect(Self.thread(thread, in: server.arrived) == Self.expected(thread, count: perThread), "thread \(thread)")
        #expect(Self.thread(thread, in: shown) == Self.expected(thread, count: perThread), "thread \(thread)")
      }
      await client.close()
    }

    // And after a relaunch the stored conversation has them in the same order
    let client = ChatClient(
      backend: server, identity: UserIdentity(userID: "u-1"),
      options: ChatClientOptions(workspace: "acme", storage: storage))
    let chat = client.conversation("c1")
    _ = await chat.state(where: { !$0.isRestoring })
    for _ in 0..<30 where chat.state.messages.count < threads * perThread {
      chat.send(.loadMoreHistory(pageSize: 100))
      _ = await chat.state(where: { !$0.history.isLoadingHistory })
    }
    let stored = chat.state.messages.map(\.text)
    #expect(stored.count == threads * perThread)
    for thread in 0..<threads {
      #expect(Self.thread(thread, in: stored) == Self.expected(thread, count: perThread), "thread \(thread)")
    }
    await client.close()
  }
}
