import ChatHTTP
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// Cancelling a request at any moment, also while it completes, is safe: FoundationNetworking traps when a
/// task is cancelled as its completion is delivered, and `HTTPExchange` never lets the two overlap. A trap
/// here ends the whole test process, so `.ci/run` also runs this suite in a process of its own.
@Suite("Cancelling while a request completes", .hangGuard)
struct CancellationRaceTests {
  /// Fewer under ThreadSanitizer, which makes each round several times slower.
  static let rounds = isThreadSanitizerBuild ? 300 : 1_500

  @Test("thousands of calls cancelled around the moment they complete all end, with an answer or a typed error")
  func cancelWhileCompleting() async throws {
    // Given a server that answers at once
    let server = try await MisbehavingServer.start()
    let backend = try server.backend("ok")
    let ended = Tally()

    // When each call is cancelled after a few scheduler turns: before, during or after its completion
    for round in 0..<Self.rounds {
      let call = Task {
        do {
          _ = try await backend.history(of: "conv-1", before: nil, limit: 20)
          ended.count { $0.answered += 1 }
        } catch {
          let cancelled = (error as? ChatError)?.code == .cancelled
          ended.count { counts in
            if cancelled { counts.cancelled += 1 } else { counts.failed += 1 }
          }
        }
      }
      for _ in 0..<(round % 40) { await Task.yield() }
      // One round in 40 is left to complete: on a loaded machine forty scheduler turns may end before any
      // answer can arrive, and the count of answered calls must not depend on how busy the machine is.
      if round % 40 != 39 { call.cancel() }
      await call.value
    }

    // Then every call ended, each in one way, and the process is still here to count them
    let counts = ended.counts
    #expect(counts.answered + counts.failed + counts.cancelled == Self.rounds)
    #expect(counts.failed == 0, "a cancelled call ends CANCELLED or answered, never with another error")
    #expect(counts.answered > 0 && counts.cancelled > 0, "the cancels landed on both sides of completion")
  }

  @Test("reply streams dropped as they finish, and mid-way, end their transfers without a trap")
  func dropStreamsAsTheyFinish() async throws {
    let server = try await MisbehavingServer.start()
    let backend = try server.backend("ok")
    var finished = 0
    var timedOut = 0

    for round in 0..<(Self.rounds / 3) {
      let payload = SendPayload(
        conversationID: nil, clientID: ClientMessageID("c-\(round)"), text: "Hi", attachments: [])
      // Read up to a point (every third round all of it), then let go of the stream: its transfer is
      // cancelled while the server finishes it, after, or before.
      var read = 0
      do {
        for try await event in backend.send(payload) {
          read += 1
          if case .finished = event { finished += 1 }
          if read > round % 6 { break }
        }
      } catch let error as ChatError where error.code == .timeout {
        // On a loaded 2-core CI machine (the whole suite and 200 kills beside it) one request in 500 once
        // went unanswered past the 10 s request timeout. That ends in the typed error the transport
        // promises; what this test guards is that no drop traps and every other send completes.
        timedOut += 1
      }
    }

    #expect(finished > 0)
    #expect(timedOut <= 2, "\(timedOut) of \(Self.rounds / 3) sends timed out")
    let log = try await server.log()
    // A send that timed out may have reached the server twice: libcurl re-sends a request whose reused
    // connection died before an answer (seen once in CI: 501 logged for 500 sends, one timed out). The
    // idempotency key makes that safe; every other send reaches it exactly once.
    let sends = log.count("send")
    #expect(sends >= Self.rounds / 3 - timedOut && sends <= Self.rounds / 3 + timedOut, "\(sends) sends logged")
  }
}

/// How calls ended, counted from any thread.
final class Tally: Sendable {
  struct Counts {
    var answered = 0
    var failed = 0
    var cancelled = 0
  }

  private let state = StateLock(Counts())
  func count(_ change: (inout Counts) -> Void) { state.withLock { change(&$0) } }
  var counts: Counts { state.withLock { $0 } }
}
