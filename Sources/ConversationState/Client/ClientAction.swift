public import Foundation

/// Everything that can happen to a `ChatClient`: what the host asks for, and what its runtime reports.
/// Facts only the edge can know (which stores a screen still holds, which store a new conversation became)
/// arrive in the action, so the reducer stays pure.
public enum ClientAction: Equatable, Sendable, Codable {
  // MARK: Host intents

  /// The client was made: open the identity's scope, connect, and upload what the outbox kept.
  case start
  /// The host asked for conversation `id`. `adopting` is the store of the new conversation when it already
  /// shows `id` (the server named it a moment ago); `unheld` are the open stores nobody outside the client
  /// holds, which may be closed to keep `maximumIdleConversations`.
  case open(ConversationID, adopting: ConversationHandle?, unheld: Set<ConversationHandle>)
  /// The idle check (`ClientTimer.idleCheck`) found `unheld` open stores that nobody outside the client holds
  /// and that have nothing in flight: those beyond `maximumIdleConversations` close.
  case releaseIdle(unheld: Set<ConversationHandle>)
  /// The host asked for a store for a conversation the user is starting.
  case startNewConversation
  /// Sign `identity` in (see `ChatClient.identify`).
  case identify(UserIdentity, keepingGuestConversation: Bool)
  case signOut
  /// Discard what the person has here and start afresh, signed in as they are (see `ChatClient.resetSession`).
  case resetSession
  /// The list deleted a conversation (the user's deletion confirmed, or another device's reported): a store
  /// open on it closes, and what the device stores of it goes.
  case forgetConversation(ConversationID)
  /// The host has a fresh credential: everything that waited for one resumes.
  case credentialsRefreshed
  /// The anonymous user gave contact details (checked by `ChatClient.setContactDetails` first).
  case setContactDetails(ContactDetails)
  /// Stop everything; later actions change nothing.
  case close

  // MARK: Runtime reports

  /// The store `handle` began with `newConversation()` now shows conversation `id`.
  case conversationCreated(ConversationHandle, ConversationID)
  /// The shared connection of `request` is live.
  case connectionOpened(RequestID)
  /// The shared connection of `request` delivered an event: it works.
  case connectionDelivered(RequestID)
  /// The shared connection of `request` ended (`jitter` in 0…1 spreads the retry).
  case connectionLost(RequestID, ChatError, at: Date, jitter: Double)
  /// The shared connection of `request` delivered a frame that could not be read; the connection goes on.
  case frameRejected(RequestID, ChatError)
  /// The host's credential provider answered the refresh `request` (nil: a fresh credential is in place).
  case credentialsAnswered(RequestID, ChatError?)
  /// Something was queued in the outbox (or may be uploadable now).
  case outboxChanged
  /// The runtime counted the operations in the outbox after a change of it (nil: there is no outbox).
  case outboxCounted(Int?)
  /// The outbox read the batch to upload for `request`; nil when nothing waits.
  case batchPrepared(RequestID, OutboxBatch?)
  /// The server took the batch of `request`.
  case batchUploaded(RequestID, OutboxReceipt)
  /// Preparing or uploading the batch of `request` failed.
  case batchFailed(RequestID, ChatError, at: Date, jitter: Double)
  /// The server took nothing of the batch: its numbering is not the server's (`OutboxReceipt.resync`).
  /// `at` is the device's clock and `jitter` in 0...1, for the backoff before it goes again.
  case batchOutOfSync(RequestID, OutboxSequencing, at: Date, jitter: Double)
  /// The backend took the contact details sent as `request`.
  case contactDetailsSent(RequestID)
  /// Sending the contact details of `request` failed.
  case contactDetailsFailed(RequestID, ChatError, at: Date, jitter: Double)
  case timerFired(ClientTimer)
}
