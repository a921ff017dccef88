public import Foundation
import Synchronization

/// The durable queue of what the user did while the server could not be reached.
///
/// `enqueue` returns only once the operation is on disk, so a UI that shows a message as queued after it
/// returns never shows one a crash could lose. Operations leave by `complete` (the server has them) or by
/// eviction: past `OutboxLimits` the oldest go first, but never one marked uploading, and each eviction is
/// returned and reported with its ID and reason only.
///
/// ```swift
/// let outbox = try scope.outbox()
/// let evicted = try outbox.enqueue(
///   OutboxOperation(id: "op-1", conversationID: "c42", kind: .markRead(upTo: "m9"), enqueuedAt: now), at: now)
/// let batch = outbox.markUploading(limit: 100)
/// // … the server accepted the batch:
/// try outbox.complete(batch.map(\.id))
/// ```
public final class Outbox: Sendable {
  /// Why the stored outbox could not be read, when it could not (the file was moved aside; it starts empty).
  public let restoreError: PersistenceError?
  /// Bytes of a torn last write that were dropped when opening.
  public let droppedTailBytes: Int
  private let journal: Mutex<OutboxJournal>

  init(path: String, limits: OutboxLimits, events: StorageEvents) throws(PersistenceError) {
    var restoreError: PersistenceError?
    var journal = OutboxJournal(path: path, limits: limits, events: events)
    do throws(PersistenceError) {
      try journal.load()
    } catch  where error.isUnreadableContent {
      var reported = error
      reported.movedAsideTo = try FileSystem.moveAside(path)
      events.report(.movedAside(kind: error.kind, file: path))
      restoreError = reported
      journal = OutboxJournal(path: path, limits: limits, events: events)
    }
    self.droppedTailBytes = journal.droppedTailBytes
    self.restoreError = restoreError
    self.journal = Mutex(journal)
  }

  /// What is waiting, oldest first.
  public var operations: [OutboxOperation] { journal.withLock { $0.operations.map(\.operation) } }

  /// Which of them are being uploaded.
  public var uploading: Set<OutboxOperationID> { journal.withLock { $0.uploading } }

  /// Queues `operation` durably, then drops what the bounds require (`now` is the device clock, for the age
  /// bound). Throws `tooLarge` when it cannot fit even after dropping everything not being uploaded.
  @discardableResult
  public func enqueue(_ operation: OutboxOperation, at now: Date) throws(PersistenceError) -> [OutboxEviction] {
    try journal.withLock { journal throws(PersistenceError) in try journal.enqueue(operation, at: now) }
  }

  /// Marks up to `limit` of the oldest waiting operations as being uploaded and returns them: they are not
  /// evicted until `complete` or `release`. Not stored: after a relaunch nothing is being uploaded.
  public func markUploading(limit: Int) -> [OutboxOperation] {
    journal.withLock { $0.markUploading(limit: limit) }
  }

  /// The upload of these failed: they wait again (and may be evicted again).
  public func release(_ ids: [OutboxOperationID]) {
    journal.withLock { journal in for id in ids { journal.uploading.remove(id) } }
  }

  /// The server has these: they leave the outbox durably.
  public func complete(_ ids: [OutboxOperationID]) throws(PersistenceError) {
    try journal.withLock { journal throws(PersistenceError) in try journal.remove(Set(ids)) }
  }

  /// Drops what has waited longer than the age bound (`now` is the device clock).
  @discardableResult
  public func expire(at now: Date) throws(PersistenceError) -> [OutboxEviction] {
    try journal.withLock { journal throws(PersistenceError) in try journal.evict(at: now, keeping: nil) }
  }
}
