public import ConversationState
public import Foundation

/// The durable queue of what the user did while the server could not be reached.
///
/// `enqueue` returns only once the operation is on disk, so a UI that shows a message as queued after it
/// returns never shows one a crash could lose. Operations leave by `finishBatch` (the server has their batch) or by
/// eviction: past `OutboxLimits` the oldest go first, but never one marked uploading, and each eviction is
/// returned and reported with its ID and reason only.
///
/// ```swift
/// let outbox = try scope.outbox()
/// let evicted = try outbox.enqueue(
///   OutboxOperation(id: "op-1", conversationID: "c42", kind: .markRead(upTo: "m9"), enqueuedAt: now), at: now)
/// if let batch = try outbox.beginBatch(makeID: { UUID().uuidString }) {
///   _ = try await backend.uploadOutbox(batch)  // retried unchanged until it is answered
///   try outbox.finishBatch(batch.id)  // accepted, or a duplicate of one applied
/// }
/// ```
///
/// `ChatClient` with storage does this for you.
public final class Outbox: Sendable {
  /// Why the stored outbox could not be read, when it could not (the file was moved aside; it starts empty).
  public let restoreError: PersistenceError?
  /// Bytes of a torn last write that were dropped when opening.
  public let droppedTailBytes: Int
  private let journal: StateLock<OutboxJournal>

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
    self.journal = StateLock(journal)
  }

  deinit { journal.withLock { $0.close() } }

  /// What is waiting, oldest first.
  public var operations: [OutboxOperation] { journal.withLock { $0.operations.map(\.operation) } }

  /// How many are waiting, without copying them.
  public var count: Int { journal.withLock { $0.operations.count } }

  /// Which of them are being uploaded.
  public var uploading: Set<OutboxOperationID> { journal.withLock { $0.uploading } }

  /// Queues `operation` durably, then drops what the bounds require (`now` is the device clock, for the age
  /// bound). Throws `tooLarge` when it cannot fit even after dropping everything not being uploaded.
  @discardableResult
  public func enqueue(_ operation: OutboxOperation, at now: Date) throws(PersistenceError) -> [OutboxEviction] {
    try journal.withLock { journal throws(PersistenceError) in try journal.enqueue(operation, at: now) }
  }

  /// The form without batch IDs or sequence numbers, for this package's stress tool and tests: hosts
  /// upload in batches (`beginBatch`, `finishBatch`), whose retries the server can recognize.
  ///
  /// Marks up to `limit` of the oldest waiting operations as being uploaded and returns them: they are not
  /// evicted until `complete` or `release`. Not stored: after a relaunch nothing is being uploaded.
  package func markUploading(limit: Int) -> [OutboxOperation] {
    journal.withLock { $0.markUploading(limit: limit) }
  }

  /// The upload of these failed: they wait again (and may be evicted again).
  package func release(_ ids: [OutboxOperationID]) {
    journal.withLock { journal in for id in ids { journal.uploading.remove(id) } }
  }

  /// Drops what waits of `conversation` (a deleted conversation's queued work) and returns it. What is in
  /// the batch begun (being uploaded, or to be retried) stays: the batch goes out unchanged, so its sequence
  /// numbers hold, and the server answers it as it answers any operation of a conversation that is gone.
  public func removeWaiting(in conversation: ConversationID) throws(PersistenceError) -> [OutboxOperation] {
    try journal.withLock { journal throws(PersistenceError) in
      let batched = Set(journal.inFlight?.operations ?? []).union(journal.uploading)
      let waiting = journal.operations.map(\.operation).filter {
        $0.conversationID == conversation && !batched.contains($0.id)
      }
      try journal.remove(Set(waiting.map(\.id)))
      return waiting
    }
  }

  /// The server has these: they leave the outbox durably.
  package func complete(_ ids: [OutboxOperationID]) throws(PersistenceError) {
    try journal.withLock { journal throws(PersistenceError) in try journal.remove(Set(ids)) }
  }

  /// The batch to upload next: the one already in flight (the same ID, sequence numbers and operations, so
  /// a retry after a lost response or a crash is safe), or a new one of up to `limit` (at most 100) of the
  /// oldest operations, numbered from the epoch's counter and recorded on disk before it is returned. nil
  /// when nothing waits. `makeID` names a new batch.
  public func beginBatch(limit: Int = 100, makeID: () -> String) throws(PersistenceError) -> OutboxBatch? {
    try journal.withLock { journal throws(PersistenceError) in try journal.beginBatch(limit: limit, id: makeID()) }
  }

  /// The server has batch `id` (it accepted it, or answered that it is a duplicate): its operations leave
  /// durably, and the next batch is numbered after them.
  public func finishBatch(_ id: String) throws(PersistenceError) {
    try journal.withLock { journal throws(PersistenceError) in try journal.finishBatch(id) }
  }

  /// Drops everything queued and starts a new epoch whose sequence numbers start at 1: what a sign-out
  /// does, so the previous identity's queue never goes out as the next one's.
  public func clear() throws(PersistenceError) {
    try journal.withLock { journal throws(PersistenceError) in try journal.clear() }
  }

  /// Numbers what comes next in `epoch`, from `nextSequence` (or, in an epoch it already numbers, where
  /// it is). Moving to another epoch drops the batch in flight of the old one (its operations wait and go
  /// out again numbered in `epoch`); what is queued stays. A client calls it when it opens a scope (the
  /// installation's epoch) and when a guest's queue moves to the account (the guest's next number).
  public func adopt(epoch: UInt64, nextSequence: Int? = nil) throws(PersistenceError) {
    try journal.withLock { journal throws(PersistenceError) in try journal.adopt(epoch, nextSequence) }
  }

  /// The server numbers this outbox from `epoch` and `nextSequence` (it refused batch `batchID` as out of
  /// sync): that batch is dropped, its operations wait again in their order, and the next batch is numbered
  /// from there. A batch begun since (another ID) is left as it is.
  public func resynchronize(epoch: UInt64, nextSequence: Int, droppingBatch batchID: String) throws(PersistenceError) {
    try journal.withLock { journal throws(PersistenceError) in
      try journal.resynchronize(epoch, nextSequence, droppingBatch: batchID)
    }
  }

  /// The epoch batches are numbered in, and the sequence number the next new batch starts at.
  public var sequencing: (epoch: UInt64, nextSequence: Int) {
    journal.withLock { ($0.counter.epoch, $0.counter.nextSequence) }
  }

  /// Drops what has waited longer than the age bound (`now` is the device clock).
  @discardableResult
  public func expire(at now: Date) throws(PersistenceError) -> [OutboxEviction] {
    try journal.withLock { journal throws(PersistenceError) in try journal.evict(at: now, keeping: nil) }
  }
}
