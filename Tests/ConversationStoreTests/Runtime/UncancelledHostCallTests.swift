import ConversationState
import ConversationStore
import ConversationTesting
import Testing

@Suite("A host's credential callback and cancellation", .hangGuard)
struct UncancelledHostCallTests {
  @Test("a callback that answers gives its answer to the caller")
  func answers() async throws {
    #expect(try await uncancelledHostCall { "t2" } == "t2")
  }

  @Test("a callback's error reaches the caller as it was thrown")
  func throwsThrough() async throws {
    await #expect(throws: ChatError(.unauthorized, "expired")) {
      try await uncancelledHostCall { () async throws -> String in throw ChatError(.unauthorized, "expired") }
    }
  }

  @Test("when the caller is cancelled mid-call, it ends at once, and the callback runs on, never cancelled")
  func callerCancelledMidCall() async throws {
    // Given a callback that is working (it waits for the gate) when its caller is cancelled
    let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
    let (gate, opener) = AsyncStream.makeStream(of: Void.self)
    let (seen, report) = AsyncStream.makeStream(of: Bool.self)
    let caller = Task {
      try await uncancelledHostCall { () async -> Int in
        startedSignal.yield()
        for await _ in gate { break }
        report.yield(Task.isCancelled)
        return 1
      }
    }
    for await _ in started { break }

    // When the caller is cancelled
    caller.cancel()

    // Then the caller ends with CancellationError before the callback is done
    await #expect(throws: CancellationError.self) { try await caller.value }
    // And the callback, let go on, finishes without ever seeing a cancellation
    opener.yield()
    var cancelledInside: Bool?
    for await value in seen {
      cancelledInside = value
      break
    }
    #expect(cancelledInside == false)
  }

  @Test("a caller cancelled before the call starts never runs the callback")
  func cancelledBeforeStart() async throws {
    let (ran, ranSignal) = AsyncStream.makeStream(of: Void.self)
    let caller = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await uncancelledHostCall { () async -> Int in
        ranSignal.yield()
        return 1
      }
    }
    await #expect(throws: CancellationError.self) { try await caller.value }
    ranSignal.finish()
    var calls = 0
    for await _ in ran { calls += 1 }
    #expect(calls == 0)
  }
}
