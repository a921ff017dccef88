import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

#if canImport(Glibc)
  import Glibc
#endif

/// The system ends an app without a word: what the user saw must be on disk without `close()`.
@Suite("ChatClient killed after an answer", .hangGuard)
struct ChatClientKillTests {
  @Test("a new conversation answered, then the process killed: after a relaunch it is listed and shows the exchange")
  func killedAfterTheAnswer() async throws {
    let binary = try #require(BuiltProduct.url(named: "client-crash"), "build client-crash with swift build")
    let root = TemporaryRoot()

    // Given an app that started a conversation with newConversation() and got its answer
    let process = Process()
    process.executableURL = binary
    process.arguments = [root.path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let line = output.fileHandleForReading.availableLine()

    // When the system kills it once the journal's write interval (0.25 s) has passed, without close()
    try await Task.sleep(for: .seconds(0.5))
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    let id = try #require(line?.split(separator: " ").last.map { ConversationID(String($0)) }, "the app never answered")

    // Then a relaunch on the same folder lists it and shows the exchange
    let client = ChatClient(
      backend: try ScriptedBackend(clock: SystemChatClock()),
      options: ChatClientOptions(workspace: "acme", storage: try ChatStorage(root: root.path)))
    #expect(client.list.state.conversations[id] != nil, "the list file names \(id)")
    let chat = client.conversation(id)
    let restored = await chat.state(where: { !$0.isRestoring })
    #expect(restored?.messages.map(\.text) == ["Where is my order?", "Your order ships today."])
    await client.close()
  }
}

extension FileHandle {
  /// Reads up to the first newline (or the end), byte by byte: the writer prints its line in one write.
  fileprivate func availableLine() -> String? {
    var bytes: [UInt8] = []
    while true {
      let chunk = readData(ofLength: 1)
      guard let byte = chunk.first else { break }
      if byte == 0x0A { break }
      bytes.append(byte)
    }
    return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
  }
}
