import ChatHTTP
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Broken transports (lying lengths, broken chunking, resets, huge heads, invalid UTF-8, deep JSON, stalls)
/// end each call within its bound with a typed error or an honest success: never a trap, never a hang.
@Suite("A misbehaving server's broken transport", .hangGuard)
struct TransportBreakageTests {
  @Test(
    "a page over a broken transport ends within its bound, with a typed error or a page",
    arguments: [
      "content-length-lie-short", "content-length-lie-long", "duplicate-content-length", "chunked-broken",
      "giant-headers", "giant-header-1mib", "deep-json", "stall-before-head", "empty-200",
    ])
  func page(name: String) async throws {
    let server = try await MisbehavingServer.start()
    let backend = try server.backend(
      name, policy: name == "stall-before-head" ? MisbehavingServer.timingOutPolicy : MisbehavingServer.policy)

    // (A call that hung would end the suite at its time limit: the request timeout is 10 s.)
    let page = await Result(catching: { try await backend.history(of: "conv-1", before: nil, limit: 20) })

    switch page {
    case .success(let page): #expect(page.messages.count <= 20)
    case .failure(let error): #expect(error is ChatError, "\(error)")
    }
    if name == "stall-before-head" { #expect((page.failure as? ChatError)?.code == .timeout) }
    if name == "deep-json" || name == "empty-200" {
      #expect((page.failure as? ChatError)?.code == .invalidResponse)
    }
  }

  @Test(
    "a reply over a broken transport ends with a typed error or its text, keeping what came before the break",
    arguments: [
      "chunked-broken", "reset-mid-frame", "invalid-utf8", "stall-before-head", "end-after-head", "empty-200",
      "giant-headers",
    ])
  func reply(name: String) async throws {
    let server = try await MisbehavingServer.start()
    let store = try misbehavingStore(
      server, name, policy: name == "stall-before-head" ? MisbehavingServer.timingOutPolicy : MisbehavingServer.policy)
    defer { store.close() }

    store.sendMessage("Hi")
    let ended = await store.state(within: 40) { state in
      state.streamingReply == nil && state.requests.isEmpty
        && (failure(in: state) != nil || state.messages.last?.reply == .completed)
    }

    let state = try #require(ended, "the reply ended within its bound")
    if name == "reset-mid-frame" {
      #expect(state.messages.last?.text == "Hello ", "the text before the reset is kept, interrupted")
      #expect(failure(in: state)?.retryable == true)
    }
    if name == "end-after-head" || name == "empty-200" {
      // Never a success: a clean end without finish is INCOMPLETE_STREAM; a chunked body cut off, NETWORK
      let code = failure(in: state)?.code
      #expect(
        code == .incompleteStream || (name == "end-after-head" && code == .network), "\(String(describing: code))")
      #expect(failure(in: state)?.retryable == true)
    }
    if name == "stall-before-head" { #expect(failure(in: state)?.code == .timeout) }
  }

  @Test("a realtime event with a 1 MiB ID closes the stream with EVENT_TOO_LARGE, and no such ID is sent back")
  func hugeEventID() async throws {
    let server = try await MisbehavingServer.start()
    var state = ConversationState()
    state.conversationID = "conv-1"
    let store = try misbehavingStore(server, "sse-huge-id", state: state)
    defer { store.close() }

    store.send(.connect)
    let dropped = await store.state(within: 30) { $0.backgroundError?.code == .eventTooLarge }
    try await Task.sleep(for: .seconds(1))

    #expect(dropped != nil)
    let log = try await server.log()
    #expect(log.requests.allSatisfy { $0.kind != "malformed" }, "a 1 MiB Last-Event-ID was sent")
  }
}
