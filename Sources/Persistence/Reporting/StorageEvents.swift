/// What storage did that a host may want to log or count. Events carry file paths, codes and counts, never
/// what a file contains: logs leave the device, conversations must not.
public enum StorageEvent: Hashable, Sendable {
  /// A file that could not be read was renamed aside (see `PersistenceError.movedAsideTo`).
  case movedAside(kind: PersistenceError.Kind, file: String)
  /// The last, unfinished write of a killed run was dropped from the end of a journal.
  case tornTailDropped(file: String, bytes: Int)
  /// A file of an older format version was rewritten in the current one.
  case migrated(file: String, from: UInt32, to: UInt32)
  /// A journal was rewritten whole (compaction, or its first write).
  case rewritten(file: String, bytes: Int)
  /// The outbox dropped an operation to stay within its bounds.
  case outboxEvicted(OutboxEviction)
}

/// Where storage reports its events: the host's handler, called asynchronously and in order (storage runs
/// under its callers' locks; a handler that calls back in must not find itself inside them), or nothing.
struct StorageEvents: Sendable {
  let callbacks: HostCallbacks<StorageEvent>?

  init(handler: (@Sendable (StorageEvent) -> Void)?) { callbacks = handler.map { HostCallbacks($0) } }

  func report(_ event: StorageEvent) { callbacks?.deliver(event) }

  /// Returns once every event reported so far has reached the handler.
  func delivered() async { await callbacks?.delivered() }
}
