import ConversationTesting
import Foundation
import ProducerSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The demo as a new user tries it: tell the agent your name, quit, relaunch on the same data folder, open
/// the conversation and ask. The model must be sent the exchange the screen shows.
@Suite(
  "The demo against LLMock, across a relaunch", .enabled(if: AgentProducers.isInstalled, AgentProducers.skipReason),
  .hangGuard)
struct OpenAIDemoRelaunchTests {
  let server: LocalServerProcess
  var base: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

  init() async throws { server = try await AgentProducers.shared("llmock_server.py") }

  /// Runs the demo with `arguments` and the script `lines`; returns its exit status and what it printed.
  func demo(_ arguments: [String], script lines: [String], in folder: URL) async throws -> (Int32, String) {
    let script = folder.appendingPathComponent("script-\(UUID().uuidString).txt")
    try (lines.joined(separator: "\n") + "\n").write(to: script, atomically: true, encoding: .utf8)
    return try #require(
      try await DemoRun.run(arguments + ["--script", script.path, "--plain"]), "the demo is not built next to the tests"
    )
  }

  @Test(
    "after a relaunch on one data folder, the model is sent the conversation the screen shows",
    arguments: [false, true])
  func relaunch(responses: Bool) async throws {
    // Given the demo on LLMock with a data folder
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("demo-relaunch-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let model = "demo-\(UUID().uuidString.prefix(8).lowercased())"
    let data = folder.appendingPathComponent("data").path
    let arguments =
      ["--openai", base.appendingPathComponent("v1").absoluteString, "--model", model, "--data-dir", data]
      + (responses ? ["--responses"] : [])

    // When the user tells the agent their name, quits, relaunches, opens the conversation and asks
    let (firstStatus, first) = try await demo(arguments, script: ["My name is Zed and my order is 1042"], in: folder)
    #expect(firstStatus == 0)
    let (secondStatus, second) = try await demo(
      arguments, script: ["/open 1", "What is my name?"], in: folder)
    #expect(secondStatus == 0)

    // Then the second run shows the earlier exchange and sent it: the model's request holds it
    #expect(first.contains("you: My name is Zed and my order is 1042"), "\(first)")
    #expect(second.contains("you: My name is Zed and my order is 1042"), "\(second)")
    #expect(!second.contains("already sent"), "\(second)")
    let histories = try await OpenAIRelaunchTests.bodies(on: base, model: model).map {
      OpenAIRelaunchTests.history($0, api: responses ? .responses : .chatCompletions)
    }
    // LLMock may answer with the app's order tool first: the question's request is the first that asks it
    let asked = try #require(histories.first { $0.last == "What is my name?" }, "\(histories)")
    #expect(asked.contains("My name is Zed and my order is 1042"), "\(asked)")
  }
}
