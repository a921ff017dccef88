/// The work a `ChatClient`'s reducer asks for. The client runtime performs effects in the order they were
/// reduced, on its own serial worker: never on the caller's thread for disk or network work, never under a
/// lock.
public enum ClientEffect: Equatable, Sendable, Codable {
  /// Open the scope of `userID` (nil: the anonymous scope): its list and outbox.
  case openScope(userID: String?)
  /// Start store `handle` for conversation `id` (nil: a new one): restore it, follow it, connect it.
  case openConversation(ConversationHandle, ConversationID?)
  /// Close these stores (their state stays in storage, or in memory without storage).
  case closeConversations([ConversationHandle])
  /// Send `action` to these stores, in order.
  case forward(ConversationAction, to: [ConversationHandle])
  /// The guest signed in keeping their conversations: move the anonymous scope's data (these stores'
  /// conversations, the list, the outbox) into `userID`'s scope, leaving nothing of the guest behind.
  case moveGuestData(to: String, conversations: [ConversationHandle])
  /// The person changed: these stores get `action` (clearing them) and close, the list is reset, and the
  /// previous scope's outbox is emptied; then `userID`'s scope is opened, its outbox numbered as
  /// `outboxEpoch` says.
  case switchScope(
    userID: String?, closing: [ConversationHandle], with: ConversationAction, outboxEpoch: OutboxEpochChange)
  /// The person discards what they have here: these stores are cleared and closed without being written,
  /// the scope's stored data is deleted (the person's standing approvals kept), its outbox's queued work
  /// dropped with its numbering going on in the same epoch, and the list reset; then the scope is opened
  /// afresh.
  case resetScope(closing: [ConversationHandle])
  /// Close the store of a deleted conversation (when one is open) without a last write, and delete its file,
  /// archived messages, search entries and queued work.
  case deleteStoredConversation(ConversationID, closing: ConversationHandle?)
  /// Open the shared realtime connection as `request`.
  case connectRealtime(RequestID)
  /// Cancel the request (the connection, a credential refresh, an upload).
  case cancel(RequestID)
  case startTimer(ClientTimer, seconds: Double)
  case cancelTimer(ClientTimer)
  /// Ask the host's credential provider for a fresh credential.
  case refreshCredentials(RequestID)
  /// Read the batch to upload next from the outbox (the one in flight again, or a new one).
  case prepareBatch(RequestID)
  /// Upload `batch`.
  case uploadBatch(RequestID, OutboxBatch)
  /// The server has batch `id` (taken or refused whole): its operations leave the outbox.
  case finishBatch(String)
  /// The server numbers the outbox from `sequencing`: batch `id` is dropped (its operations wait again, in
  /// their order, to go out numbered anew) and the installation's epoch becomes the server's.
  case resynchronizeOutbox(String, OutboxSequencing)
  /// The server refused these operations: each goes back to its conversation with its error (a message
  /// fails, a rating rolls back).
  case returnRefused([RefusedOperation])
  /// Send the anonymous user's contact details to the backend (`ChatBackend.updateContactDetails`).
  case sendContactDetails(RequestID, ContactDetails)
  /// Tell the host what became of its own operations (`ChatClientOptions.onHostOperation`), in batch order.
  case reportHostOperations([HostOperationOutcome])
  /// Close everything: these stores, the connection, timers; write what is pending. The runtime closes the
  /// list after the stores' last snapshots have reached it.
  case shutDown([ConversationHandle])
}

/// An operation the server refused, and why.
public struct RefusedOperation: Equatable, Sendable, Codable {
  public var operation: OutboxOperation
  public var error: ChatError

  public init(_ operation: OutboxOperation, _ error: ChatError) {
    self.operation = operation
    self.error = error
  }
}

/// What a change of person does to the outbox's epoch, which numbers its batches (`OutboxBatch.epoch`): the
/// client's reducer decides, the runtime only applies it.
public enum OutboxEpochChange: String, Hashable, Sendable, Codable {
  /// A signed-in person signed out: the queue ends with their epoch, and the next scope's outbox numbers
  /// from 1 in a new one.
  case raised
  /// Another person signed in (a guest without their data, or one person replacing another): not a
  /// sign-out, so the epoch goes on, and the next outbox numbers on from where the last left off.
  case continued
}
