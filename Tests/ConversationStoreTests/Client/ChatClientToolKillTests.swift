import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

#if canImport(Glibc)
  import Glibc
#endif

/// An app tool's result is stored before the agent gets it: killed around the delivery, a relaunch delivers
/// it again and never runs the tool again.
@Suite("ChatClient killed around a tool's result", .hangGuard)
struct ChatClientToolKillTests {
  /// Starts `client-crash <root> tool`, reads its lines until one starts with `until`, kills it with SIGKILL,
  /// and returns every line it printed.
  static func runAndKill(root: TemporaryRoot, until prefix: String) throws -> [String] {
    let binary = try #require(BuiltProduct.url(named: "client-crash"), "build client-crash with swift build")
    let process = Process()
    process.executableURL = binary
    process.arguments = [root.path, "tool"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    var lines: [String] = []
    while let line = output.fileHandleForReading.nextLine() {
      lines.append(line)
      if line.hasPrefix(prefix) { break }
    }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    return lines
  }

  /// Relaunches on `root` with an agent that records continuations and a tool that counts its runs; returns
  /// the first continuation and how often the tool ran.
  static func relaunch(root: TemporaryRoot, conversation: ConversationID) async throws -> (RunContinuation?, Int) {
    let continuations = StateLock<[RunContinuation]>([])
    let runs = StateLock(0)
    let client = ChatClient(
      backend: ToolCallingAgent(
        onContinue: { _ in }, continuations: { run in continuations.withLock { $0.append(run) } }),
      options: ChatClientOptions(workspace: "acme", storage: try ChatStorage(root: root.path)),
      tools: [
        "pick_color": { _ in
          runs.withLock { $0 += 1 }
          return "teal"
        }
      ])
    let chat = client.conversation(conversation)
    let restored = await chat.state(where: { !$0.isRestoring })
    // Nothing to deliver when the answer that called the tool never reached the disk.
    let holdsCall = restored?.messages.contains { !$0.toolCalls.isEmpty } ?? false
    let deadline = Date().addingTimeInterval(holdsCall ? 20 : 1)
    while continuations.withLock({ $0.isEmpty }), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
    await client.close()
    return (continuations.withLock { $0.first }, runs.withLock { $0 })
  }

  @Test(
    "killed after the result reached the agent: a relaunch delivers the same result again, and the tool never runs again"
  )
  func killedAfterDelivery() async throws {
    // Given an app whose agent called its tool, which ran once and whose result went to the agent
    let root = TemporaryRoot()
    let lines = try Self.runAndKill(root: root, until: "delivered")
    #expect(lines.filter { $0 == "ran" }.count == 1)
    let id = try #require(lines.last?.split(separator: " ").last.map { ConversationID(String($0)) })

    // When the app is relaunched and the conversation opened
    let (continuation, runs) = try await Self.relaunch(root: root, conversation: id)

    // Then the stored result goes to the agent again, and the tool is not run again
    let delivered = try #require(continuation, "the relaunched app never delivered the result")
    #expect(delivered.toolResults.map(\.id) == ["call-1"])
    #expect(delivered.toolResults.first?.outcome == .succeeded("teal"))
    #expect(runs == 0)
  }

  @Test(
    "killed as the tool finished: a relaunch never runs it again; a stored call is answered with its result or that it stopped"
  )
  func killedAsTheToolFinished() async throws {
    let root = TemporaryRoot()
    let lines = try Self.runAndKill(root: root, until: "ran")
    #expect(lines == ["ran"])
    // The conversation's ID is the agent's (`ToolCallingAgent` names every new one the same)
    let (continuation, runs) = try await Self.relaunch(root: root, conversation: "tool-conversation")
    #expect(runs == 0, "the tool ran again after the relaunch")
    // Killed this early, the answer that called the tool may not be on disk yet: then nothing is delivered.
    // When it is, the agent hears the stored result, or that the tool stopped and was not run again.
    guard let outcome = continuation?.toolResults.first?.outcome else { return }
    switch outcome {
    case .succeeded(let value): #expect(value == "teal")
    case .failed(let error): #expect(error.message.contains("not run again"))
    default: Issue.record("the agent was sent \(outcome)")
    }
  }
}

extension FileHandle {
  /// The next line, read byte by byte (the writer prints each line in one write); nil at the end.
  fileprivate func nextLine() -> String? {
    var bytes: [UInt8] = []
    while true {
      let chunk = readData(ofLength: 1)
      guard let byte = chunk.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
      if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
      bytes.append(byte)
    }
  }
}
