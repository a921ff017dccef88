/// Everything a `ChatClient` decides with: who is signed in, which conversation stores are open, the one
/// realtime connection they share, and the outbox uploader. A value, changed only by `ClientReducer`; the
/// stores, files and sockets it names live at the edge, in the client's runtime.
///
/// ```swift
/// var state = ClientState()
/// let effects = ClientReducer().reduce(into: &state, action: .open("c42", adopting: nil, unheld: []))
/// // state.conversations == ["c42": h0], effects == [.openConversation(h0, "c42")]
/// ```
public struct ClientState: Equatable, Sendable, Codable {
  /// Who is signed in; nil for the anonymous user of this installation.
  public var identity: UserIdentity?
  /// Raised when the person changes (sign-in from anonymous, a switch, a sign-out); requests of an older
  /// epoch are dropped when they answer. Identifying the same person again keeps it.
  public var epoch = IdentityEpoch()
  /// The open stores of conversations that have an ID.
  public var conversations: [ConversationID: ConversationHandle] = [:]
  /// The store of the conversation being started, until the server gives it an ID.
  public var newConversation: ConversationHandle?
  /// Every open store and the conversation it shows (nil: not created yet). A store whose conversation
  /// another store already showed when the server named it stays here, so `close()` still reaches it.
  public var open: [ConversationHandle: ConversationID?] = [:]
  /// When each open store was last asked for, in asks; the least recently asked-for idle ones close first.
  public var lastUse: [ConversationHandle: UInt64] = [:]
  /// The shared realtime connection, in the same states as a conversation's.
  public var connection: ConnectionState = .idle
  /// The request of the shared connection that is wanted now; results of any other are dropped.
  public var connectionRequest: RequestID?
  /// Connection attempts that failed since the connection was last healthy; drives the backoff.
  public var failedConnectionAttempts = 0
  /// The server refused the credential: the connection and the outbox wait for a fresh one.
  public var needsCredentials = false
  /// A credential refresh the runtime is running (the host's provider), if any.
  public var credentialRefresh: RequestID?
  /// The request counter when the credential was last renewed (by the provider or the host's
  /// `credentialsRefreshed`), until something proves it works; nil when nothing is unproven. A request
  /// numbered after it carried the fresh credential: its refusal means the provider cannot help, so the
  /// client waits for the host instead of asking again (never a refresh loop). One numbered before it carried
  /// the old one and says nothing about the new.
  public var credentialRenewal: UInt64?

  /// Whether the client waits for the host's `credentialsRefreshed()`: a credential was refused and the
  /// provider cannot help (it failed, there is none, or its fresh credential was refused too). A store of
  /// the client that meets an authorization failure meanwhile does not ask the provider either.
  public var awaitsHostCredentials: Bool { needsCredentials && credentialRefresh == nil }
  /// The outbox uploader.
  public var outbox: OutboxUploadState = .idle
  /// Uploads that failed since the last one that succeeded; drives the outbox's backoff.
  public var outboxFailures = 0
  /// How many operations wait in the outbox (sends, edits, feedback, host operations; a batch on its way
  /// counts until the server takes it), as the runtime counted them after the outbox last changed: for a
  /// banner ("3 changes waiting to be sent"). Nil when there is no outbox: the client keeps no storage, or
  /// its scope is not open yet.
  public var outboxCount: Int?
  /// Something was queued while a batch was being prepared or uploaded: look again when it is done.
  public var outboxHasMore = false
  /// The anonymous user's contact details, as the host last gave them (`ChatClient.setContactDetails`); nil
  /// while signed in or none were given. Not stored: a host sets them again after a relaunch (setting the
  /// same details again sends nothing once the backend has them).
  public var contact: ContactDetails?
  /// Whether the backend has `contact`.
  public var contactUpload: ContactUploadState = .idle
  /// Attempts to send `contact` that failed since the last that succeeded; drives its backoff.
  public var contactFailures = 0
  /// The last failure of background work (the connection, the outbox), for a banner.
  public var backgroundError: ChatError?
  /// `close()` was called: nothing more is opened or sent.
  public var isClosed = false
  /// The counters handles and requests are minted from.
  public var nextHandle: UInt64 = 0
  public var nextRequest: UInt64 = 0
  public var uses: UInt64 = 0

  /// A client state for `identity` (nil: anonymous).
  public init(identity: UserIdentity? = nil) { self.identity = identity }

  /// A new request ID of the current epoch.
  public mutating func beginRequest() -> RequestID {
    nextRequest += 1
    return RequestID(epoch: epoch, sequence: nextRequest)
  }

  /// A new store handle.
  public mutating func makeHandle() -> ConversationHandle {
    defer { nextHandle += 1 }
    return ConversationHandle(nextHandle)
  }

  /// Every open store, oldest first.
  public var openHandles: [ConversationHandle] { open.keys.sorted() }
}

extension ClientState: ChangeTracking {
  /// Rows of a client are its open stores: which opened, closed or changed conversation.
  public func changes(since old: ClientState) -> ChangeSet<ConversationHandle> {
    var changes = ChangeSet<ConversationHandle>()
    for handle in Set(open.keys).union(old.open.keys) {
      let before = old.open[handle]
      let after = open[handle]
      if before == nil, after != nil {
        changes.inserted.insert(handle)
      } else if before != nil, after == nil {
        changes.removed.insert(handle)
      } else if before != after {
        changes.updated.insert(handle)
      }
    }
    return changes
  }
}
