import ConversationFixtures
import ConversationState
import Foundation
import Testing

@Suite("Golden fixtures")
struct GoldenFixtureTests {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

  static let files: [String] =
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".json") }
    .sorted()

  @Test("every fixture in Tests/Fixtures passes", arguments: files)
  func fixturePasses(_ file: String) throws {
    let fixture = try ConversationFixture.load(from: Self.directory.appendingPathComponent(file))
    let result = FixtureRunner.check(fixture)
    #expect(result.error == nil, "\(file): \(result.error ?? "")")
    for step in result.steps where !step.passed {
      Issue.record(
        Comment(
          rawValue: "\(file) step \(step.index) (\(step.actionName)):\n  " + step.differences.joined(separator: "\n  "))
      )
    }
    #expect(result.steps.count == fixture.steps.count)
  }

  @Test("there are at least 40 fixtures and together they cover every conversation rule of DESIGN.md")
  func coverage() throws {
    let rules = try Set(
      Self.files.map { try ConversationFixture.load(from: Self.directory.appendingPathComponent($0)).rule })
    #expect(Self.files.count >= 40)
    let designRules: Set<String> = [
      "Message identity", "Delivery", "Order", "Streaming reply", "Retry of an answer", "History", "Typing",
      "Connection", "Feedback", "Conversation status", "Unread", "Identity", "Errors",
    ]
    #expect(designRules.subtracting(rules).isEmpty, "rules without a fixture: \(designRules.subtracting(rules))")
  }

  @Test("a fixture whose expectation is wrong fails at that step, naming the path and both values")
  func wrongExpectation() throws {
    var fixture = try ConversationFixture.load(
      from: Self.directory.appendingPathComponent("identity-echo-before-response.json"))
    fixture.steps[1].changes?["messages.c1.serverID"] = .string("s-wrong")
    let result = FixtureRunner.check(fixture)
    #expect(!result.passed)
    #expect(result.steps.map(\.passed) == [true, false, true])
    #expect(result.steps[1].differences == [#"messages.c1.serverID: expected "s-wrong", got "s1""#])
  }

  @Test("a change the fixture does not list fails the step as unexpected")
  func unlistedChange() throws {
    var fixture = try ConversationFixture.load(
      from: Self.directory.appendingPathComponent("identity-echo-before-response.json"))
    fixture.steps[1].changes?["messages.c1.createdAt"] = nil
    let result = FixtureRunner.check(fixture)
    #expect(result.steps[1].differences == ["unexpected change at messages.c1.createdAt: 1 -> 2"])
  }

  @Test("wrong or missing effects fail the step")
  func effects() throws {
    var fixture = try ConversationFixture.load(
      from: Self.directory.appendingPathComponent("identity-echo-before-response.json"))
    fixture.steps[0].effects = nil
    let result = FixtureRunner.check(fixture)
    #expect(result.steps[0].differences.first?.hasPrefix("effects: expected none, got [{\"sendMessage\"") == true)
  }

  @Test("an action that does not decode is a typed error for that step")
  func badAction() {
    let fixture = ConversationFixture(
      name: "bad", rule: "Errors", steps: [.init(action: ["sendd": [:]])])
    #expect(FixtureRunner.check(fixture).error?.contains("step 1: the action does not decode") == true)
  }

  @Test("recording reproduces the committed expectations exactly")
  func recordingIsStable() throws {
    for file in Self.files.prefix(10) {
      let fixture = try ConversationFixture.load(from: Self.directory.appendingPathComponent(file))
      #expect(try FixtureRunner.record(fixture) == fixture, "\(file)")
    }
  }
}
