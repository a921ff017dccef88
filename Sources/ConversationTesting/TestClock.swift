public import ConversationStore
public import Foundation

/// Virtual time: `now()` moves only when the test advances it.
///
/// `advance(by:)` fires due timers synchronously, earliest deadline first, with `now()` standing at each
/// deadline while it fires — so a store's timer actions (typing expiry, reconnect) arrive in a fixed order.
/// Tasks sleeping on the clock are resumed in deadline order too; what they do next runs concurrently.
public final class TestClock: ChatClock {
  private struct Entry: Sendable {
    var deadline: Date
    var id: UInt64
    var fire: @Sendable () -> Void
  }

  private let state: StateLock<(now: Date, nextID: UInt64, entries: [Entry])>

  /// Starts at `start` (2025-01-01T00:00:00Z by default).
  public init(start: Date = Date(timeIntervalSince1970: 1_735_689_600)) {
    state = StateLock((start, 0, []))
  }

  /// The virtual time: the start, plus every advance so far.
  public func now() -> Date { state.withLock { $0.now } }

  /// Timers and sleepers waiting for time to pass.
  public var pendingCount: Int { state.withLock { $0.entries.count } }

  /// Queues `fire` for `seconds` of virtual time from now (negative counts as zero); `advance(by:)` fires it.
  public func schedule(after seconds: Double, _ fire: @escaping @Sendable () -> Void) -> ScheduledTimer {
    let id = state.withLock { state in
      state.nextID += 1
      state.entries.append(
        Entry(deadline: state.now.addingTimeInterval(max(0, seconds)), id: state.nextID, fire: fire))
      return state.nextID
    }
    return ScheduledTimer { [weak self] in self?.remove(id) }
  }

  /// Suspends until the test advances time by `seconds` (negative counts as zero); throws `CancellationError`
  /// as soon as the task is cancelled.
  public func sleep(seconds: Double) async throws {
    typealias Continuation = CheckedContinuation<Void, any Error>
    let pending = StateLock<(continuation: Continuation?, timer: ScheduledTimer?, cancelled: Bool)>((nil, nil, false))
    let finish: @Sendable (Result<Void, any Error>) -> Void = { result in
      pending.withLock { pending in
        defer { pending.continuation = nil }
        return pending.continuation
      }?.resume(with: result)
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: Continuation) in
        // The continuation is in place before the timer exists, so an early fire always finds it.
        let cancelled = pending.withLock { pending in
          pending.continuation = continuation
          return pending.cancelled
        }
        if cancelled { return finish(.failure(CancellationError())) }
        let timer = schedule(after: seconds) { finish(.success(())) }
        let cancelledMeanwhile = pending.withLock { pending in
          pending.timer = timer
          return pending.cancelled
        }
        if cancelledMeanwhile { timer.cancel() }
      }
    } onCancel: {
      let timer = pending.withLock { pending in
        pending.cancelled = true
        return pending.timer
      }
      timer?.cancel()
      finish(.failure(CancellationError()))
    }
  }

  /// Moves time forward by `seconds`, firing everything due on the way, earliest first.
  public func advance(by seconds: Double) {
    let target = now().addingTimeInterval(seconds)
    while let due = takeNext(dueBy: target) { due.fire() }
    state.withLock { $0.now = max($0.now, target) }
  }

  /// Advances time in `step`s, letting other tasks run between steps, until `condition` holds; returns
  /// false if it still does not after `limit` seconds of virtual time. For flows where background tasks
  /// (a scripted backend streaming a reply) sleep on this clock.
  public func run(step: Double = 0.05, limit: Double = 600, until condition: @Sendable () -> Bool) async -> Bool {
    var elapsed = 0.0
    while !condition() {
      guard elapsed < limit else { return false }
      // Give sleepers a chance to register before time moves past them.
      for _ in 0..<20 { await Task.yield() }
      advance(by: step)
      elapsed += step
    }
    return true
  }

  /// Fires everything due now, without moving time.
  public func runDue() { advance(by: 0) }

  private func takeNext(dueBy target: Date) -> Entry? {
    state.withLock { state in
      let due = state.entries.indices.filter { state.entries[$0].deadline <= target }
      guard
        let index = due.min(by: {
          (state.entries[$0].deadline, state.entries[$0].id) < (state.entries[$1].deadline, state.entries[$1].id)
        })
      else { return nil }
      let entry = state.entries.remove(at: index)
      state.now = max(state.now, entry.deadline)
      return entry
    }
  }

  private func remove(_ id: UInt64) {
    state.withLock { $0.entries.removeAll { $0.id == id } }
  }
}
