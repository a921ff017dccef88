public import ConversationStore
import Foundation

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
