import ChatHTTP
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Replies whose connection drops are resumed through the protocol's resume endpoint
/// (`GET conversations/{id}/replies/{message_id}/stream` with `Last-Event-ID`), against the reference
/// server, which goes on with a detached reply and stores it once it finishes.
@Suite("HTTP replies resumed after a dropped connection", .hangGuard)
struct ReplyResumeServerTests {
  /// Text frames in the reference server's answer to "Hi" (one word each).
  static let textFrames = 50

  static func store(on server: ReferenceServer, attempts: Int = 5) throws -> ChatStore {
    var policy = ChatPolicy(reconnectBackoff: Backoff(base: 0.05, cap: 0.2))
    policy.replyResumeAttempts = attempts
    return ChatStore(policy: policy, backend: try server.backend())
  }

  /// The state once the answer to the one question has ended and nothing is in flight.
  static func ended(_ store: ChatStore, count: Int = 2) async throws -> ConversationState {
    try #require(
      await store.state(within: 60) { $0.streamingReply == nil && $0.messages.count == count && $0.isSettled })
  }

  /// The resume requests the server received, by status.
  static func resumes(on server: ReferenceServer) async throws -> [String] {
    let log = try await server.state()["log"] as? [[String: Any]] ?? []
    return log.filter { ($0["path"] as? String)?.hasSuffix("/stream") == true }.map { "\($0["status"] ?? "none")" }
  }

  @Test(
    "a reply whose connection drops after any frame resumes and ends with exactly the text the server stored",
    arguments: [("typed", Array(0...textFrames)), ("frames", [0, 1, 3, 4, 5, 26, 49, 50])].flatMap { style, cuts in
      cuts.map { (style, $0) }
    })
  func detachedAtEveryFrame(style: String, cut: Int) async throws {
    // Given a server that cuts the reply's connection after `cut` text frames and goes on with the reply
    let server = try await ReferenceServer.start(["--style", style])
    try await server.faults(["detach_reply_after_frames": cut])
    let store = try Self.store(on: server)
    defer { store.close() }

    // When the user asks
    store.sendMessage("Hi")

    // Then the store resumes once, after the last frame it applied, and the answer is whole and finished
    let state = try await Self.ended(store)
    let answer = try #require(state.messages.last)
    let conversation = try #require(state.conversationID)
    let held = try await server.messages(in: conversation)
    #expect(held.count == 2, "the server stored the question and its answer once")
    #expect(answer.text == held.last?["text"] as? String)
    #expect(answer.text.hasPrefix("You said: Hi. ") && answer.text.hasSuffix("streaming its tokens."))
    #expect(answer.reply == .completed)
    #expect(answer.serverID?.rawValue == held.last?["id"] as? String)
    #expect(state.userError == nil)
    #expect(try await Self.resumes(on: server) == ["200"])
  }

  @Test("a connected store resumes the reply, and the realtime echo of the stored answer adds no second row")
  func resumedWithRealtime() async throws {
    let server = try await ReferenceServer.start()
    try await server.faults(["detach_reply_after_frames": 10])
    let store = try Self.store(on: server)
    defer { store.close() }
    store.send(.connect)

    store.sendMessage("Hi")

    let state = try await Self.ended(store)
    #expect(state.messages.map(\.role) == [.user, .assistant])
    #expect(state.messages.last?.text.hasSuffix("streaming its tokens.") == true)
    #expect(state.messages.last?.reply == .completed)
  }

  @Test("a resume that drops too is resumed again from its own last frame")
  func resumeDropsAgain() async throws {
    // Given a reply detached after 5 frames and a resume that drops after 3 more
    let server = try await ReferenceServer.start()
    try await server.faults(["detach_reply_after_frames": 5, "drop_resume_after_frames": 3])
    let store = try Self.store(on: server)
    defer { store.close() }

    store.sendMessage("Hi")

    let state = try await Self.ended(store)
    let held = try await server.messages(in: try #require(state.conversationID))
    #expect(state.messages.last?.text == held.last?["text"] as? String)
    #expect(state.messages.last?.reply == .completed)
    #expect(try await Self.resumes(on: server) == ["200", "200"])
  }

  @Test("a regenerated answer whose connection drops resumes and replaces the old answer")
  func regenerationResumes() async throws {
    // Given an answered question
    let server = try await ReferenceServer.start()
    let store = try Self.store(on: server)
    defer { store.close() }
    store.sendMessage("Hi")
    let first = try await Self.ended(store)
    let old = try #require(first.messages.last)

    // When the user regenerates it and the new answer's connection drops after 7 frames
    try await server.faults(["detach_reply_after_frames": 7])
    store.send(.regenerate(old.clientID))

    // Then the new answer is resumed and stands alone, as the server stored it
    let state = try #require(
      await store.state(within: 60) {
        $0.streamingReply == nil && $0.isSettled && $0.messages.last?.text.hasPrefix("Another answer") == true
      })
    let held = try await server.messages(in: try #require(state.conversationID))
    #expect(state.messages.count == 2)
    #expect(state.messages.last?.text == held.last?["text"] as? String)
    #expect(state.messages.last?.reply == .completed)
  }

  @Test("a reply the server abandoned answers the resume 204: it ends truncated with its text, after one try")
  func abandonedReply() async throws {
    // Given a server that cuts the reply after 3 frames and gives it up
    let server = try await ReferenceServer.start()
    try await server.faults(["drop_reply_after_frames": 3])
    let store = try Self.store(on: server)
    defer { store.close() }

    store.sendMessage("Hi")

    let state = try await Self.ended(store)
    #expect(state.messages.last?.text == "You said: Hi. ")
    #expect(state.messages.last?.reply == .truncated)
    #expect(state.userError?.code == .incompleteStream)
    #expect(state.userError?.message.contains("204") == true)
    #expect(try await Self.resumes(on: server) == ["204"])
  }

  @Test("with resuming off, a dropped reply ends at once as before, its text kept; nothing asks to resume")
  func resumingOff() async throws {
    let server = try await ReferenceServer.start()
    try await server.faults(["detach_reply_after_frames": 3])
    let store = try Self.store(on: server, attempts: 0)
    defer { store.close() }

    store.sendMessage("Hi")

    let state = try await Self.ended(store)
    #expect(state.messages.last?.text == "You said: Hi. ")
    // A lost connection is a retryable failure (`NETWORK`), a body cut short `INCOMPLETE_STREAM` (truncated)
    let ending = try #require(state.messages.last?.reply)
    #expect(ending == .truncated || ending.error?.code == .network, "\(ending)")
    #expect(try await Self.resumes(on: server).isEmpty)
  }
}
