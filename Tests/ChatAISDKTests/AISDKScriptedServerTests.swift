import ChatAISDK
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

/// `AISDKBackend` against hand-scripted streams (`aisdk_scripted_server.py`): every ending a server can give,
/// and what the client sends.
@Suite(
  "AI SDK backend against scripted streams", .enabled(if: AgentProducers.isInstalled, AgentProducers.skipReason),
  .hangGuard)
struct AISDKScriptedServerTests {
  let server: ScriptedAISDKServer

  init() async throws { server = try await ScriptedAISDKServer.shared() }

  @Test(
    "each way a stream ends gives the answer its outcome, with what streamed kept",
    arguments: [
      ("text", "completed"), ("no-done", "completed"), ("error", "PROVIDER_ERROR"), ("abort", "CANCELLED"),
      ("truncated", "INCOMPLETE_STREAM"), ("malformed", "INVALID_EVENT"),
    ])
  func endings(_ scenario: String, _ expected: String) async throws {
    let store = ChatStore.onAISDK(try AISDKBackend(endpoint: server.endpoint(scenario)))
    defer { store.close() }
    store.sendMessage("hi")
    let answer = try #require(await store.ended()?.messages.last)
    #expect(Self.outcome(answer.reply) == expected, "\(scenario): \(String(describing: answer.reply))")
    #expect(!answer.text.isEmpty, "\(scenario): what streamed before the end is kept")
  }

  /// An answer's outcome as one word: `completed`, or the code it ended with.
  static func outcome(_ reply: ReplyState?) -> String {
    switch reply {
    case .completed?: "completed"
    case .cancelled?: "CANCELLED"
    case .truncated?: "INCOMPLETE_STREAM"
    case .failed(let error)?, .rejected(let error)?: error.code.rawValue
    default: String(describing: reply)
    }
  }

  @Test(
    "a refused request or a body that is not a stream fails the send, typed, with nothing shown as an answer",
    arguments: [("reject", "HTTP_422"), ("not-stream", "INVALID_RESPONSE")])
  func refused(_ scenario: String, _ code: String) async throws {
    let store = ChatStore.onAISDK(try AISDKBackend(endpoint: server.endpoint(scenario)))
    defer { store.close() }
    store.sendMessage("hi")
    let state = try #require(
      await store.state(
        within: 30,
        where: {
          if case .failed = $0.messages.first?.delivery { $0.isSettled } else { false }
        }))
    #expect(state.messages.count == 1)
    guard case .failed(let error)? = state.messages.first?.delivery else { return }
    #expect(error.code.rawValue == code)
  }

  @Test("sources, files and data parts land on the answer; data with the same ID replaced in place")
  func parts() async throws {
    let store = ChatStore.onAISDK(try AISDKBackend(endpoint: server.endpoint("sources-files")))
    defer { store.close() }
    store.sendMessage("sources please")
    let answer = try #require(await store.ended()?.messages.last)
    #expect(answer.reply == .completed)
    #expect(!answer.sources.isEmpty)
    #expect(answer.parts.contains { if case .file = $0.content { true } else { false } })
    let data = ChatStore.onAISDK(try AISDKBackend(endpoint: server.endpoint("data-parts")))
    defer { data.close() }
    data.sendMessage("progress")
    let withData = try #require(await data.ended()?.messages.last)
    let progress = withData.parts.filter {
      if case .data(let part) = $0.content { part.kind == "progress" } else { false }
    }
    #expect(progress.count == 1, "the second data-progress replaced the first")
  }

  @Test(
    "the request is what useChat posts: the chat's ID, its messages as UI messages, the trigger; the token goes to the server"
  )
  func requestBody() async throws {
    let chat = "chat-\(UUID().uuidString.prefix(8))"
    let store = ChatStore.onAISDK(try AISDKBackend(endpoint: server.endpoint("text"), makeID: { chat }) { "tok-1" })
    defer { store.close() }
    let sent = store.sendMessage("hello body")
    _ = try #require(await store.ended())
    let request = try #require(
      try await server.requests().last { ($0["body"] as? [String: Any])?["id"] as? String == chat })
    let body = try #require(request["body"] as? [String: Any])
    #expect(body["trigger"] as? String == "submit-message")
    let messages = try #require(body["messages"] as? [[String: Any]])
    #expect(messages.count == 1)
    #expect(messages.first?["id"] as? String == sent.rawValue && messages.first?["role"] as? String == "user")
    let parts = messages.first?["parts"] as? [[String: Any]]
    #expect(parts?.first?["type"] as? String == "text" && parts?.first?["text"] as? String == "hello body")
    let headers = try #require(request["headers"] as? [String: Any])
    #expect(headers["authorization"] as? String == "Bearer tok-1")
    #expect((headers["accept"] as? String)?.contains("text/event-stream") == true)
  }

  @Test("stopping a slow reply hangs up on the server and leaves the answer cancelled with its text")
  func stop() async throws {
    let store = ChatStore.onAISDK(try AISDKBackend(endpoint: server.endpoint("slow")))
    defer { store.close() }
    store.sendMessage("slowly")
    _ = try #require(await store.state(within: 30, where: { ($0.streamingReply?.text.string.count ?? 0) > 0 }))
    store.send(.stopReply)
    let state = try #require(await store.ended())
    #expect(state.messages.last?.reply == .cancelled)
    #expect(state.messages.last?.text.isEmpty == false)
  }
}
