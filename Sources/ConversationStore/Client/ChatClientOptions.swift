public import ConversationState
public import Persistence

/// How a `ChatClient` is set up; every field has a default.
///
/// This is the one place a host sets what a client may do: the conversation's limits, lifetimes and
/// backoffs (`policy`, a `ChatPolicy`), the client's own (how many stores stay open, how often it looks),
/// storage's (the open window, the reply write interval) and the outbox's (`outboxLimits`). Every duration
/// is in seconds on the client's `StoreEnvironment` clock (the device's, in an app). `validate()` checks
/// them all and names the first that cannot work; the client itself takes any options and never traps on
/// one, clamping each as its documentation says.
public struct ChatClientOptions: Sendable {
  /// The workspace (app, tenant or agent deployment) whose conversations these are; part of the storage scope.
  public var workspace: String
  /// The limits, lifetimes and backoff every conversation store of the client applies.
  public var policy: ChatPolicy
  /// Where conversations, the list, drafts and the outbox are kept across launches; nil keeps everything in
  /// memory (a conversation closed for being idle is then kept in memory, the 64 most recent, until the
  /// client goes).
  public var storage: ChatStorage?
  /// How many conversation stores stay open when nobody outside the client holds them; beyond it the least
  /// recently asked-for are closed (their state written to storage first, or kept in memory) and reopened
  /// on demand. A store with work in flight (a send, a reply, a load) is not closed until it settles. The
  /// client closes them when another conversation is asked for, and, while more are open, every
  /// `idleCheckInterval`: a screen that lets go of a store tells nobody. So open stores, their tasks and
  /// files stay within this many plus those the host holds or that are busy, whatever order the host drops
  /// them in.
  public var maximumIdleConversations: Int
  /// Seconds between looks for stores to close while more than `maximumIdleConversations` are open
  /// (default 5, clamped to 0.01...3600), on the client's `StoreEnvironment` clock.
  public var idleCheckInterval: Double
  /// Hears storage failures, asynchronously and in order, on a task of its own: it may call back into the
  /// client. Writes that fail (a full disk, a folder whose permissions changed: kind `io`) are told once,
  /// when writing starts failing, not once per write; `onStorageRecovered` says when it works again. A file
  /// that could not be read and was moved aside is told each time. The chat goes on in memory meanwhile:
  /// a message written offline that the outbox could not keep fails `STORAGE_FAILED` (retry it) instead of
  /// showing `queued`, and what was stored before stays readable.
  public var onStorageError: (@Sendable (PersistenceError) -> Void)?
  /// Hears that writing works again after a failure `onStorageError` reported, once per outage.
  public var onStorageRecovered: (@Sendable (StorageRecovery) -> Void)?
  /// Hears what became of each operation the host queued with `ChatClient.enqueue`: accepted by the server,
  /// or refused (by the server, by the outbox's bounds, by a sign-out), once each, in the order they settle,
  /// asynchronously on a task of its own (it may call back into the client). Set it when the client is made:
  /// operations queued in an earlier run settle in this one.
  public var onHostOperation: (@Sendable (HostOperationOutcome) -> Void)?
  /// Where the client reports its connection, its conversations' catch-up and its outbox uploads
  /// (`ClientDiagnostic`: codes, the device's time and numbers, never text, IDs or credentials); nil, the
  /// default, reports nothing and costs nothing. Make one with `ClientDiagnostic.makeStream(bufferingNewest:)`.
  public var diagnostics: ClientDiagnostic.Sink?
  /// The durable outbox's bounds (2,000 operations, 2 MiB, 7 days by default). Past one, the oldest
  /// waiting operations are dropped: a message among them shows `failed` with `OUTBOX_EVICTED` (retry or
  /// discard it, as any failed message), a host operation is reported to `onHostOperation`.
  public var outboxLimits: OutboxLimits
  /// How many of a stored conversation's newest messages it opens with and keeps in its journal (default
  /// 50, at least 1); older ones are paged from disk as the user scrolls up, and an agent request that needs
  /// more reads them from there too.
  public var storageWindow: Int
  /// Seconds, on the device's clock, between writes of a streaming reply's text to disk (default 0.25,
  /// clamped to 0...60; NaN counts as the default): a kill loses at most this much of a reply's text. Every
  /// other change is written as it happens.
  public var replyWriteInterval: Double

  public init(
    workspace: String = "default", policy: ChatPolicy = ChatPolicy(), storage: ChatStorage? = nil,
    maximumIdleConversations: Int = 8, onStorageError: (@Sendable (PersistenceError) -> Void)? = nil,
    onHostOperation: (@Sendable (HostOperationOutcome) -> Void)? = nil, diagnostics: ClientDiagnostic.Sink? = nil,
    outboxLimits: OutboxLimits = OutboxLimits(), idleCheckInterval: Double = 5,
    onStorageRecovered: (@Sendable (StorageRecovery) -> Void)? = nil,
    storageWindow: Int = ScopeDirectory.defaultWindow, replyWriteInterval: Double = defaultReplyWriteInterval
  ) {
    self.storageWindow = storageWindow
    self.replyWriteInterval = replyWriteInterval
    self.onStorageRecovered = onStorageRecovered
    self.idleCheckInterval = idleCheckInterval
    self.outboxLimits = outboxLimits
    self.workspace = workspace
    self.policy = policy
    self.storage = storage
    self.maximumIdleConversations = maximumIdleConversations
    self.onStorageError = onStorageError
    self.onHostOperation = onHostOperation
    self.diagnostics = diagnostics
  }
}

extension ChatClientOptions {
  /// The settings that cannot work, as an `INVALID_CONFIGURATION` error naming the first: the policy's
  /// (`ChatPolicy.validate()`), then a negative `maximumIdleConversations`, an `idleCheckInterval` outside
  /// 0.01...3600 seconds, a `storageWindow` below 1, a `replyWriteInterval` outside 0...60 seconds, and
  /// outbox bounds below 1 (operations, bytes) or not a positive number of seconds (age).
  ///
  /// ```swift
  /// var options = ChatClientOptions(workspace: "acme", storageWindow: 200)
  /// options.policy.outboxBackoff = Backoff(base: 10, cap: 120)
  /// try options.validate()  // INVALID_CONFIGURATION, naming the first setting that cannot work
  /// let client = ChatClient(backend: backend, options: options)
  /// ```
  public func validate() throws(ChatError) {
    try policy.validate()
    func seconds(_ range: ClosedRange<Double>) -> String {
      String(format: "%g to %g seconds", range.lowerBound, range.upperBound)
    }
    func refuse(_ name: String, _ rule: String, _ value: Any) -> ChatError {
      ChatError(.invalidConfiguration, "ChatClientOptions.\(name) must be \(rule); it is \(value).")
    }
    if maximumIdleConversations < 0 { throw refuse("maximumIdleConversations", "0 or more", maximumIdleConversations) }
    if !ClientReducer.idleCheckIntervals.contains(idleCheckInterval) {
      throw refuse("idleCheckInterval", seconds(ClientReducer.idleCheckIntervals), idleCheckInterval)
    }
    if storageWindow < 1 { throw refuse("storageWindow", "at least 1", storageWindow) }
    if !Self.replyWriteIntervals.contains(replyWriteInterval) {
      throw refuse("replyWriteInterval", seconds(Self.replyWriteIntervals), replyWriteInterval)
    }
    if outboxLimits.maximumOperations < 1 {
      throw refuse("outboxLimits.maximumOperations", "at least 1", outboxLimits.maximumOperations)
    }
    if outboxLimits.maximumBytes < 1 {
      throw refuse("outboxLimits.maximumBytes", "at least 1", outboxLimits.maximumBytes)
    }
    if !(outboxLimits.maximumAge.isFinite && outboxLimits.maximumAge > 0) {
      throw refuse("outboxLimits.maximumAge", "a positive number of seconds", outboxLimits.maximumAge)
    }
  }

  /// `storageWindow` as storage takes it: at least 1.
  var openWindow: Int { max(1, storageWindow) }
  /// The reply write intervals storage takes; one outside is clamped into it.
  static let replyWriteIntervals: ClosedRange<Double> = 0...60
  /// The seconds between writes of a streaming reply's text when none is given (0.25).
  public static let defaultReplyWriteInterval = 0.25

  /// `replyWriteInterval` as storage takes it: clamped into `replyWriteIntervals`, NaN as the default.
  var openReplyWriteInterval: Double {
    let range = Self.replyWriteIntervals
    return replyWriteInterval.isNaN
      ? Self.defaultReplyWriteInterval : min(range.upperBound, max(range.lowerBound, replyWriteInterval))
  }
}

extension ScopeDirectory {
  /// Conversation `id`'s file, opened with the client's window and reply write interval.
  func conversation(_ id: ConversationID?, as options: ChatClientOptions) throws(PersistenceError) -> ConversationFile {
    try conversation(id, replyWriteInterval: options.openReplyWriteInterval, window: options.openWindow)
  }
}
