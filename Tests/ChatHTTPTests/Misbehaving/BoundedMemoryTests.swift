import ChatHTTP
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// What a server sends can grow the client's memory by the policy's limits and a constant, never by what
/// it sends. Each case's peak resident memory is sampled while it runs.
///
/// Memory is the whole process's, so these run alone, in a process of their own (`.ci/run` sets
/// `MEMORY_BOUND_TESTS=1` for that run), as the demo's forked terminal tests do: beside other suites, their
/// growth would be measured too, and a busy machine lets a loopback flood run further ahead of a cancel
/// (FoundationNetworking queues every piece it reads for its delegate; a loaded delegate queue falls behind).
@Suite(
  "A misbehaving server's bodies stay within the policy's limits", .serialized, .timeLimit(.minutes(3)),
  .enabled(
    if: ProcessInfo.processInfo.environment["MEMORY_BOUND_TESTS"] == "1" && !isThreadSanitizerBuild,
    "measures the process's memory: run alone with MEMORY_BOUND_TESTS=1 (as .ci/run does)"))
struct BoundedMemoryTests {
  /// Resident memory may grow this much while a case runs: the limits (1 MiB events, 8 MiB answers, 4 MiB
  /// unread, 4 MiB replies), what the transport queued before the cancel landed, and the allocator's slack.
  /// Measured alone: 20 - 110 MiB; the cases send from 300 MiB to 2 GiB each.
  static let allowedGrowth = 160 * 1024 * 1024

  @Test(
    "a reply stream that sends too much ends with a typed error, and memory stays bounded",
    arguments: [
      ("sse-endless-line", [ChatError.Code.eventTooLarge]),  // 2 GiB with no line end
      ("sse-huge-line", [.eventTooLarge]),  // one 100 MiB line
      ("sse-many-data-lines", [.eventTooLarge]),  // one 100 MiB event of 1 KiB data lines
      ("huge-reply", [.replyTooLarge, .responseTooLarge]),  // 300 MiB of deltas
      ("fast-deltas", [.replyTooLarge, .responseTooLarge]),  // 10 million deltas, as fast as they go
    ])
  func replyStream(name: String, codes: [ChatError.Code]) async throws {
    let server = try MisbehavingServer()
    let store = try misbehavingStore(server, name)
    defer { store.close() }

    let (peak, state) = try await Self.peakGrowth {
      store.sendMessage("Tell me everything")
      return await store.state(within: 60) { failure(in: $0) != nil && $0.streamingReply == nil }
    }

    let error = try #require(state.flatMap(failure(in:)), "the case ended with a typed error")
    #expect(codes.contains(error.code), "\(error)")
    #expect(peak < Self.allowedGrowth, "grew \(peak / 1_048_576) MiB")
    #expect(store.state.messages.first?.text == "Tell me everything", "the user's message is kept")
  }

  @Test(
    "a JSON answer that is too large, inflates too far or carries a huge error ends with a typed error",
    arguments: [
      ("huge-json", ChatError.Code.responseTooLarge),  // a 300 MiB page
      ("gzip-bomb", .responseTooLarge),  // 1 MiB of gzip that inflates to 1 GiB
      ("huge-error-body", "SERVER_ERROR"),  // a 500 with a 1 GiB body
    ])
  func answer(name: String, code: ChatError.Code) async throws {
    let server = try MisbehavingServer()
    var conversation = ConversationState()
    conversation.conversationID = "conv-1"
    let store = try misbehavingStore(server, name, state: conversation)
    defer { store.close() }

    let (peak, state) = try await Self.peakGrowth {
      store.send(.loadHistory(pageSize: 20))
      return await store.state(within: 60) { $0.userError != nil }
    }

    #expect(state?.userError?.code == code, "\(String(describing: state?.userError))")
    #expect(peak < Self.allowedGrowth, "grew \(peak / 1_048_576) MiB")
  }

  /// Runs `body`, sampling resident memory every 20 ms; the largest growth over the start, and the result.
  static func peakGrowth<T: Sendable>(_ body: () async throws -> T) async throws -> (Int, T) {
    let start = ResidentMemory.bytes()
    let peak = StateLock(start)
    let sampler = Task {
      while !Task.isCancelled {
        let now = ResidentMemory.bytes()
        peak.withLock { $0 = max($0, now) }
        try? await Task.sleep(for: .milliseconds(20))
      }
    }
    let result = try await body()
    sampler.cancel()
    _ = await sampler.value
    return (peak.withLock { $0 } - start, result)
  }
}
