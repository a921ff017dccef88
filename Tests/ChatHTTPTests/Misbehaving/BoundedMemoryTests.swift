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
/// growth would be measured too.
///
/// The server floods at `floodRate`, a fast link's speed, not loopback's. After the client refuses a body,
/// FoundationNetworking goes on receiving it until `task.cancel()` gets through its busy work queue, which
/// took 0.1 to 0.9 s over a loopback flood (44 to 297 MiB arrived meanwhile: dropped by the exchange as it
/// comes, but queued for the delegate first) and up to 4 s while an earlier case's transfer still ran (the
/// cancel blocked; the body kept arriving, undelivered). That backlog is the transport's, the link's rate
/// times the cancel's delay, and at loopback speed it failed these cases one run in three on a 2-core
/// machine. A gzip bomb inflates locally at memory speed whatever the link, so each case also starts from a
/// process whose memory holds still.
@Suite(
  "A misbehaving server's bodies stay within the policy's limits", .serialized, .hangGuard,
  .enabled(
    if: ProcessInfo.processInfo.environment["MEMORY_BOUND_TESTS"] == "1" && !isThreadSanitizerBuild,
    "measures the process's memory: run alone with MEMORY_BOUND_TESTS=1 (as .ci/run does)"))
struct BoundedMemoryTests {
  /// Resident memory may grow this much while a case runs: the limits (1 MiB events, 8 MiB answers, 4 MiB
  /// unread, 4 MiB replies), what the transport queued before the cancel landed, and the allocator's slack.
  /// Measured alone: 20 - 110 MiB; the cases send from 300 MiB to 2 GiB each.
  static let allowedGrowth = 160 * 1024 * 1024
  /// MiB a second the server sends at most: 16 MiB/s is 128 Mbit/s, a fast link (4 s of it is 64 MiB).
  static let floodRate = 16.0

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
    let server = try await MisbehavingServer.start(floodMiBPerSecond: Self.floodRate)
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
      ("huge-error-body", "SERVER_ERROR"),  // a 500 with a 1 GiB body
      // Last: after the refusal the transport inflates on until its cancel lands, at memory speed.
      ("gzip-bomb", .responseTooLarge),  // 1 MiB of gzip that inflates to 1 GiB
    ])
  func answer(name: String, code: ChatError.Code) async throws {
    let server = try await MisbehavingServer.start(floodMiBPerSecond: Self.floodRate)
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

  /// Runs `body`, sampling resident memory every 20 ms; the largest growth over the start (once memory holds
  /// still: a case before may have left the transport delivering for a while), and the result.
  static func peakGrowth<T: Sendable>(_ body: () async throws -> T) async throws -> (Int, T) {
    await ResidentMemory.settle()
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
