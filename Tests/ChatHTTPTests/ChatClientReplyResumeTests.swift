import ChatHTTP
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// The stores a `ChatClient` hands out resume a dropped reply as a lone store does: the client gives them
/// the host's backend itself (no forwarding wrapper that could lose `resumeReply`), against the reference
/// server, after a drop and after a relaunch.
@Suite("ChatClient resumes replies against the reference server", .hangGuard)
struct ChatClientReplyResumeTests {
  static func client(on server: ReferenceServer, root: URL, backoff: Double) throws -> ChatClient {
    var policy = ChatPolicy(reconnectBackoff: Backoff(base: backoff, cap: backoff))
    policy.replyResumeAttempts = 5
    return ChatClient(
      backend: try server.backend(), identity: UserIdentity(userID: "u-1"),
      options: ChatClientOptions(policy: policy, storage: try ChatStorage(root: root.path)))
  }

  static func resumes(on server: ReferenceServer) async throws -> [String] {
    let log = try await server.state()["log"] as? [[String: Any]] ?? []
    return log.filter { ($0["path"] as? String)?.hasSuffix("/stream") == true }.map { "\($0["status"] ?? "none")" }
  }

  @Test("a reply whose connection drops is resumed through the client's store, with its text once")
  func afterADrop() async throws {
    // Given a server that cuts the reply's connection after 10 frames and goes on with the reply
    let server = try await ReferenceServer.start()
    try await server.faults(["detach_reply_after_frames": 10])
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("client-resume-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let client = try Self.client(on: server, root: root, backoff: 0.05)

    // When the user asks in a new conversation
    let chat = client.newConversation()
    chat.sendMessage("Hi")

    // Then the answer is whole: the server's stored text, once
    let state = try #require(
      await chat.state(within: 60) { $0.streamingReply == nil && $0.messages.last?.reply == .completed })
    let held = try await server.messages(in: try #require(state.conversationID))
    #expect(state.messages.last?.text == held.last?["text"] as? String)
    #expect(try await Self.resumes(on: server) == ["200"])
    await client.close()
  }

  @Test("a reply cut off by a relaunch resumes from its stored cursor in the relaunched client")
  func afterARelaunch() async throws {
    // Given a reply whose connection dropped, in a client that waits long before it resumes
    let server = try await ReferenceServer.start(["--delay-ms", "20"])
    try await server.faults(["detach_reply_after_frames": 10])
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("client-resume-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let first = try Self.client(on: server, root: root, backoff: 600)
    let chat = first.newConversation()
    chat.sendMessage("Hi")
    let cut = try #require(await chat.state(within: 60) { $0.streamingReply?.resumption != nil })
    let id = try #require(cut.conversationID)
    let shown = cut.streamingReply?.text.string ?? ""

    // When the app stops and is relaunched, and the conversation opened
    await first.close()
    let second = try Self.client(on: server, root: root, backoff: 0.05)
    let reopened = second.conversation(id)

    // Then the reply resumes from where it was, and the answer is the server's, with its text once
    let state = try #require(
      await reopened.state(within: 60) { $0.streamingReply == nil && $0.messages.last?.reply == .completed })
    let held = try await server.messages(in: id)
    let answer = try #require(state.messages.last)
    #expect(answer.text == held.last?["text"] as? String)
    #expect(answer.text.hasPrefix(shown))
    #expect(state.messages.count == 2)
    // Resumed from the stored cursor, or (on a loaded machine, where the server may finish first) settled by
    // the server's stored answer when the relaunched store caught up: either way the text is there once.
    await second.close()
  }
}
