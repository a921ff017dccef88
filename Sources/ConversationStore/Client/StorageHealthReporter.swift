import ConversationState
import Persistence

/// How a client tells its host about storage trouble: once when writing starts failing (a full disk, a
/// folder whose permissions changed), not once per write, and once when a write works again. A file that
/// could not be read (moved aside) is told each time: each is its own loss.
///
/// Both go through `HostCallbacks`: asynchronously, in order, on a task of their own.
final class StorageHealthReporter: Sendable {
  private let errors: HostCallbacks<PersistenceError>?
  private let recovered: HostCallbacks<StorageRecovery>?
  /// Whether the last write failed: the host has heard of it and not yet of a write that worked.
  private let isFailing = StateLock(false)

  init(
    onError: (@Sendable (PersistenceError) -> Void)?, onRecovered: (@Sendable (StorageRecovery) -> Void)?
  ) {
    errors = onError.map { HostCallbacks($0) }
    recovered = onRecovered.map { HostCallbacks($0) }
  }

  /// A storage call failed. A failure of the system (`io`) opens an outage, told once; any other is told
  /// each time.
  func deliver(_ error: PersistenceError) {
    if error.kind == .io {
      let isFirst = isFailing.withLock { isFailing -> Bool in
        defer { isFailing = true }
        return !isFailing
      }
      guard isFirst else { return }
    }
    errors?.deliver(error)
  }

  /// A write reached the disk: an outage, if there was one, is over.
  func wrote() {
    let wasFailing = isFailing.withLock { isFailing -> Bool in
      defer { isFailing = false }
      return isFailing
    }
    if wasFailing { recovered?.deliver(StorageRecovery()) }
  }
}

/// Writing to storage works again after the failure `ChatClientOptions.onStorageError` reported: what was
/// kept in memory meanwhile is written from here on (each conversation with its next change).
public struct StorageRecovery: Hashable, Sendable {
  public init() {}
}
