import ChatAISDK
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import ProducerSupport
import Testing

/// A reply whose connection drops is resumed through the AI SDK's resume endpoint
/// (`GET {api}/{chatId}/stream`), against the scripted server, which replays the active stream from its
/// start as the `resumable-stream` package does.
@Suite(
  "AI SDK replies resumed after a dropped connection",
  .enabled(if: AgentProducers.isInstalled, AgentProducers.skipReason),
  .hangGuard)
struct AISDKResumeTests {
  let server: ScriptedAISDKServer

  init() async throws { server = try await ScriptedAISDKServer.shared() }

  /// The chunks of the `resumable` scenario before `[DONE]`: start, start-step, text-start, five deltas,
  /// text-end, finish-step, finish.
  static let chunkCount = 11
  static let wholeText = "one two three four five."

  static func store(_ backend: AISDKBackend, attempts: Int = 5) -> ChatStore {
    var policy = ChatPolicy(reconnectBackoff: Backoff(base: 0.05, cap: 0.2))
    policy.toolResultDelivery = .nextRun
    policy.replyResumeAttempts = attempts
    return ChatStore(policy: policy, backend: backend)
  }

  @Test(
    "a reply dropped after any chunk resumes from the replay and ends with exactly the uninterrupted text",
    arguments: 1..<chunkCount)
  func dropAfterEveryChunk(dropAfter: Int) async throws {
    // Given a chat route that drops the connection after `dropAfter` chunks and keeps the stream going
    let backend = try AISDKBackend(endpoint: server.endpoint("resumable", "drop_after=\(dropAfter)"))
    let store = Self.store(backend)
    defer { store.close() }

    // When the user sends and the connection drops
    store.sendMessage("Count to five")

    // Then the store asks the resume endpoint, drops the replayed chunks it applied, and the answer is whole
    let state = try #require(await store.ended())
    let answer = try #require(state.messages.last)
    #expect(answer.text == Self.wholeText)
    #expect(answer.reply == .completed)
    #expect(state.userError == nil)
    // And the chat the next request sends holds the answer once, with its text once
    let chat = AISDKChat(context: AgentContext(messages: Array(state.messages)))
    let assistants = chat.messages.filter { $0.field("role")?.stringValue == "assistant" }
    #expect(assistants.count == 1)
    #expect(assistants.first?.encoded().count ?? 0 < 400, "the answer's UI message holds its text once")
    let gets = try await server.requests().filter {
      ($0["method"] as? String) == "GET"
        && ($0["path"] as? String)?.hasSuffix("/\(state.conversationID!.rawValue)/stream") == true
    }
    #expect(gets.count == 1)
  }

  @Test("a resume that keeps dropping before anything new is given up after its attempts: truncated, text kept")
  func resumeKeepsDropping() async throws {
    // The POST drops after the second delta; every replay drops at the same place
    let backend = try AISDKBackend(endpoint: server.endpoint("resumable", "drop_after=5&resume_drop_after=5"))
    let store = Self.store(backend, attempts: 3)
    defer { store.close() }
    store.sendMessage("Count to five")
    let state = try #require(await store.ended())
    let answer = try #require(state.messages.last)
    #expect(answer.text == "one two ")
    #expect(answer.reply == .truncated)
    let gets = try await server.requests().filter {
      ($0["method"] as? String) == "GET"
        && ($0["path"] as? String)?.hasSuffix("/\(state.conversationID!.rawValue)/stream") == true
    }
    #expect(gets.count == 3, "one GET per attempt, no more")
  }

  @Test("a resume that gets further and drops again is resumed again, from the new cursor")
  func resumeDropsLater() async throws {
    let backend = try AISDKBackend(endpoint: server.endpoint("resumable", "drop_after=4&resume_drop_after=7"))
    let store = Self.store(backend, attempts: 2)
    defer { store.close() }
    store.sendMessage("Count to five")
    // Each replay gets to chunk 7 only: three new deltas the first time, nothing new after, so it ends truncated
    let state = try #require(await store.ended())
    #expect(state.messages.last?.text == "one two three four ")
    #expect(state.messages.last?.reply == .truncated)
  }

  @Test("a route with no active stream answers 204: the reply ends truncated with what it had, after one try")
  func nothingToResume() async throws {
    let backend = try AISDKBackend(endpoint: server.endpoint("truncated"))
    let store = Self.store(backend)
    defer { store.close() }
    store.sendMessage("hi")
    let state = try #require(await store.ended())
    #expect(state.messages.last?.text == "Cut off in the mid")
    #expect(state.messages.last?.reply == .truncated)
    #expect(state.userError?.message.contains("204") == true)
  }
}
