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

  @Test("the client fixtures cover every client rule, and each runs ClientReducer")
  func clientCoverage() throws {
    let fixtures = try Self.files.map { try ConversationFixture.load(from: Self.directory.appendingPathComponent($0)) }
    let client = fixtures.filter { $0.reducer == .client }
    #expect(client.count >= 6)
    let clientRules: Set<String> = [
      "Client start", "Client conversations", "Client identity", "Client connection", "Client outbox",
    ]
    let rules = Set(client.map(\.rule))
    #expect(clientRules.subtracting(rules).isEmpty, "client rules without a fixture: \(clientRules.subtracting(rules))")
    #expect(rules.isSubset(of: clientRules), "unknown client rules: \(rules.subtracting(clientRules))")
    for (file, fixture) in zip(Self.files, fixtures) {
      #expect(file.hasPrefix("client-") == (fixture.reducer == .client), "\(file): client fixtures are client-*.json")
    }
  }

  @Test("the list fixtures pin the List rules, each named list-*.json and run by ConversationListReducer")
  func listCoverage() throws {
    let fixtures = try Self.files.map { try ConversationFixture.load(from: Self.directory.appendingPathComponent($0)) }
    let list = fixtures.filter { $0.reducer == .list }
    #expect(list.count >= 7)
    #expect(Set(list.map(\.rule)) == ["List rules"])
    for (file, fixture) in zip(Self.files, fixtures) {
      #expect(file.hasPrefix("list-") == (fixture.reducer == .list), "\(file): list fixtures are list-*.json")
    }
  }

  @Test("a list fixture's settings make its reducer: without them a deletion waits out the 5 s undo window")
  func listSettings() throws {
    var fixture = try ConversationFixture.load(
      from: Self.directory.appendingPathComponent("list-delete-offline-holds.json"))
    #expect(FixtureRunner.check(fixture).passed)
    fixture.settings = nil
    let result = FixtureRunner.check(fixture)
    #expect(result.steps.first?.passed == false)
    #expect(
      result.steps.first?.differences.contains(
        #"effects: expected [{"deleteConversation":{"_0":"r0.1","_1":"c1"}}], got [{"startTimer":{"_0":{"undoWindow":{"_0":"c1"}},"after":5}}]"#
      ) == true, "\(result.steps.first?.differences ?? [])")
    fixture.settings = .init(maximumIdleConversations: 1)
    #expect(FixtureRunner.check(fixture).error?.contains("the settings do not fit") == true)
  }

  @Test("a client fixture whose expectation is wrong fails at that step, naming the path and both values")
  func wrongClientExpectation() throws {
    var fixture = try ConversationFixture.load(
      from: Self.directory.appendingPathComponent("client-conversations-one-store-held-never-closed.json"))
    fixture.steps[1].changes?["lastUse.h0"] = 7
    let result = FixtureRunner.check(fixture)
    #expect(result.steps.map(\.passed) == [true, false, true, true])
    #expect(result.steps[1].differences == ["lastUse.h0: expected 7, got 2"])
  }

  @Test("a client fixture's settings make its reducer: without them the idle limit is the default, 8")
  func clientSettings() throws {
    var fixture = try ConversationFixture.load(
      from: Self.directory.appendingPathComponent("client-conversations-one-store-held-never-closed.json"))
    fixture.settings = nil
    let result = FixtureRunner.check(fixture)
    // Over a limit of 1 the client looks again later (the idle check); under 8 it has nothing to look for
    #expect(result.steps.map(\.passed) == [true, true, false, false])
    #expect(
      result.steps[3].differences.contains(
        #"effects: expected [{"openConversation":{"_0":"h2","_1":"c3"}},{"closeConversations":{"_0":["h0"]}},{"startTimer":{"_0":{"idleCheck":{}},"seconds":5}}], got [{"openConversation":{"_0":"h2","_1":"c3"}}]"#
      ))
  }

  @Test("a client's settings are refused on a conversation fixture, and a key that names no setting is refused")
  func badSettings() throws {
    let fixture = ConversationFixture(
      name: "bad", rule: "Errors", settings: .init(maximumIdleConversations: 1),
      steps: [.init(action: ["stopReply": [:]])])
    #expect(FixtureRunner.check(fixture).error?.contains("the settings do not fit") == true)
    #expect(throws: FixtureError.self) { try FixtureRunner.record(fixture) }
    let misspelt = Data(
      #"{"name": "bad", "rule": "Client start", "reducer": "client", "settings": {"maximumIdle": 1}, "steps": []}"#.utf8
    )
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(ConversationFixture.self, from: misspelt) }
  }

  @Test("a client action that does not decode is a typed error for that step")
  func badClientAction() {
    let fixture = ConversationFixture(
      name: "bad", rule: "Client start", reducer: .client,
      steps: [.init(action: ["start": [:]]), .init(action: ["begin": [:]])])
    let result = FixtureRunner.check(fixture)
    #expect(result.steps.count == 1)
    #expect(result.error?.contains("step 2: the action does not decode") == true)
  }

  @Test("client states, actions and effects come back from fixture JSON as they were")
  func clientRoundTrip() throws {
    let now = Date(timeIntervalSince1970: 1_764_558_000)
    let batch = OutboxBatch(
      id: "b1", epoch: 0, firstSequence: 1,
      operations: [OutboxOperation(id: "op-1", conversationID: "c1", kind: .markRead(upTo: "m9"), enqueuedAt: now)])
    let alice = UserIdentity(userID: "alice", workspaceID: "w", displayName: "Alice")
    let error = ChatError(.network, "reset")
    var state = ClientState(identity: alice)
    state.epoch = IdentityEpoch(2)
    state.conversations = ["c1": ConversationHandle(0)]
    state.newConversation = ConversationHandle(1)
    state.open[ConversationHandle(0)] = .some("c1")
    state.open[ConversationHandle(1)] = .some(nil)
    state.lastUse = [ConversationHandle(0): 1, ConversationHandle(1): 2]
    state.connection = .reconnecting(attempt: 1, retryAt: now)
    state.connectionRequest = RequestID(epoch: IdentityEpoch(2), sequence: 3)
    state.failedConnectionAttempts = 1
    state.needsCredentials = true
    state.credentialRefresh = RequestID(epoch: IdentityEpoch(2), sequence: 4)
    state.outbox = .uploading(RequestID(epoch: IdentityEpoch(2), sequence: 5), batch)
    state.outboxFailures = 1
    state.outboxHasMore = true
    state.backgroundError = error
    state.nextHandle = 2
    state.nextRequest = 5
    state.uses = 2
    let actions: [ClientAction] = [
      .open("c1", adopting: ConversationHandle(1), unheld: [ConversationHandle(0)]),
      .identify(alice, keepingGuestConversation: true),
      .connectionLost(RequestID(epoch: IdentityEpoch(2), sequence: 3), error, at: now, jitter: 0.5),
      .credentialsAnswered(RequestID(epoch: IdentityEpoch(2), sequence: 4), nil), .timerFired(.outboxRetry),
    ]
    let effects: [ClientEffect] = [
      .openScope(userID: nil), .openConversation(ConversationHandle(1), nil),
      .switchScope(userID: "bob", closing: [ConversationHandle(0)], with: .signOut, outboxEpoch: .raised),
      .startTimer(.reconnect, seconds: 0.5), .returnRefused([RefusedOperation(batch.operations[0], error)]),
    ]
    #expect(try Self.roundTrip(state) == state)
    #expect(try Self.roundTrip(actions) == actions)
    #expect(try Self.roundTrip(effects) == effects)
    // Handles are written h<number>, as keys too, so state paths read `open.h1`, `lastUse.h0`.
    let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(state))
    #expect(json[try JSONPath(parsing: "conversations.c1")] == "h0")
    #expect(json[try JSONPath(parsing: "lastUse.h1")] == 2)
  }

  private static func roundTrip<T: Codable>(_ value: T) throws -> T {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .secondsSince1970
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    return try decoder.decode(T.self, from: encoder.encode(value))
  }

  @Test("recording reproduces the committed expectations exactly")
  func recordingIsStable() throws {
    // Every client and list fixture, and the first of the others.
    let clientAndList = Self.files.filter { $0.hasPrefix("client-") || $0.hasPrefix("list-") }
    for file in Set(Self.files.prefix(10)).union(clientAndList).sorted() {
      let fixture = try ConversationFixture.load(from: Self.directory.appendingPathComponent(file))
      #expect(try FixtureRunner.record(fixture) == fixture, "\(file)")
    }
  }
}
