import Foundation

/// The limits, lifetimes and backoff settings of a conversation, as one value passed to the reducers.
///
/// Every setting has a documented default that fits the common support and agent-chat protocols; change
/// them to match your server:
///
/// ```swift
/// var policy = ChatPolicy()
/// policy.maximumAttachments = 1                        // one file per message…
/// policy.maximumAttachmentBytes = 10 * 1024 * 1024     // …of at most 10 MiB
/// policy.pollInterval = 1                              // poll for new messages while realtime is down
/// let reducer = ConversationReducer(policy: policy)
/// ```
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
  /// Seconds an app-side tool handler may run (default 25, on the runtime's clock); a later result is
  /// reported to the agent as a `TIMEOUT` error instead.
  public var toolDeadline: Double
  /// Seconds a typing indicator lasts without a refresh (default 6), counted on the local clock.
  public var typingLifetime: Double
  /// Waits between reconnect attempts (default 1 s doubling to 30 s, full jitter).
  public var reconnectBackoff: Backoff
  /// Waits between attempts to catch up after a failed sync (default 2 s doubling to 60 s, full jitter).
  public var syncBackoff: Backoff
  /// Seconds apart a server copy of the user's message may be from the local one and still be matched
  /// to it by author and text, for servers that never return the message's ID (default 300).
  public var echoMatchWindow: Double
  /// Seconds between polls for new messages while the realtime connection is down (default nil: no
  /// polling; one common protocol polls every second).
  public var pollInterval: Double?
  /// How a streaming reply's text is shown (`StreamingReply.presentedText`): as it arrives (default), at a
  /// steady pace, or only once finished. The state keeps the full text either way.
  public var replyPresentation: ReplyPresentation
  /// Where a message written while offline waits: in the conversation until the connection is back
  /// (default), or in a durable outbox, uploaded in ordered batches (`.outbox`, what `ChatClient` uses with
  /// storage: the store emits `enqueueOutbox` and the message shows `queued` once it is on disk).
  public var offlineDelivery: OfflineDelivery

  /// The defaults described on each setting.
  public init(
    maximumAttachments: Int = 4, maximumAttachmentBytes: Int = 8 * 1024 * 1024,
    allowedAttachmentTypes: Set<String>? = nil, maximumTextLength: Int = 10_000,
    historyPageSizes: ClosedRange<Int> = 1...100, listPageSizes: ClosedRange<Int> = 1...100,
    clientToolCallLimit: Int = 10, maximumToolResultBytes: Int = 20_000, toolDeadline: Double = 25,
    typingLifetime: Double = 6,
    reconnectBackoff: Backoff = Backoff(base: 1, cap: 30), syncBackoff: Backoff = Backoff(base: 2, cap: 60),
    echoMatchWindow: Double = 300, pollInterval: Double? = nil, replyPresentation: ReplyPresentation = .stream,
    offlineDelivery: OfflineDelivery = .waitInConversation
  ) {
    self.replyPresentation = replyPresentation
    self.offlineDelivery = offlineDelivery
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
    self.echoMatchWindow = echoMatchWindow
    self.pollInterval = pollInterval
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
