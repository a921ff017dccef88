public import Foundation
public import Reducers

extension StoreEnvironment {
  /// A deterministic environment: IDs `id-1`, `id-2`, … from a counter, jitter fixed at `jitter`, time
  /// from `clock`.
  public static func deterministic(clock: TestClock = TestClock(), jitter: Double = 0.5) -> StoreEnvironment {
    let counter = StateLock<Int>(0)
    return StoreEnvironment(
      clock: clock,
      makeID: {
        let next = counter.withLock { value in
          value += 1
          return value
        }
        return "id-\(next)"
      },
      jitter: { jitter })
  }
}

/// Virtual time: `now()` moves only when the test advances it, and sleepers wake in deadline order.
public final class TestClock: ChatClock {
  private struct Sleeper: Sendable {
    var deadline: Date
    var id: UInt64
    var continuation: CheckedContinuation<Void, any Error>
  }

  private let state: StateLock<(now: Date, nextID: UInt64, sleepers: [Sleeper])>

  /// Starts at `start` (2025-01-01T00:00:00Z by default).
  public init(start: Date = Date(timeIntervalSince1970: 1_735_689_600)) {
    state = StateLock((start, 0, []))
  }

  public func now() -> Date { state.withLock { $0.now } }

  /// How many tasks are sleeping on this clock.
  public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  public func sleep(seconds: Double) async throws {
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let resumeNow: Result<Void, any Error>? = state.withLock { state in
          if Task.isCancelled { return .failure(CancellationError()) }
          if seconds <= 0 { return .success(()) }
          state.sleepers.append(
            Sleeper(deadline: state.now.addingTimeInterval(seconds), id: id, continuation: continuation))
          return nil
        }
        if let resumeNow { continuation.resume(with: resumeNow) }
      }
    } onCancel: {
      let sleeper = state.withLock { state -> Sleeper? in
        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
        return state.sleepers.remove(at: index)
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Moves time forward by `seconds`, waking every sleeper whose deadline passes, earliest first; time
  /// stands at each deadline while its sleeper wakes.
  public func advance(by seconds: Double) {
    let target = now().addingTimeInterval(seconds)
    while true {
      let due = state.withLock { state -> Sleeper? in
        guard let index = state.sleepers.indices.min(by: { state.sleepers[$0].deadline < state.sleepers[$1].deadline }),
          state.sleepers[index].deadline <= target
        else { return nil }
        let sleeper = state.sleepers.remove(at: index)
        state.now = max(state.now, sleeper.deadline)
        return sleeper
      }
      guard let due else { break }
      due.continuation.resume()
    }
    state.withLock { $0.now = max($0.now, target) }
  }
}
