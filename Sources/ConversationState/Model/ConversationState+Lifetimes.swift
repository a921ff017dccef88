public import Foundation

/// `ConversationState`'s fields grouped by how long they live, so that what a relaunch, a `clear`, a change
/// of person or a file keeps is decided by the group a field is declared in, not by lists kept by hand in
/// each place: a field added to `Run` is reset by every path that starts a run afresh, one added to `Stored`
/// is written to the conversation's file and restored from it, and the compiler checks both (each group is
/// built whole, and `ConversationMeta` encodes `Stored` whole).
///
/// | Group     | Kept by a relaunch | Kept by `clear` / `open` | Kept by a change of person | Stored |
/// |-----------|--------------------|--------------------------|----------------------------|--------|
/// | `Stored`  | yes (from the file)| no                       | no (a guest's upgrade: yes)| yes    |
/// | `Session` | who, epoch, counter| yes                      | no (the counter: yes)      | no     |
/// | `Run`     | no                 | no (connection requests) | no                         | no     |
///
/// The two fields a streamed delta changes (`streamingReply`, `agentActivity`) live on the state itself,
/// outside these groups, for speed: the reply is stored in records of its own and a relaunch resumes or
/// ends it; the activity is this run's.
extension ConversationState {
  /// The conversation: what its file keeps (the meta record; the messages and the draft have records of
  /// their own) and a relaunch brings back. `clear`, `open` and a change of person start a new one; a
  /// guest who signs in keeping the conversation keeps it.
  ///
  /// Its JSON keys are the file format's (`ConversationMeta`) and the fixtures': renaming a field renames
  /// a key on disk.
  @usableFromInline
  package struct Stored: Equatable, Sendable, Codable {
    @usableFromInline package var conversationID: ConversationID?
    @usableFromInline package var title: String?
    @usableFromInline package var status: ConversationStatus = .ongoing
    /// Its loading fields are this run's: `HistoryPaging.stored` drops them for the file, and a restore
    /// takes them from the store it lands in (`takingLoads(of:)`).
    @usableFromInline package var history = HistoryPaging()
    @usableFromInline package var readCursor: ReadCursor?
    @usableFromInline package var savedReadCursor: ServerMessageID?
    @usableFromInline package var unreadCount = 0
    @usableFromInline package var serverUnreadCount: Int?
    @usableFromInline package var feedbackMoment: FeedbackMoment?
    @usableFromInline package var hasOfferedFeedback = false
    @usableFromInline package var escalation: Escalation?
    @usableFromInline package var hasMissedMessagesGap = false
    @usableFromInline package var agentState: JSONValue?
    /// nil rather than empty, so that a conversation without any leaves the key out of its JSON and file.
    @usableFromInline package var branches: ConversationBranches?
    /// nil rather than empty, for the same reason.
    @usableFromInline package var followUps: FollowUpQueue?
    /// nil rather than empty, for the same reason.
    @usableFromInline package var approvalGrants: [ApprovalGrant]?
    /// nil rather than empty, for the same reason.
    @usableFromInline package var suggestions: Suggestions?

    package init(conversationID: ConversationID?) { self.conversationID = conversationID }

    /// What the file keeps: the history without this run's loads and what opening the file works out
    /// again.
    package var forFile: Stored {
      var kept = self
      kept.history = history.stored
      return kept
    }
  }

  /// The person's connection to the service: kept by `clear` and `open` (the person is the same), never
  /// stored, started afresh by a change of person. A relaunch keeps who is signed in, the epoch and the
  /// request counter, and a credential known to be refused.
  @usableFromInline
  package struct Session: Equatable, Sendable, Codable {
    @usableFromInline package var epoch: IdentityEpoch
    @usableFromInline package var identity: UserIdentity?
    /// Never goes back, whatever is reset: request IDs stay unique for the store's life, and a stored reply's
    /// request ID never names a request of a later run (the file keeps it).
    @usableFromInline package var requestSequence: UInt64 = 0
    @usableFromInline package var connection: ConnectionState = .idle
    @usableFromInline package var failedConnectionAttempts = 0
    @usableFromInline package var credentials: CredentialStatus = .valid
    @usableFromInline package var credentialRenewal: UInt64?
    @usableFromInline package var retryableAt: Date?
    /// The person's "always" approvals, handed in by whoever keeps them (`ChatClient`); nil rather than
    /// empty.
    @usableFromInline package var standingApprovals: [ApprovalGrant]?

    package init(epoch: IdentityEpoch, identity: UserIdentity?, requestSequence: UInt64 = 0) {
      self.epoch = epoch
      self.identity = identity
      self.requestSequence = requestSequence
    }

    /// What a relaunch keeps: who is signed in, the epoch, the request counter, a credential the server
    /// refused (the host must still provide a new one) and the person's standing approvals (handed in by the
    /// client, which may have done so before the store's `relaunched`). The connection, its backoff, a
    /// refresh in flight and a rate limit died with the run.
    package var relaunched: Session {
      var kept = Session(epoch: epoch, identity: identity, requestSequence: requestSequence)
      kept.standingApprovals = standingApprovals
      if case .needed = credentials { kept.credentials = credentials }
      return kept
    }

    /// `identity` signed in where this session's person was: a new epoch fences the old one's requests,
    /// and the credential, its refresh and a rate limit were the old person's. The connection stays as it is
    /// for the caller to restart.
    package func signedIn(_ identity: UserIdentity) -> Session {
      var next = Session(epoch: epoch.next, identity: identity, requestSequence: requestSequence)
      next.connection = connection
      return next
    }
  }

  /// This run's bookkeeping: what is in flight and what it is waiting for. Never stored; a relaunch, a
  /// `clear` and a change of person start it afresh (a `clear` keeps the connection's own requests).
  @usableFromInline
  package struct Run: Equatable, Sendable, Codable {
    @usableFromInline package var requests: [RequestID: PendingRequest] = [:]
    @usableFromInline package var typing: [ParticipantID: Date] = [:]
    @usableFromInline package var isUserTyping = false
    @usableFromInline package var userError: ChatError?
    @usableFromInline package var backgroundError: ChatError?
    @usableFromInline package var failedSyncAttempts = 0
    @usableFromInline package var acceptedRatings: [ClientMessageID: AcceptedRating] = [:]
    @usableFromInline package var resentAfterReload: Set<ClientMessageID> = []
    @usableFromInline package var regenerateAfterReload: ClientMessageID?
    @usableFromInline package var outboxRecording: Set<ClientMessageID> = []
    @usableFromInline package var isRestoring = false
    @usableFromInline package var needsAgentStateSnapshot = false
    @usableFromInline package var awaitingRun: RequestID?
    @usableFromInline package var continuationAwaitingStorage: ClientMessageID?
    /// nil rather than empty, so that a state without any leaves the key out of its JSON.
    @usableFromInline package var overlappingReplies: [StreamingReply]?

    package init() {}

    /// What a `clear` keeps: the connection's own requests (the live connection and a credential refresh
    /// in flight belong to the person, not to the conversation).
    package var cleared: Run {
      var kept = Run()
      kept.requests = requests.filter { $0.value == .connect || $0.value == .credentials }
      return kept
    }

    /// What a guest's sign-in keeps of the conversation's run, whose requests it has cancelled: what the
    /// user is shown (errors), the outbox's hand-overs and the agent's state in flight; not what belonged to
    /// the guest's requests (typing, ratings in flight, a regeneration waiting for a reload).
    package var signedIn: Run {
      var kept = self
      kept.typing = [:]
      kept.isUserTyping = false
      kept.acceptedRatings = [:]
      kept.regenerateAfterReload = nil
      return kept
    }
  }
}

extension ConversationState {
  /// A new conversation for `session`'s person, with `run` in flight: what `clear` and `open` start.
  package init(session: Session, run: Run) {
    self.init(epoch: session.epoch, identity: session.identity)
    cold.value.session = session
    cold.value.run = run
  }

  /// What the conversation's file keeps (`Stored`).
  @inlinable package var stored: Stored {
    _read { yield cold.value.stored }
    _modify { yield &cold.value.stored }
  }

  /// The person's connection (`Session`).
  @inlinable package var session: Session {
    _read { yield cold.value.session }
    _modify { yield &cold.value.session }
  }

  /// This run's bookkeeping (`Run`).
  @inlinable package var run: Run {
    _read { yield cold.value.run }
    _modify { yield &cold.value.run }
  }
}

extension HistoryPaging {
  /// What a conversation's file keeps: no load in flight, and nothing opening the file works out again
  /// (whether older messages are on disk, what this run trimmed or skipped).
  package var stored: HistoryPaging {
    var kept = self
    kept.dropRequests()
    kept.isLoadingStored = false
    kept.isLoadingNewer = false
    kept.hasStoredHistory = false
    kept.trimmedBefore = nil  // this run's, like the gap: a reopened conversation shows its newest page
    kept.newerGap = nil
    return kept
  }

  /// The loads in flight of `other` (this run's), in place of this one's: a restored conversation keeps
  /// what the store it lands in is loading.
  package mutating func takeLoads(of other: HistoryPaging) {
    loadingRequest = other.loadingRequest
    requestedCursor = other.requestedCursor
    isLoadingStored = other.isLoadingStored
    isLoadingNewer = other.isLoadingNewer
  }

  /// Forgets the server's page in flight: its request is gone (a relaunch, a change of person). Reads of
  /// stored pages stay: they come from this device's disk whoever is signed in.
  package mutating func dropRequests() {
    loadingRequest = nil
    requestedCursor = nil
  }
}
