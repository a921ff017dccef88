/// Timers by key: starting one under a key replaces (cancels) the one before it.
final class TimerRegistry<Key: Hashable & Sendable>: Sendable {
  private let timers = StateLock<(next: UInt64, running: [Key: (token: UInt64, timer: ScheduledTimer)])>((0, [:]))

  func start(_ key: Key, after seconds: Double, on clock: any ChatClock, _ fire: @escaping @Sendable () -> Void) {
    // Claim the key first, so a timer that fires before `schedule` returns still finds its entry.
    let (token, replaced) = timers.withLock { timers in
      timers.next += 1
      let placeholder = ScheduledTimer {}
      return (timers.next, timers.running.updateValue((timers.next, placeholder), forKey: key))
    }
    replaced?.timer.cancel()
    let timer = clock.schedule(after: seconds) { [weak self] in
      // Only the timer that still owns its key fires; a replaced or cancelled one stays silent.
      guard let self, self.take(key, token: token) else { return }
      fire()
    }
    let pending = timers.withLock { timers in
      guard timers.running[key]?.token == token else { return false }
      timers.running[key] = (token, timer)
      return true
    }
    if !pending { timer.cancel() }
  }

  func cancel(_ key: Key) {
    timers.withLock { $0.running.removeValue(forKey: key) }?.timer.cancel()
  }

  func cancelAll() {
    let all = timers.withLock { timers in
      defer { timers.running.removeAll() }
      return Array(timers.running.values)
    }
    for entry in all { entry.timer.cancel() }
  }

  var count: Int { timers.withLock { $0.running.count } }

  private func take(_ key: Key, token: UInt64) -> Bool {
    timers.withLock { timers in
      guard timers.running[key]?.token == token else { return false }
      timers.running[key] = nil
      return true
    }
  }
}
