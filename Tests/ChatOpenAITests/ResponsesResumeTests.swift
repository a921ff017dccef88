import ChatOpenAI
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A background response whose connection drops is resumed through `GET responses/{id}?stream=true`,
/// against the scripted Responses server (`ResponsesServer/responses_server.py`), which keeps background
/// responses as OpenAI does and cuts a stream after a given number of events.
@Suite("OpenAI Responses replies resumed after a dropped connection", .hangGuard)
struct ResponsesResumeTests {
  /// The scripted reply's events: sequence numbers 0 to 19.
  static let eventCount = 20
  static let wholeText = "one two three four five."

  @Test(
    "a background response dropped after any event resumes from the replay and ends with the uninterrupted answer",
    arguments: 1..<eventCount)
  func dropAfterEveryEvent(dropAfter: Int) async throws {
    // Given a background response whose connection drops after `dropAfter` events
    let server = try await ResponsesServer.start()
    let store = try server.store(drop: "\(dropAfter)")
    defer { store.close() }

    // When the user asks
    store.sendMessage("Count to five")

    // Then the reply is resumed once and ends completed with the whole text and reasoning, each once
    let state = try #require(await store.ended())
    let answer = try #require(state.messages.last)
    #expect(answer.text == Self.wholeText)
    #expect(answer.reply == .completed)
    #expect(answer.serverID == "resp_1")
    #expect(Self.reasoning(of: answer) == ["Counting up."])
    #expect(answer.parts.count == 2, "one reasoning part and one text part, not a second of either")
    #expect(state.userError == nil && state.backgroundError == nil)
    let gets = try await server.requests().filter { $0.method == "GET" }
    #expect(gets.map(\.path) == ["/case/\(dropAfter)/none/v1/responses/resp_1"])
    #expect(gets.first?.query == "stream=true", "the whole stream is asked for again")
  }

  @Test("a response that is not a background one is not resumed: the reply ends truncated with its text")
  func notBackground() async throws {
    let server = try await ResponsesServer.start()
    let store = try server.store(drop: "13", background: false)
    defer { store.close() }

    store.sendMessage("Count to five")

    let state = try #require(await store.ended())
    #expect(state.messages.last?.text == "one two ")
    #expect(state.messages.last?.reply == .truncated)
    #expect(state.userError?.code == .incompleteStream)
    #expect(try await server.requests().filter { $0.method == "GET" }.isEmpty)
  }

  @Test("a resume that drops at the same event every time is given up after its attempts: truncated, text kept")
  func resumeKeepsDropping() async throws {
    let server = try await ResponsesServer.start()
    let store = try server.store(drop: "13", resumeDrop: "13", attempts: 3)
    defer { store.close() }

    store.sendMessage("Count to five")

    let state = try #require(await store.ended())
    #expect(state.messages.last?.text == "one two ")
    #expect(state.messages.last?.reply == .truncated)
    #expect(try await server.requests().filter { $0.method == "GET" }.count == 3, "one GET per attempt, no more")
  }

  @Test("a response the server no longer keeps (404) ends the reply truncated with its text, after one try")
  func responseGone() async throws {
    let server = try await ResponsesServer.start()
    let store = try server.store(drop: "13", resumeDrop: "gone")
    defer { store.close() }

    store.sendMessage("Count to five")

    let state = try #require(await store.ended())
    #expect(state.messages.last?.text == "one two ")
    #expect(state.messages.last?.reply == .truncated)
    #expect(state.userError?.code == .incompleteStream)
    #expect(state.userError?.message.contains("No response found") == true)
    #expect(try await server.requests().filter { $0.method == "GET" }.count == 1)
  }

  @Test(
    "Chat Completions and Responses without background refuse a resume at once, NOT_RESUMABLE",
    arguments: [
      OpenAIAPI.chatCompletions, .responses,
    ])
  func refusesResume(api: OpenAIAPI) async throws {
    let backend = try OpenAIBackend(baseURL: URL(string: "http://127.0.0.1:9/v1")!, api: api, model: "m")
    let cursor = ReplyCursor(conversationID: "c1", replyID: "resp_1", position: .sequence(3))
    var code: ChatError.Code?
    do {
      for try await _ in backend.resumeReply(from: cursor) {}
    } catch let error as ChatError {
      code = error.code
    }
    #expect(code == .notResumable)
    #expect(!backend.isResumable)
  }

  static func reasoning(of message: Message) -> [String] {
    message.parts.compactMap { part in
      if case .reasoning(let reasoning) = part.content { reasoning.text } else { nil }
    }
  }
}

/// The scripted Responses server, started on 127.0.0.1 for one test.
struct ResponsesServer {
  struct Request: Decodable {
    var method: String
    var path: String
    var query: String
  }

  let process: LocalServerProcess

  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("ResponsesServer/responses_server.py")

  static func start() async throws -> ResponsesServer {
    ResponsesServer(process: try await LocalServerProcess.start(["python3", script.path, "--port", "0"]))
  }

  /// A store on a Responses backend whose streams drop after `drop` events and whose resumes after
  /// `resumeDrop` (`none`: never; `gone`: the server has forgotten the response).
  func store(drop: String, resumeDrop: String = "none", background: Bool = true, attempts: Int = 5) throws
    -> ChatStore
  {
    var policy = ChatPolicy(reconnectBackoff: Backoff(base: 0.05, cap: 0.2))
    policy.toolResultDelivery = .nextRun
    policy.replyResumeAttempts = attempts
    let backend = try OpenAIBackend(
      baseURL: URL(string: "http://127.0.0.1:\(process.port)/case/\(drop)/\(resumeDrop)/v1")!, api: .responses,
      model: "scripted", body: background ? ["background": true, "store": true] : [:], policy: policy)
    return ChatStore(policy: policy, backend: backend)
  }

  func requests() async throws -> [Request] {
    let url = URL(string: "http://127.0.0.1:\(process.port)/requests")!
    let (data, _) = try await URLSession.shared.data(for: URLRequest(url: url))
    return try JSONDecoder().decode([Request].self, from: data)
  }
}

extension ChatStore {
  /// The state once the answer has ended and nothing is in flight, or nil after a minute.
  func ended() async -> ConversationState? {
    await state(where: { $0.streamingReply == nil && $0.messages.count == 2 && $0.isSettled })
  }
}
