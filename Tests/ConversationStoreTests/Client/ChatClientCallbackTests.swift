import ConversationState
import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

@Suite("ChatClient: host callbacks that call back in", .hangGuard)
struct ChatClientReentrantCallbackTests {
  @Test("a storage-error handler that calls back into the client hears of the damaged file, and nothing traps")
  func storageErrorHandlerCallsBackIn() async throws {
    // Given a stored conversation whose files were then damaged on disk
    let root = TemporaryRoot()
    let user = UserIdentity(userID: "u-7")
    do {
      let harness = try await ClientHarness.start(identity: user, root: root.path)
      harness.client.conversation("c1").send(.setDraft("kept for later"))
      _ = await harness.client.conversation("c1").state { $0.draft == "kept for later" }
      await harness.client.close()
    }
    let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
    for file in files where file.contains("conversations/") && !file.hasSuffix("/") {
      let path = root.path + "/" + file
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
        try Data("not a journal".utf8).write(to: URL(fileURLWithPath: path))
      }
    }

    // When a new client opens it, with a handler that asks the client for its state and another store
    let heard = Heard()
    let box = ClientBox()
    let client = ChatClient(
      backend: ControlledBackend(), identity: user,
      options: ChatClientOptions(
        workspace: "acme", storage: try ChatStorage(root: root.path),
        onStorageError: { error in
          let open = box.client?.openConversationIDs ?? []  // took the client's lock: a trap when under it
          _ = box.client?.conversation("c2")
          heard.record("\(error.kind) with \(open.sorted())")
        }),
      environment: .deterministic(clock: TestClock()))
    box.client = client
    let chat = client.conversation("c1")

    // Then the damaged file starts clean, and the handler ran, inside the client's own calls
    #expect(chat.state.draft.isEmpty)
    let reports = await heard.waitForFirst()
    #expect(reports.first?.contains("c1") == true, "\(reports)")
    await client.close()
  }
}

/// What a host callback heard, from any thread.
final class Heard: Sendable {
  private let reports = StateLock<[String]>([])
  func record(_ report: String) { reports.withLock { $0.append(report) } }
  func waitForFirst() async -> [String] {
    for _ in 0..<500 {
      let current = reports.withLock { $0 }
      if !current.isEmpty { return current }
      try? await Task.sleep(for: .milliseconds(10))
    }
    return []
  }
}

/// The client a callback reaches, set once it exists.
final class ClientBox: Sendable {
  private let stored = StateLock<ChatClient?>(nil)
  var client: ChatClient? {
    get { stored.withLock { $0 } }
    set { stored.withLock { $0 = newValue } }
  }
}
