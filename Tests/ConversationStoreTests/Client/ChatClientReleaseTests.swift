import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

/// Screens come and go in any order and tell the client nothing when they let go of a store: the client
/// still closes what nobody holds, once its work has settled, and keeps its resources bounded.
@Suite("ChatClient lets go of stores nobody holds", .hangGuard)
struct ChatClientReleaseTests {
  /// Open file descriptors of this process on files under `root` (other tests run beside this one).
  static func openFiles(under root: String) -> Int {
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.filter { descriptor in
      let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
      return target?.hasPrefix(root) == true
    }.count
  }

  @Test("a store dropped while idle closes without another being asked for; its state is written first")
  func droppedStoreCloses() async throws {
    // Given a client that keeps at most one idle store, and two conversations a screen opened
    let root = TemporaryRoot()
    let storage = try ChatStorage(root: root.path)
    let client = ChatClient(
      backend: ArrivalOrderServer(), identity: UserIdentity(userID: "u-1"),
      options: ChatClientOptions(
        workspace: "acme", storage: storage, maximumIdleConversations: 1, idleCheckInterval: 0.05))
    var first: ChatStore? = client.conversation("c1")
    let second = client.conversation("c2")
    first?.send(.setDraft("half a thought"))
    _ = await first?.state(where: { $0.draft == "half a thought" && !$0.isRestoring })
    #expect(client.openConversationIDs == ["c1", "c2"], "both held: nothing closes")

    // When the screen of the first lets go of it, and nothing else is asked of the client
    first = nil
    let closed = await waitUntil { client.openConversationIDs == ["c2"] }

    // Then it closes on its own, and what it showed was written before
    #expect(closed)
    await client.close()
    let again = ChatClient(
      backend: ArrivalOrderServer(), identity: UserIdentity(userID: "u-1"),
      options: ChatClientOptions(workspace: "acme", storage: storage))
    let reopened = again.conversation("c1")
    let restored = await reopened.state(where: { !$0.isRestoring })
    #expect(restored?.draft == "half a thought")
    _ = second
    await again.close()
  }

  @Test(
    "1,000 conversations opened and dropped in random order, with sends in flight: open stores and files stay bounded")
  func thousandOpenedAndDropped() async throws {
    // Given a client with storage that keeps 8 idle stores, on a server that takes each message after 20 ms
    let root = TemporaryRoot()
    let storage = try ChatStorage(root: root.path)
    let server = ArrivalOrderServer(acceptAfter: 0.02)
    let client = ChatClient(
      backend: server, identity: UserIdentity(userID: "u-1"),
      options: ChatClientOptions(
        workspace: "acme", storage: storage, maximumIdleConversations: 8, idleCheckInterval: 0.05))
    var random = SplitMix64(seed: 0x5EED)  // seeded: a failing order replays
    var held: [ChatStore] = []
    var sent = 0
    var mostOpen = 0

    // When screens open 1,000 conversations, send in a third of them, and let go of them in random order
    for index in 0..<StoryScale.count(1_000, sanitized: 150) {
      let chat = client.conversation(ConversationID("c\(index)"))
      if Int.random(in: 0..<3, using: &random) == 0 {
        chat.sendMessage("hello \(index)")
        sent += 1
      }
      held.append(chat)
      while held.count > Int.random(in: 0..<20, using: &random) {
        held.remove(at: Int.random(in: 0..<held.count, using: &random))
      }
      mostOpen = max(mostOpen, client.openConversationIDs.count)
      // (a screen opens a conversation per turn of its event loop, not a thousand in one)
      await Task.yield()
    }
    held.removeAll()

    // Then once the sends are taken, the open stores fall back to the idle bound on their own
    let total = sent
    let settled = await waitUntil { server.arrived.count == total && client.openConversationIDs.count <= 8 }
    #expect(settled, "open: \(client.openConversationIDs.count), taken: \(server.arrived.count) of \(sent)")
    #expect(client.openConversationIDs.count <= 8)
    // And the files open are the bound's, not the history's, once the closed stores' last writes are done
    // (a journal and an archive connection per open store, the outbox and list files)
    await client.settled()
    let folder = root.path
    let filesBounded = await waitUntil { Self.openFiles(under: folder) <= 8 * 4 + 8 }
    #expect(filesBounded, "\(Self.openFiles(under: root.path)) files open under the storage folder")
    // And along the way the stores open never grew with the conversations opened: about the 20 held, the 8
    // idle and those whose message was on its way (65 to 77 here; 320 to 640 when a store still reading its
    // file could not close)
    #expect(mostOpen < 250, "at most \(mostOpen) stores were open at once")
    await client.close()
  }
}
