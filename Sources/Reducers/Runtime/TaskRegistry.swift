/// Running tasks by key, so an effect can cancel the work another effect started.
///
/// A task removes its own entry when it ends, unless a newer task took its key meanwhile.
final class TaskRegistry<Key: Hashable & Sendable>: Sendable {
  private struct Entry: Sendable {
    var token: UInt64
    var task: Task<Void, Never>
  }

  private let entries = StateLock<(next: UInt64, running: [Key: Entry])>((0, [:]))

  /// Starts `operation` under `key`, cancelling whatever ran under it before.
  func run(_ key: Key, _ operation: @escaping @Sendable () async -> Void) {
    let replaced = entries.withLock { entries -> Task<Void, Never>? in
      entries.next += 1
      let token = entries.next
      // Created under the lock, so the task's own removal (below) always finds its entry in place.
      let task = Task {
        await operation()
        self.finished(key, token: token)
      }
      return entries.running.updateValue(Entry(token: token, task: task), forKey: key)?.task
    }
    replaced?.cancel()
  }

  func cancel(_ key: Key) {
    entries.withLock { $0.running.removeValue(forKey: key) }?.task.cancel()
  }

  func cancelAll() {
    let tasks = entries.withLock { entries in
      defer { entries.running.removeAll() }
      return entries.running.values.map(\.task)
    }
    for task in tasks { task.cancel() }
  }

  var count: Int { entries.withLock { $0.running.count } }

  private func finished(_ key: Key, token: UInt64) {
    entries.withLock { entries in
      if entries.running[key]?.token == token { entries.running[key] = nil }
    }
  }
}
