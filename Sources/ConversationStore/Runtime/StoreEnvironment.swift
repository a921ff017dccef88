import ConversationState
public import Foundation

/// Where time, new IDs and randomness come from. Reducers never touch these; the runtime reads them and
/// puts the values into actions, so tests can replace all three and replay any flow.
public struct StoreEnvironment: Sendable {
  /// The local device clock: the `at:` of runtime actions, expiries and retry times, and the runtime's timers.
  public var clock: any ChatClock
  /// A new globally unique ID, used as a message's client ID (the send's idempotency key).
  public var makeID: @Sendable () -> String
  /// A number in 0…1 for backoff jitter.
  public var jitter: @Sendable () -> Double

  /// An environment with the given sources; tests pass a controllable clock and predictable IDs and jitter.
  public init(
    clock: any ChatClock, makeID: @escaping @Sendable () -> String, jitter: @escaping @Sendable () -> Double
  ) {
    self.clock = clock
    self.makeID = makeID
    self.jitter = jitter
  }

  /// The system clock, UUIDs and the system random source.
  public static var live: StoreEnvironment {
    StoreEnvironment(
      clock: SystemChatClock(), makeID: { UUID().uuidString.lowercased() }, jitter: { Double.random(in: 0...1) })
  }
}

/// A source of "now", of waiting and of timers.
public protocol ChatClock: Sendable {
  /// The current time on the local device clock (or a test's stand-in for it).
  func now() -> Date
  /// Waits `seconds`; throws `CancellationError` when the waiting task is cancelled.
  func sleep(seconds: Double) async throws
  /// Calls `fire` once, `seconds` from now, unless the returned timer is cancelled first.
  ///
  /// The runtime's timers (typing expiry, reconnect) go through here, so a test clock can fire them
  /// synchronously and in deadline order. The default sleeps in a task.
  func schedule(after seconds: Double, _ fire: @escaping @Sendable () -> Void) -> ScheduledTimer
}

extension ChatClock {
  /// By default, sleeps `seconds` in a new task, then calls `fire`; cancelling the timer cancels that task.
  public func schedule(after seconds: Double, _ fire: @escaping @Sendable () -> Void) -> ScheduledTimer {
    let task = Task {
      do {
        try await sleep(seconds: seconds)
        fire()
      } catch {}
    }
    return ScheduledTimer { task.cancel() }
  }
}

/// A pending timer; cancelling it (or dropping every reference to it) does not stop it — call `cancel()`.
public struct ScheduledTimer: Sendable {
  private let onCancel: @Sendable () -> Void

  /// A timer that runs `cancel` when `cancel()` is called.
  public init(cancel: @escaping @Sendable () -> Void) { onCancel = cancel }

  /// Stops the timer so it never fires, if it has not fired yet.
  public func cancel() { onCancel() }
}

/// Wall-clock time and real sleeping.
public struct SystemChatClock: ChatClock {
  /// The device's clock.
  public init() {}
  /// The device's current wall-clock time.
  public func now() -> Date { Date() }
  /// Sleeps `seconds`, clamped by `ChatPolicy.timerDelay` (negative and NaN count as zero, more than 30
  /// days as 30 days: `Duration` would trap); throws `CancellationError` when the task is cancelled.
  public func sleep(seconds: Double) async throws {
    try await Task.sleep(for: .seconds(ChatPolicy.timerDelay(seconds)))
  }
}
