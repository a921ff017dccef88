import Foundation

/// The limits, lifetimes and backoff settings of a conversation, as one value passed to the reducers.
///
/// Every setting has a documented default that fits the common support and agent-chat protocols; change
/// them to match your server:
///
/// ```swift
/// var policy = ChatPolicy()
/// policy.maximumAttachments = 1  // one file per message…
/// policy.maximumAttachmentBytes = 10 * 1024 * 1024  // …of at most 10 MiB
/// policy.pollInterval = 1  // poll for new messages while realtime is down
/// let reducer = ConversationReducer(policy: policy)
/// ```
///
/// Its `Codable` form names every setting and is not kept stable across versions (a new setting is a new
/// required key): store your own settings, not an encoded policy.
public struct ChatPolicy: Hashable, Sendable, Codable {
  /// Attachments one message may carry (default 4); more is refused with `TOO_MANY_ATTACHMENTS`.
  public var maximumAttachments: Int
  /// Bytes one attachment may have (default 8 MiB); more is refused with `ATTACHMENT_TOO_LARGE`.
  public var maximumAttachmentBytes: Int
  /// MIME types an attachment may have, exactly or as `type/*` (default nil: any); others are refused
  /// with `ATTACHMENT_TYPE_NOT_ALLOWED`.
  public var allowedAttachmentTypes: Set<String>?
  /// Characters a message's text may have (default 10,000), counted as Swift `Character`s (what a person
  /// sees as one character; an emoji with modifiers counts once); more is refused with `MESSAGE_TOO_LONG`.
  public var maximumTextLength: Int
  /// Messages a history page may ask for (default 1…100); other sizes are refused with `INVALID_PAGE_SIZE`.
  public var historyPageSizes: ClosedRange<Int>
  /// Conversations a list page may ask for (default 1…100); other sizes are refused with
  /// `INVALID_PAGE_SIZE`.
  public var listPageSizes: ClosedRange<Int>
  /// Client-executed tool calls one reply may make (default 10); the next one stops the reply with
  /// `TOOL_LOOP_LIMIT`.
  public var clientToolCallLimit: Int
  /// UTF-8 bytes a tool result's JSON may have (default 20,000); a larger one is `TOOL_RESULT_TOO_LARGE`.
  public var maximumToolResultBytes: Int
  /// UTF-8 bytes a `HostOperation`'s payload may have, written as compact JSON (default 64 KiB); a larger
  /// one is refused by `ChatClient.enqueue` with `OPERATION_TOO_LARGE`. The outbox's own bound on everything it
  /// holds (`ChatClientOptions.outboxLimits`, 2 MiB by default) applies too.
  public var maximumHostOperationBytes: Int
  /// Seconds an app-side tool handler may run (default 25, on the runtime's clock); a later result is
  /// reported to the agent as a `TIMEOUT` error instead.
  public var toolDeadline: Double
  /// Seconds a typing indicator lasts without a refresh (default 6), counted on the local clock.
  public var typingLifetime: Double
  /// Waits between reconnect attempts (default 1 s doubling to 30 s, full jitter).
  public var reconnectBackoff: Backoff
  /// Waits between attempts to catch up after a failed sync (default 2 s doubling to 60 s, full jitter).
  public var syncBackoff: Backoff
  /// Waits between attempts to upload the durable outbox's batch after a failure, and to send the user's
  /// contact details again (default 30 s doubling to 240 s, full jitter), on the client's clock. A server's
  /// `Retry-After` replaces it for the attempt it answers, up to `maximumRetryAfter`.
  public var outboxBackoff: Backoff
  /// Seconds a deleted conversation can be taken back (`ConversationListAction.undoDelete`) before the
  /// deletion is sent (default 5, on the store's clock); 0 sends it at once.
  public var deleteUndoWindow: Double
  /// What a new message in an archived conversation does to it (default `.returnsToList`).
  public var archivedOnNewMessage: ArchivedConversationActivity
  /// Seconds apart a server copy of the user's message may be from the local one and still be matched
  /// to it by author and text, for servers that never return the message's ID (default 300).
  public var echoMatchWindow: Double
  /// Attempts to resume a reply whose stream dropped before giving up on it (default 5; 0 never resumes).
  /// Only a reply whose stream numbers its events (`StreamingReply.resumePosition`) is resumed, from its
  /// last position, waiting `reconnectBackoff` before each attempt; the count starts over whenever the
  /// resumed stream brings a new event. A reply that cannot be resumed ends `truncated` with its text kept.
  public var replyResumeAttempts: Int
  /// Seconds between polls for new messages while the realtime connection is down, or always in
  /// `ConnectionMode.polling` (default nil: no polling while realtime is down, and every
  /// `defaultPollInterval` seconds in polling mode; one common protocol polls every second).
  public var pollInterval: Double?
  /// Whether conversations keep a realtime connection or poll (default `.realtime`). See `ConnectionMode`.
  public var connectionMode: ConnectionMode
  /// How a streaming reply's text is shown (`StreamingReply.presentedText`): as it arrives (default), at a
  /// steady pace, or only once finished. The state keeps the full text either way.
  public var replyPresentation: ReplyPresentation
  /// Where a message written while offline waits: in the conversation until the connection is back
  /// (default), or in a durable outbox, uploaded in ordered batches (`.outbox`, what `ChatClient` uses with
  /// storage: the store emits `enqueueOutbox` and the message shows `queued` once it is on disk).
  public var offlineDelivery: OfflineDelivery
  /// What a `send` does while the agent is answering (`ConversationState.isAnswering`) in a conversation
  /// the AI agent has (`ConversationStatus.ongoing`; a person who took it over gets every message at once):
  /// wait in `ConversationState.followUps` (`.queue`, the default), go at once beside the running reply
  /// (`.overlap`), or stop the running reply and go (`.stopAndSend`). See `FollowUpQueue`.
  public var whileAnswering: FollowUpPolicy

  // What a server may make the client do or hold. Every duration and size that comes from outside is
  // bounded by one of these, in one place, before it reaches a timer or a buffer.

  /// Seconds a server's `Retry-After` (or any wait it asks for) may hold requests back (default 600). A
  /// larger or negative value is clamped by `serverDelay(_:)` (`1e19` seconds or a date in the year 9999
  /// hold sends for this long, never for good); an unreadable one (NaN) is no hint at all.
  public var maximumRetryAfter: Double
  /// Seconds a realtime connection must stay open before it counts as healthy when it delivers no event
  /// (default 10). A connection counts as healthy once it delivers an event or has stayed open this long;
  /// until then its loss counts as one more failed attempt, so a server that accepts and drops at once is
  /// retried at the pace of `reconnectBackoff`, never in a loop.
  public var healthyConnectionAfter: Double
  /// UTF-8 bytes a reply's text, reasoning and streamed tool input together may reach (default 4 MiB). The delta that would pass it ends the reply
  /// `failed` with `REPLY_TOO_LARGE`, keeping the text that arrived before it, and closes its stream.
  public var maximumReplyBytes: Int
  /// Tool calls, run by the server or by the app, that one reply may carry (default 128); the next one
  /// ends the reply like `maximumReplyBytes` does.
  public var maximumToolCallsPerReply: Int
  /// Parts (text, reasoning, tool call, source, file, data) that one reply may have (default 1024); the
  /// next part started or added ends the reply like `maximumReplyBytes` does, except a whole tool call,
  /// which is kept in `toolCalls` without a part. A data part replaced in place counts once.
  public var maximumPartsPerReply: Int
  /// How the app's tool results reach the agent (default `duringReply`). An `AgentBackend` (AG-UI, the AI
  /// SDK, OpenAI) decides this itself (`ChatPolicy.following(_:)`, applied by `ChatStore(backend:)` and
  /// `ChatClient`); set it only for a `ChatBackend` of your own whose runs end with the app's calls pending.
  public var toolResultDelivery: ToolResultDelivery
  /// Forward pages one conversation may have for a `ForwardPagedHistory` (default 1,000: 50,000 messages
  /// at 50 a page). Finding the newest page of a server that pages forward means walking from the oldest;
  /// a walk that would need more pages (a server whose next cursor never ends) fails the load with
  /// `INVALID_RESPONSE` after this many requests, rather than walking for good.
  public var maximumHistoryWalkPages: Int
  /// Conversations whose forward cursors a `ForwardPagedHistory` remembers (default 16; each holds at most
  /// `maximumHistoryWalkPages` cursors). Past it, the one paged least recently is forgotten: its next page
  /// walks from the oldest again. 0 remembers none, so every page walks.
  public var rememberedHistoryWalks: Int

  // The transport's limits, read by the HTTP backends (`HTTPChatBackend(baseURL:policy:token:)`).

  /// Seconds a request may take to get its response head, and a JSON answer to arrive whole (default 30):
  /// a body dripped a byte at a time fails with `TIMEOUT` once this has passed.
  public var requestTimeout: Double
  /// Seconds a stream (a reply, the realtime connection) may go without completing a line (default 60).
  /// A line is an event's field, a comment or a heartbeat; bytes that never end a line do not keep a
  /// stream alive. Servers send heartbeats more often than this.
  public var idleTimeout: Double
  /// Bytes one server-sent event may have, and one line of a stream (default 1 MiB). A larger one closes
  /// the stream with `EVENT_TOO_LARGE`; a reply keeps what arrived before it.
  public var maximumEventBytes: Int
  /// Bytes a JSON answer (a history page, a list page) may have after decompression (default 8 MiB). A
  /// larger one fails the call with `RESPONSE_TOO_LARGE` as soon as the limit is passed, so a gzip body that
  /// inflates to gigabytes costs this much memory at most.
  public var maximumAnswerBytes: Int
  /// Bytes of an error's body that are read for its code and message (default 64 KiB); the rest is not.
  public var maximumErrorBodyBytes: Int
  /// Bytes a stream may have received that the store has not yet read (default 4 MiB). Bytes are read as
  /// fast as the store takes them, and the deltas that piled up meanwhile reach it as one; a server that
  /// outruns the store by more than this fails the stream with `RESPONSE_TOO_LARGE`. (Linux's
  /// FoundationNetworking cannot pause a transfer, so this bound stands in for TCP back pressure.)
  public var maximumUnreadBytes: Int

  /// The defaults described on each setting.
  public init(
    maximumAttachments: Int = 4, maximumAttachmentBytes: Int = 8 * 1024 * 1024,
    allowedAttachmentTypes: Set<String>? = nil, maximumTextLength: Int = 10_000,
    historyPageSizes: ClosedRange<Int> = 1...100, listPageSizes: ClosedRange<Int> = 1...100,
    clientToolCallLimit: Int = 10, maximumToolResultBytes: Int = 20_000, toolDeadline: Double = 25,
    typingLifetime: Double = 6,
    reconnectBackoff: Backoff = Backoff(base: 1, cap: 30), syncBackoff: Backoff = Backoff(base: 2, cap: 60),
    outboxBackoff: Backoff = Backoff(base: 30, cap: 240),
    echoMatchWindow: Double = 300, pollInterval: Double? = nil, replyPresentation: ReplyPresentation = .stream,
    offlineDelivery: OfflineDelivery = .waitInConversation, whileAnswering: FollowUpPolicy = .queue,
    maximumRetryAfter: Double = 600,
    healthyConnectionAfter: Double = 10, maximumReplyBytes: Int = 4 * 1024 * 1024,
    maximumToolCallsPerReply: Int = 128, requestTimeout: Double = 30, idleTimeout: Double = 60,
    maximumEventBytes: Int = 1024 * 1024, maximumAnswerBytes: Int = 8 * 1024 * 1024,
    maximumErrorBodyBytes: Int = 64 * 1024, maximumUnreadBytes: Int = 4 * 1024 * 1024,
    maximumPartsPerReply: Int = 1024, toolResultDelivery: ToolResultDelivery = .duringReply,
    replyResumeAttempts: Int = 5, connectionMode: ConnectionMode = .realtime,
    maximumHostOperationBytes: Int = 64 * 1024, maximumHistoryWalkPages: Int = 1000, rememberedHistoryWalks: Int = 16,
    deleteUndoWindow: Double = 5, archivedOnNewMessage: ArchivedConversationActivity = .returnsToList
  ) {
    self.deleteUndoWindow = deleteUndoWindow
    self.archivedOnNewMessage = archivedOnNewMessage
    self.connectionMode = connectionMode
    self.maximumHostOperationBytes = maximumHostOperationBytes
    self.maximumHistoryWalkPages = maximumHistoryWalkPages
    self.rememberedHistoryWalks = rememberedHistoryWalks
    self.replyResumeAttempts = replyResumeAttempts
    self.maximumPartsPerReply = maximumPartsPerReply
    self.toolResultDelivery = toolResultDelivery
    self.maximumRetryAfter = maximumRetryAfter
    self.healthyConnectionAfter = healthyConnectionAfter
    self.maximumReplyBytes = maximumReplyBytes
    self.maximumToolCallsPerReply = maximumToolCallsPerReply
    self.requestTimeout = requestTimeout
    self.idleTimeout = idleTimeout
    self.maximumEventBytes = maximumEventBytes
    self.maximumAnswerBytes = maximumAnswerBytes
    self.maximumErrorBodyBytes = maximumErrorBodyBytes
    self.maximumUnreadBytes = maximumUnreadBytes
    self.replyPresentation = replyPresentation
    self.offlineDelivery = offlineDelivery
    self.whileAnswering = whileAnswering
    self.maximumAttachments = maximumAttachments
    self.maximumAttachmentBytes = maximumAttachmentBytes
    self.allowedAttachmentTypes = allowedAttachmentTypes
    self.maximumTextLength = maximumTextLength
    self.historyPageSizes = historyPageSizes
    self.listPageSizes = listPageSizes
    self.clientToolCallLimit = clientToolCallLimit
    self.maximumToolResultBytes = maximumToolResultBytes
    self.toolDeadline = toolDeadline
    self.typingLifetime = typingLifetime
    self.reconnectBackoff = reconnectBackoff
    self.syncBackoff = syncBackoff
    self.outboxBackoff = outboxBackoff
    self.echoMatchWindow = echoMatchWindow
    self.pollInterval = pollInterval
  }

  /// The most turns `ConversationState.followUps` holds (50): a send that would queue one more is refused
  /// with `TOO_MANY_FOLLOW_UPS`, nothing changed. Each is a message the user wrote while waiting; the bound
  /// keeps a stuck agent from collecting an unbounded file of them.
  public static let maximumFollowUps = 50

  /// Seconds between polls in `ConnectionMode.polling` when `pollInterval` is nil (5).
  public static let defaultPollInterval: Double = 5

  /// The seconds between polls this policy asks for: `pollInterval`, or `defaultPollInterval` in polling
  /// mode when that is nil; nil when nothing is polled (realtime mode without a `pollInterval`).
  public var pollingInterval: Double? {
    connectionMode == .polling ? pollInterval ?? Self.defaultPollInterval : pollInterval
  }

  /// A wait the server asked for (`Retry-After`, backoff advice), in seconds, clamped into
  /// 0…`maximumRetryAfter`; nil for NaN (no advice is the honest reading of an unreadable one).
  ///
  /// ```swift
  /// let longest = ChatPolicy().serverDelay(1e19)  // 600
  /// let none = ChatPolicy().serverDelay(-5)  // 0
  /// ```
  public func serverDelay(_ seconds: Double) -> Double? {
    guard !seconds.isNaN else { return nil }
    return min(max(seconds, 0), max(0, maximumRetryAfter.isNaN ? 0 : maximumRetryAfter))
  }

  /// How long work that failed waits before it goes again (an outbox batch, a list edit or deletion): the
  /// outbox's backoff for its `attempt` (`jitter` in 0…1), or the server's `retryAfter` when that is longer,
  /// clamped by `serverDelay(_:)` so that no hint holds the work longer than the policy allows. Never sooner
  /// than either.
  ///
  /// ```swift
  /// let busy = ChatError(.rateLimited, "Slow down.", status: 429, retryAfter: 120)
  /// let wait = ChatPolicy().outboxRetryDelay(attempt: 1, after: busy, jitter: 1)  // 120, not the backoff's 30
  /// ```
  public func outboxRetryDelay(attempt: Int, after error: ChatError?, jitter: Double) -> Double {
    let backoff = outboxBackoff.delay(attempt: attempt, jitter: jitter)
    guard let hint = error?.retryAfter, let server = serverDelay(hint) else { return backoff }
    return max(backoff, server)
  }

  /// The longest wait any timer is given, in seconds (30 days). `Duration` traps on waits of about
  /// 2^63 nanoseconds (292 years) and more; nothing in a chat needs a timer longer than this.
  public static let longestTimer: Double = 30 * 24 * 3600

  /// `seconds` as a timer can take it: NaN and negative waits are 0, longer ones `longestTimer`. The runtime
  /// passes every timer's wait through here before it reaches a `ChatClock` (and `SystemChatClock.sleep`
  /// every sleep); a host's own clock should do the same with waits it is given directly.
  public static func timerDelay(_ seconds: Double) -> Double {
    guard !seconds.isNaN else { return 0 }
    return min(max(seconds, 0), longestTimer)
  }

  /// The host settings that cannot work, as an `INVALID_CONFIGURATION` error naming the first one: a
  /// timeout or wait that is not a positive finite number (`maximumRetryAfter` may be 0), a byte or text
  /// limit below 1, a page size range starting below 1, a paced presentation that is not a positive finite
  /// rate. `HTTPChatBackend` checks its policy this way; call it on the policy you give a `ChatClient` or a
  /// store too (they take any policy and never trap on one, but a NaN backoff waits nothing).
  public func validate() throws(ChatError) {
    let durations: [(String, Double)] = [
      ("requestTimeout", requestTimeout), ("idleTimeout", idleTimeout), ("toolDeadline", toolDeadline),
      ("typingLifetime", typingLifetime), ("healthyConnectionAfter", healthyConnectionAfter),
      ("reconnectBackoff.base", reconnectBackoff.base), ("reconnectBackoff.cap", reconnectBackoff.cap),
      ("syncBackoff.base", syncBackoff.base), ("syncBackoff.cap", syncBackoff.cap),
      ("outboxBackoff.base", outboxBackoff.base), ("outboxBackoff.cap", outboxBackoff.cap),
    ]
    for (name, value) in durations where !(value.isFinite && value > 0) {
      throw ChatError(.invalidConfiguration, "ChatPolicy.\(name) must be a positive number of seconds; it is \(value).")
    }
    if let pollInterval, !(pollInterval.isFinite && pollInterval > 0) {
      throw ChatError(.invalidConfiguration, "ChatPolicy.pollInterval must be positive or nil; it is \(pollInterval).")
    }
    if !(deleteUndoWindow.isFinite && deleteUndoWindow >= 0) {
      throw ChatError(
        .invalidConfiguration, "ChatPolicy.deleteUndoWindow must be 0 or more seconds; it is \(deleteUndoWindow).")
    }
    if !(maximumRetryAfter.isFinite && maximumRetryAfter >= 0) {
      throw ChatError(
        .invalidConfiguration, "ChatPolicy.maximumRetryAfter must be 0 or more; it is \(maximumRetryAfter).")
    }
    if replyResumeAttempts < 0 {
      throw ChatError(
        .invalidConfiguration, "ChatPolicy.replyResumeAttempts must be 0 or more; it is \(replyResumeAttempts).")
    }
    if rememberedHistoryWalks < 0 {
      throw ChatError(
        .invalidConfiguration, "ChatPolicy.rememberedHistoryWalks must be 0 or more; it is \(rememberedHistoryWalks).")
    }
    // Counts that may be 0 on purpose (no attachments, no app-run tools) are not checked.
    let sizes: [(String, Int)] = [
      ("maximumReplyBytes", maximumReplyBytes), ("maximumEventBytes", maximumEventBytes),
      ("maximumAnswerBytes", maximumAnswerBytes), ("maximumErrorBodyBytes", maximumErrorBodyBytes),
      ("maximumUnreadBytes", maximumUnreadBytes), ("maximumTextLength", maximumTextLength),
      ("maximumPartsPerReply", maximumPartsPerReply), ("maximumHistoryWalkPages", maximumHistoryWalkPages),
      ("historyPageSizes.lowerBound", historyPageSizes.lowerBound),
      ("listPageSizes.lowerBound", listPageSizes.lowerBound),
    ]
    for (name, value) in sizes where value < 1 {
      throw ChatError(.invalidConfiguration, "ChatPolicy.\(name) must be at least 1; it is \(value).")
    }
    if case .paced(let bytesPerSecond) = replyPresentation, !(bytesPerSecond.isFinite && bytesPerSecond > 0) {
      throw ChatError(
        .invalidConfiguration, "ChatPolicy.replyPresentation's pace must be a positive number; it is \(bytesPerSecond)."
      )
    }
  }

  /// Whether `contentType` is allowed: listed exactly, or its `type/*` is listed.
  public func allowsAttachmentType(_ contentType: String) -> Bool {
    guard let allowed = allowedAttachmentTypes else { return true }
    let type = contentType.lowercased()
    if allowed.contains(type) { return true }
    guard let slash = type.firstIndex(of: "/") else { return false }
    return allowed.contains(type[..<slash] + "/*")
  }
}

/// Where messages written offline wait (see `ChatPolicy.offlineDelivery`).
public enum OfflineDelivery: Hashable, Sendable, Codable {
  /// As `pending` in the conversation; each goes out on its own send request when the connection is back.
  case waitInConversation
  /// In the durable outbox (messages of conversations the server has created): `pending` until the runtime
  /// reports it stored, then `queued`; the outbox uploads it and the server's copy confirms it. Ratings of
  /// answers, the answer to the feedback question and read-cursor moves made offline go to the outbox too
  /// (they show at once, and are undone if the server refuses them).
  case outbox
}

/// Exponential backoff with full jitter: attempt `n` waits `jitter × min(cap, base × 2^(n-1))` seconds.
public struct Backoff: Hashable, Sendable, Codable {
  /// The ceiling of the first wait, in seconds.
  public var base: Double
  /// The largest ceiling, in seconds.
  public var cap: Double

  public init(base: Double, cap: Double) {
    self.base = base
    self.cap = cap
  }

  /// The wait before attempt `attempt` (1-based). `jitter` in 0…1 comes from the caller (the runtime's
  /// random source), so reducers stay pure; outside 0…1 it is clamped, and NaN counts as 1 (the longest
  /// wait is the safe reading of a broken random source).
  public func delay(attempt: Int, jitter: Double) -> Double {
    let exponent = Double(max(0, min(attempt - 1, 30)))
    let ceiling = min(cap, base * pow(2, exponent))
    let fraction = jitter.isNaN ? 1 : min(max(jitter, 0), 1)
    return ceiling * fraction
  }
}

/// What a new message in an archived conversation does to it (`ChatPolicy.archivedOnNewMessage`).
public enum ArchivedConversationActivity: Hashable, Sendable, Codable {
  /// A message from someone else brings the conversation back into the list (unarchived, and the change
  /// sent like the user's), as mail and team chat do: an answer is not missed.
  case returnsToList
  /// It stays archived, as ChatGPT's archive does; its unread count still grows.
  case staysArchived
}

/// How the results of the app's tool calls reach the agent (see `ChatPolicy.toolResultDelivery`): the two
/// shapes agent protocols have.
public enum ToolResultDelivery: Hashable, Sendable, Codable {
  /// Posted while the reply's stream stays open (`ConversationEffect.submitToolResult`); the agent goes on
  /// in the same stream. A reply that finishes with the app's calls still running cancels them.
  case duringReply
  /// The run ends with the app's calls pending (AG-UI, the AI SDK): the answer is committed
  /// `awaitingToolResults`, the tools keep running, and once every call of the run has a result the store
  /// asks for a continuation run carrying them (`ConversationEffect.continueRun`), which continues the same
  /// answer. Bounded by `clientToolCallLimit` across the runs of one answer.
  case nextRun
}

/// How a streaming reply's text is presented to the user.
public enum ReplyPresentation: Hashable, Sendable, Codable {
  /// Every delta shows at once.
  case stream
  /// Text is released at a steady pace, driven by the store's clock, however bursty the network is. The
  /// pace counts UTF-8 bytes (one per Latin letter; a CJK character counts three).
  case paced(bytesPerSecond: Double)
  /// Nothing shows until the reply is finished; then the whole answer appears.
  case instant

  /// Seconds between two releases of paced text.
  public static let paceTick: Double = 0.05
}
