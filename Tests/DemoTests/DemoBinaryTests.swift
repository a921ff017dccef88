import ConversationTesting
import Foundation
import Testing

/// Runs the built `demo` as a user would, from the package root.
private func runDemo(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
  guard let demo = BuiltProduct.url(named: "demo") else {
    Issue.record("the demo is not built next to the tests; run swift build")
    return (-1, "", "")
  }
  return try await offThePool { try runDemo(demo, arguments) }
}

/// Runs `demo` and blocks until it exits: call it off the cooperative pool.
///
/// Its output goes to files, not pipes: a pipe is read to its end, and a child another test starts at the
/// same moment (a shared Python server) can inherit the pipe's write end and hold that end off for the rest
/// of the run. A CI run hung so.
private func runDemo(_ demo: URL, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("demo-run-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: folder) }
  let outputURL = folder.appendingPathComponent("stdout")
  let errorsURL = folder.appendingPathComponent("stderr")
  _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
  _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)
  let output = try FileHandle(forWritingTo: outputURL)
  let errors = try FileHandle(forWritingTo: errorsURL)
  let process = Process()
  process.executableURL = demo
  process.arguments = arguments
  process.currentDirectoryURL = packageRoot
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  process.waitUntilExit()
  try output.close()
  try errors.close()
  let out = try Data(contentsOf: outputURL)
  let err = try Data(contentsOf: errorsURL)
  return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}

private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()

@Suite("The demo binary", .hangGuard)
struct DemoBinaryTests {
  /// The scripts in `Examples/` that run on the simulated agent, each compared with its transcript.
  static let examples = [
    "tour", "failure-and-retry", "feedback", "reasoning", "approval", "outcomes", "branches", "edit", "queue",
    "list", "suggestions",
  ]
  /// The scripts that run against an agent server, checked where that server is started (AGUIPydanticAITests).
  static let againstAServer = ["agui"]

  @Test("every example script is one of those, and each checked one has its transcript")
  func everyExampleIsChecked() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("Examples").path)
    let scripts = files.filter { $0.hasSuffix(".script") }.map { String($0.dropLast(".script".count)) }
    #expect(Set(scripts) == Set(Self.examples + Self.againstAServer))
    for name in Self.examples { #expect(files.contains("\(name).transcript"), "\(name).script has no transcript") }
  }

  @Test("a script run twice on one data folder sends its messages again as new ones, and both stay")
  func scriptTwiceOnOneFolder() async throws {
    // Given a data folder a script already ran on
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("demo-twice-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let script = folder.appendingPathComponent("hello.script")
    try "hello there\n".write(to: script, atomically: true, encoding: .utf8)
    let arguments = ["--script", script.path, "--plain", "--data-dir", folder.appendingPathComponent("data").path]
    let first = try await runDemo(arguments)
    #expect(first.status == 0)

    // When it runs again
    let second = try await runDemo(arguments)

    // Then its message is a new one (its client ID was never sent), and the conversation shows both
    #expect(second.status == 0)
    #expect(!second.output.contains("already sent"), "\(second.output)")
    #expect(second.output.components(separatedBy: "you: hello there").count - 1 == 2, "\(second.output)")
  }

  @Test(
    "each example script prints its expected transcript",
    arguments: DemoBinaryTests.examples)
  func examplesMatch(name: String) async throws {
    let expected = try String(
      contentsOf: packageRoot.appendingPathComponent("Examples/\(name).transcript"), encoding: .utf8)

    let run = try await runDemo(["--script", "Examples/\(name).script", "--plain", "--seed", "1"])

    #expect(run.status == 0, "\(run.errors)")
    #expect(Self.firstDifference(expected, run.output) == nil)
  }

  @Test("the same script and seed print the same frames, byte for byte")
  func framesRepeat() async throws {
    let first = try await runDemo(["--script", "Examples/tour.script"])
    let second = try await runDemo(["--script", "Examples/tour.script"])
    #expect(first.status == 0)
    // A frame drawn before the session settled shows here: the message names the frame and line, as the
    // two whole outputs (19 KB each) would be interleaved with every other test's lines in a log.
    #expect(Self.firstDifference(first.output, second.output) == nil)
    #expect(first.output.contains("reconnecting in 1 s (attempt 1)"))
    #expect(first.output.split(separator: "\n").allSatisfy { $0.count <= 80 })
  }

  @Test(
    "bad input is one line on stderr and a non-zero exit, never a trace",
    arguments: [
      (["--nonsense"], Int32(2), "demo: unknown argument \"--nonsense\" (try --help)\n"),
      (["--script", "no/such.script"], Int32(2), "demo: cannot read the script no/such.script\n"),
    ])
  func badInput(arguments: [String], status: Int32, message: String) async throws {
    let run = try await runDemo(arguments)
    #expect(run.status == status)
    #expect(run.errors == message)
    #expect(run.output.isEmpty)
  }

  @Test("a bad script line names its line and exits 1")
  func badScriptLine() async throws {
    let path = NSTemporaryDirectory() + "bad-\(UUID().uuidString).script"
    try "hello\n/teleport".write(toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }

    let run = try await runDemo(["--script", path])

    #expect(run.status == 1)
    #expect(run.errors == "demo: \(path):2: unknown command /teleport\n")
  }

  @Test("a run with a data folder keeps the conversation, and dump shows it without message text")
  func dataFolderAndDump() async throws {
    let folder = NSTemporaryDirectory() + "demo-data-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let script = folder + ".script"
    try "Where is order 1042?\n".write(toFile: script, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: script) }

    #expect(try await runDemo(["--script", script, "--plain", "--data-dir", folder]).status == 0)
    let dump = try await runDemo(["dump", "--data-dir", folder])

    #expect(dump.status == 0, "\(dump.errors)")
    #expect(dump.output.contains("\"id\" : \"c-welcome\""))
    #expect(!dump.output.contains("Where is order 1042?"), "a dump carries IDs and counts, not what people wrote")
  }

  @Test("/search finds stored messages, marks the words, and says so when nothing matches")
  func searchCommand() async throws {
    // Given a run with a data folder in which the user asked about an order and the agent answered
    let folder = NSTemporaryDirectory() + "demo-search-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let script = folder + ".script"
    try "Where is order 1042?\nwait 5\nwait\n/search ORDER\n/search zebra\n/search\n".write(
      toFile: script, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: script) }

    // When the user searches
    let run = try await runDemo(["--script", script, "--plain", "--data-dir", folder])

    // Then the question is found with the word marked, a word nobody wrote finds nothing, and no words is a hint
    #expect(run.status == 0, "\(run.errors)")
    #expect(run.output.contains("Found “ORDER”"), "\(run.output.suffix(2_000))")
    #expect(run.output.contains("Where is «order» 1042?"))
    #expect(run.output.contains("No stored message has “zebra”."))
    #expect(run.output.contains("/search needs words"))
  }

  @Test("--long-history opens a stored conversation of thousands at its newest page, and /search finds old ones")
  func longHistory() async throws {
    // Given a data folder, and a script that searches for a message far back
    let folder = NSTemporaryDirectory() + "demo-long-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let script = folder + ".script"
    try "/search answer 1234\n".write(toFile: script, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: script) }

    // When the demo opens a stored conversation of 2,000 messages
    let run = try await runDemo(["--script", script, "--plain", "--data-dir", folder, "--long-history", "2000"])

    // Then the first frame holds its newest 50 only, and the search finds the one asked for
    #expect(run.status == 0, "\(run.errors)")
    #expect(run.output.contains("== A long conversation"))
    #expect(run.output.contains("Question 1951 of 2000") && run.output.contains("Answer 2000 of 2000"))
    #expect(!run.output.contains("Answer 1950 of 2000"))
    #expect(run.output.contains("Found “answer 1234”") && run.output.contains("«Answer» 1234 of 2000"))
    // And the folder's dump counts all 2,000 in the archive
    let dump = try await runDemo(["dump", "--data-dir", folder])
    #expect(dump.output.contains("\"archivedMessages\" : 2000"), "\(dump.output)")
  }

  @Test("--long-history needs a data folder")
  func longHistoryNeedsStorage() async throws {
    let run = try await runDemo(["--memory", "--long-history", "10"])
    #expect(run.status != 0 && run.errors.contains("--long-history stores a conversation"))
  }
}

extension DemoBinaryTests {
  /// Where two outputs part: the frame's heading and the first line that differs, with its number; nil when
  /// they are the same.
  static func firstDifference(_ expected: String, _ actual: String) -> String? {
    let wanted = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let got = actual.split(separator: "\n", omittingEmptySubsequences: false)
    for index in 0..<max(wanted.count, got.count) {
      let want = index < wanted.count ? String(wanted[index]) : "(the end)"
      let have = index < got.count ? String(got[index]) : "(the end)"
      guard want != have else { continue }
      let heading = wanted.prefix(index).last { $0.hasPrefix("── ") }.map(String.init) ?? "(before any frame)"
      return "line \(index + 1), in \(heading): expected \"\(want)\", got \"\(have)\""
    }
    return nil
  }
}
