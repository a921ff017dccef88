import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Reducers
import Testing

// The Swift examples of the ConversationTesting module's doc comments, compiled between `DOCC-` markers
// (`DocumentationCodeTests` checks each doc comment's Swift blocks against them) and, where that is cheap, run.

/// `ReadmeExcerpt`'s example: a README excerpt and the test that keeps the README showing it. Compiled, not
/// run: this file's excerpt is not in the README.
@Suite(.disabled("compiled only: ReadmeExcerpt's doc-comment example, whose excerpt no README shows"))
struct ReadmeExcerptExample {
  // DOCC-READMEEXCERPT-BEGIN
  // README-STORAGE-BEGIN
  func restore() {
    // the code the README shows
  }
  // README-STORAGE-END

  @Test func readmeShowsIt() throws {
    #expect(try ReadmeExcerpt(marker: "README-STORAGE", in: #filePath).isShown(in: "README.md"))
  }
  // DOCC-READMEEXCERPT-END
}

/// Starts the repository's reference server: compiled, not run (the chat HTTP tests run it).
private func localServerExample() async throws -> URL {
  // DOCC-LOCALSERVERPROCESS-BEGIN
  let server = try await LocalServerProcess.start(["python3", "reference_server.py", "--port", "0"])
  let base = URL(string: "http://127.0.0.1:\(server.port)/v1")!
  // DOCC-LOCALSERVERPROCESS-END
  return base
}

@Suite("ConversationTesting's doc-comment examples")
struct ConversationTestingDocCommentTests {
  @Test("a recorded action log replays to the same states")
  func actionRecorder() async throws {
    let backend = ControlledBackend()
    // DOCC-ACTIONRECORDER-BEGIN
    let recorder = ActionRecorder<ConversationReducer>()
    let store = Store(reducer: recorder.reducer(ConversationReducer()), backend: backend)
    store.send(.setDraft("Hi"))  // use the store
    let log = try recorder.json()
    let states = try ActionRecorder<ConversationReducer>.replay(
      log, from: ConversationState(), with: ConversationReducer())
    // DOCC-ACTIONRECORDER-END
    store.close()
    #expect(states.last?.draft == "Hi")
  }

  @Test("the demo is built next to the tests")
  func builtProduct() throws {
    // DOCC-BUILTPRODUCT-BEGIN
    let demo = try #require(BuiltProduct.url(named: "demo"))
    // DOCC-BUILTPRODUCT-END
    #expect(FileManager.default.isExecutableFile(atPath: demo.path))
  }

  @Test("a controlled backend hands the test each call to answer")
  func controlledBackend() async throws {
    let confirmed = Message.confirmed("Hi", clientID: "c-1", serverID: "s1", at: 1)
    // DOCC-CONTROLLEDBACKEND-BEGIN
    let backend = ControlledBackend()
    let store = ChatStore(backend: backend)
    var calls = backend.calls.makeAsyncIterator()
    store.sendMessage("Hi")
    guard case .send(_, let reply) = await calls.next() else { return }
    reply.yield(.accepted(confirmed, conversationID: "c1"))
    // DOCC-CONTROLLEDBACKEND-END
    defer { store.close() }
    let state = await store.state { $0.conversationID == "c1" }
    #expect(state?.conversationID == "c1")
  }

  @Test("blocking work runs off the cooperative pool")
  func offThePoolRuns() async throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "exit 0"]
    // DOCC-OFFTHEPOOL-BEGIN
    let status = try await offThePool {
      try process.run()
      process.waitUntilExit()
      return process.terminationStatus
    }
    #expect(status == 0)
    // DOCC-OFFTHEPOOL-END
  }

  @Test("a scripted backend streams its reply on the test's clock")
  func scriptedBackend() async throws {
    // DOCC-SCRIPTEDBACKEND-BEGIN
    let clock = TestClock()
    let backend = try ScriptedBackend(
      clock: clock, replies: ["Hel|lo |wor|ld.|<finish>", "<error 429 RATE_LIMITED retry-after=2>"])
    let store = ChatStore(backend: backend, environment: .deterministic(clock: clock))
    store.sendMessage("Hi")
    clock.advance(by: 1)  // the reply streams in, one piece every `interval`
    // DOCC-SCRIPTEDBACKEND-END
    defer { store.close() }
    #expect(await clock.run { store.state.messages.last?.text == "Hello world." })
  }

  @Test("a server message arrives over realtime")
  func storyMessages() async {
    let store = ChatStore(ConversationState(conversationID: "c1"), backend: ControlledBackend())
    defer { store.close() }
    // DOCC-STORYMESSAGES-BEGIN
    store.send(.realtime("c1", .messageCreated(.server("Hello", id: "s1", at: 1))))
    // DOCC-STORYMESSAGES-END
    #expect(store.state.messages.last?.text == "Hello")
  }

  @Test("a test store checks each step's changes and effects")
  func testStore() {
    // DOCC-TESTSTORE-BEGIN
    let store = TestStore(ConversationState(conversationID: "c1"))
    store.send(.setDraft("Hi")) { $0.draft = "Hi" }
    let request = store.nextRequestID
    store.send(.loadHistory(pageSize: 20), effects: [.fetchHistory(request, "c1", cursor: nil, limit: 20)]) {
      $0.history.loadingRequest = request
      $0.requests[request] = .history
      $0.requestSequence = 1
    }
    store.send(.historyLoaded(request, HistoryPage(messages: [], nextCursor: nil, hasMore: false))) {
      $0.history = HistoryPaging(cursor: nil, hasMoreHistory: false, loadingRequest: nil, hasLoadedFirstPage: true)
      $0.requests = [:]
    }
    store.finish()
    // DOCC-TESTSTORE-END
  }

  @Test("a fuzzed session keeps the conversation's invariants")
  func conversationFuzzer() {
    // DOCC-CONVERSATIONFUZZER-BEGIN
    if let failure = ConversationFuzzer.run(seed: 42, length: 200) {
      Issue.record("\(failure)")  // seed, step, broken invariants, and the shrunk action list as JSON
    }
    // DOCC-CONVERSATIONFUZZER-END
  }

  @Test("a fuzzed list session keeps the list's invariants")
  func listFuzzer() {
    // DOCC-LISTFUZZER-BEGIN
    if let failure = ListFuzzer.run(seed: 42, length: 400) {
      Issue.record("\(failure)")  // seed, broken rules, and the shrunk action list as JSON
    }
    // DOCC-LISTFUZZER-END
  }

  @Test("the reference server's example compiles")
  func localServer() {
    _ = localServerExample
  }
}
