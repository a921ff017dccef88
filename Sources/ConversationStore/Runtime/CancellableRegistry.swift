import ConversationState

/// Running work by key — request tasks, timers — so one effect can cancel what another started.
///
/// Starting work under a key cancels the work that held it. Work that ends removes its own entry, unless
/// newer work took the key meanwhile. The key is claimed before the work exists, so work that finishes (or is
/// cancelled) before its handle is attached still finds — or correctly misses — its entry.
///
/// Work cancelled before its task began never starts, and once `close()` is called nothing new starts:
/// that is how "a cancelled request never reaches the server" holds at the I/O, not only in the reducer.
final class CancellableRegistry<Key: Hashable & Sendable>: Sendable {
  private struct Entry: Sendable {
    var token: UInt64
    var handle: ScheduledTimer
  }

  private let entries = StateLock<(next: UInt64, running: [Key: Entry], isClosed: Bool)>((0, [:], false))

  /// Runs `operation` in a task under `key`, unless the registry is closed.
  func run(_ key: Key, _ operation: @escaping @Sendable () async -> Void) {
    guard let token = claim(key) else { return }
    let task = Task {
      // Cancelled between being started and being scheduled: the work never begins.
      if !Task.isCancelled { await operation() }
      _ = self.release(key, token: token)
    }
    attach(ScheduledTimer { task.cancel() }, to: key, token: token)
  }

  /// Calls `fire` after `seconds` on `clock`, under `key`; a replaced or cancelled timer stays silent.
  func start(_ key: Key, after seconds: Double, on clock: any ChatClock, _ fire: @escaping @Sendable () -> Void) {
    guard let token = claim(key) else { return }
    // Clamped here too, whatever clock the host gave: a wait a `Duration` cannot hold would trap it.
    let timer = clock.schedule(after: ChatPolicy.timerDelay(seconds)) { [weak self] in
      guard let self, self.release(key, token: token) else { return }
      fire()
    }
    attach(timer, to: key, token: token)
  }

  func cancel(_ key: Key) {
    entries.withLock { $0.running.removeValue(forKey: key) }?.handle.cancel()
  }

  /// Cancels all running work; with `closing`, also refuses all later work.
  func cancelAll(closing: Bool = false) {
    let handles = entries.withLock { entries in
      if closing { entries.isClosed = true }
      defer { entries.running.removeAll() }
      return entries.running.values.map(\.handle)
    }
    for handle in handles { handle.cancel() }
  }

  var count: Int { entries.withLock { $0.running.count } }

  /// Takes `key` for new work (cancelling what held it) and returns the new work's token; nil once closed.
  private func claim(_ key: Key) -> UInt64? {
    let (token, replaced) = entries.withLock { entries -> (UInt64?, Entry?) in
      guard !entries.isClosed else { return (nil, nil) }
      entries.next += 1
      let placeholder = Entry(token: entries.next, handle: ScheduledTimer {})
      return (entries.next, entries.running.updateValue(placeholder, forKey: key))
    }
    replaced?.handle.cancel()
    return token
  }

  /// Stores the work's handle, or cancels it when the work already ended or was cancelled or replaced.
  private func attach(_ handle: ScheduledTimer, to key: Key, token: UInt64) {
    let owned = entries.withLock { entries in
      guard entries.running[key]?.token == token else { return false }
      entries.running[key] = Entry(token: token, handle: handle)
      return true
    }
    if !owned { handle.cancel() }
  }

  /// Removes the entry of work that ended; false when it no longer owned its key.
  private func release(_ key: Key, token: UInt64) -> Bool {
    entries.withLock { entries in
      guard entries.running[key]?.token == token else { return false }
      entries.running[key] = nil
      return true
    }
  }
}
