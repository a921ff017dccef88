/// Where history loading is: the cursor to the next older page and whether one exists.
///
/// `hasMoreHistory` turns false when the server says so, or when it sends a next cursor it sent before
/// (paging would loop: the load fails `INVALID_RESPONSE`); a failed load leaves it as it was.
public struct HistoryPaging: Hashable, Sendable, Codable {
  /// Messages per page when the caller does not say.
  public static let defaultPageSize = 20

  /// The server's cursor for the next older page; `nil` before the first page.
  public var cursor: PageCursor?
  /// Whether older messages remain on the server; true until a page says it is the oldest. Older
  /// messages may still be on this device (`hasStoredHistory`): bind a "load more" control to
  /// `hasOlderMessages`.
  public var hasMoreHistory: Bool
  /// The load in flight, if any. At most one history request is in flight at a time.
  public var loadingRequest: RequestID?
  /// Whether any history page has loaded, so an empty timeline can be told apart from one not loaded yet.
  public var hasLoadedFirstPage: Bool
  /// The cursor the load in flight asked from (nil for the newest page). A page whose next cursor is this
  /// one again would page in a loop: paging then ends with `INVALID_RESPONSE`.
  public var requestedCursor: PageCursor?
  /// How many messages the conversation has in all, as the last history page that said so counted them
  /// (for "12 of 230" and a scroll bar); nil until one does. The server's count, not the loaded one.
  public var totalCount: Int?
  /// Whether this device has older messages stored than the oldest one in `messages`: set by the storage
  /// that restored the conversation (`ConversationFile` opens at the newest page). While it is true,
  /// `loadHistory` reads the next older page from storage (`fetchStoredHistory`); once storage has no
  /// more, from the server at `cursor`. Storage works it out again each time it opens a conversation.
  public var hasStoredHistory = false
  /// Whether the load in flight reads from storage rather than the server.
  public var isLoadingStored = false
  /// Whether the load in flight reads newer stored messages (`loadNewerHistory`) rather than older ones.
  public var isLoadingNewer = false
  /// In this run, messages older than this one (in server order) left memory by `trimHistory`, not by a
  /// deletion: storage keeps them. Moves down as older pages come back, so a message paged in and then
  /// deleted is deleted in storage too.
  public var trimmedBefore: MessageOrderKey?
  /// Newer messages `trimNewerHistory` dropped from memory while the user reads older ones: storage keeps
  /// them and `loadNewerHistory` pages them back in. Nil when memory holds everything up to the newest
  /// message (messages that arrive meanwhile, newer than `StoredGap.through`, join `messages` as usual).
  public var newerGap: StoredGap?

  enum CodingKeys: String, CodingKey {
    case cursor, hasMoreHistory, loadingRequest, hasLoadedFirstPage, requestedCursor, totalCount
    case hasStoredHistory, isLoadingStored, isLoadingNewer, trimmedBefore, newerGap
  }

  /// Paging state; the defaults describe a conversation whose history has not been asked for yet.
  public init(
    cursor: PageCursor? = nil, hasMoreHistory: Bool = true, loadingRequest: RequestID? = nil,
    hasLoadedFirstPage: Bool = false
  ) {
    self.cursor = cursor
    self.hasMoreHistory = hasMoreHistory
    self.loadingRequest = loadingRequest
    self.hasLoadedFirstPage = hasLoadedFirstPage
  }

  /// Reads what `encode(to:)` wrote; copies and fixtures written before local-first paging have no
  /// `hasStoredHistory` or `isLoadingStored`, which read as false.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    cursor = try container.decodeIfPresent(PageCursor.self, forKey: .cursor)
    hasMoreHistory = try container.decode(Bool.self, forKey: .hasMoreHistory)
    loadingRequest = try container.decodeIfPresent(RequestID.self, forKey: .loadingRequest)
    hasLoadedFirstPage = try container.decode(Bool.self, forKey: .hasLoadedFirstPage)
    requestedCursor = try container.decodeIfPresent(PageCursor.self, forKey: .requestedCursor)
    totalCount = try container.decodeIfPresent(Int.self, forKey: .totalCount)
    hasStoredHistory = try container.decodeIfPresent(Bool.self, forKey: .hasStoredHistory) ?? false
    isLoadingStored = try container.decodeIfPresent(Bool.self, forKey: .isLoadingStored) ?? false
    isLoadingNewer = try container.decodeIfPresent(Bool.self, forKey: .isLoadingNewer) ?? false
    trimmedBefore = try container.decodeIfPresent(MessageOrderKey.self, forKey: .trimmedBefore)
    newerGap = try container.decodeIfPresent(StoredGap.self, forKey: .newerGap)
  }

  /// Writes the fields; the local-first flags only when set, so copies without them read the same.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encodeIfPresent(cursor, forKey: .cursor)
    try container.encode(hasMoreHistory, forKey: .hasMoreHistory)
    try container.encodeIfPresent(loadingRequest, forKey: .loadingRequest)
    try container.encode(hasLoadedFirstPage, forKey: .hasLoadedFirstPage)
    try container.encodeIfPresent(requestedCursor, forKey: .requestedCursor)
    try container.encodeIfPresent(totalCount, forKey: .totalCount)
    if hasStoredHistory { try container.encode(true, forKey: .hasStoredHistory) }
    if isLoadingStored { try container.encode(true, forKey: .isLoadingStored) }
    if isLoadingNewer { try container.encode(true, forKey: .isLoadingNewer) }
    try container.encodeIfPresent(trimmedBefore, forKey: .trimmedBefore)
    try container.encodeIfPresent(newerGap, forKey: .newerGap)
  }

  /// Whether a history page is being loaded, for a spinner above the oldest message.
  public var isLoadingHistory: Bool { loadingRequest != nil }

  /// Whether anything older than the oldest message shown can be loaded, from this device or the server:
  /// what a "load older messages" control binds to. After a relaunch a conversation whose whole history
  /// was read in an earlier run opens at its newest page with `hasMoreHistory` false (the server has
  /// nothing older than the stored cursor) and `hasStoredHistory` true (the rest is on the device).
  public var hasOlderMessages: Bool { hasMoreHistory || hasStoredHistory }
}

/// One page of history as the server returns it.
public struct HistoryPage: Hashable, Sendable, Codable {
  /// The page's messages, in any order; they are merged into server order and deduplicated.
  public var messages: [Message]
  /// The cursor for the next older page.
  public var nextCursor: PageCursor?
  /// False when this is the oldest page.
  public var hasMore: Bool
  /// The conversation's title, when the server sends it with the page.
  public var title: String?
  /// The conversation's status, when the server sends it with the page.
  public var status: ConversationStatus?
  /// The newest message the user has read, as the server keeps it (read on another device, or before
  /// a relaunch). The read cursor only moves forward, so an older one changes nothing.
  public var readUpTo: ServerMessageID?
  /// The unread count the server keeps, which covers messages not loaded here.
  public var unreadCount: Int?
  /// How many messages the conversation has in all, when the server says.
  public var totalCount: Int?
  /// Messages of the page the backend could not read (an unknown role, a source with a link that is not
  /// `http(s)`), each as the error that says why. They are left out, and the page's other messages, its
  /// cursor and its counts stand: one bad message never stops the history, which a page refused whole
  /// would, on every retry. The reducer reports them as a `backgroundError` (`INVALID_EVENT`) that counts
  /// them.
  public var unreadable: [ChatError]

  /// A page as the server returned it.
  public init(
    messages: [Message], nextCursor: PageCursor?, hasMore: Bool, title: String? = nil,
    status: ConversationStatus? = nil, readUpTo: ServerMessageID? = nil, unreadCount: Int? = nil,
    totalCount: Int? = nil, unreadable: [ChatError] = []
  ) {
    self.messages = messages
    self.nextCursor = nextCursor
    self.hasMore = hasMore
    self.title = title
    self.status = status
    self.readUpTo = readUpTo
    self.unreadCount = unreadCount
    self.totalCount = totalCount
    self.unreadable = unreadable
  }

  private enum CodingKeys: String, CodingKey {
    case messages, nextCursor, hasMore, title, status, readUpTo, unreadCount, totalCount, unreadable
  }

  /// Decodes the object `encode(to:)` writes; `unreadable` may be left out (pages recorded before it).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      messages: try container.decode([Message].self, forKey: .messages),
      nextCursor: try container.decodeIfPresent(PageCursor.self, forKey: .nextCursor),
      hasMore: try container.decode(Bool.self, forKey: .hasMore),
      title: try container.decodeIfPresent(String.self, forKey: .title),
      status: try container.decodeIfPresent(ConversationStatus.self, forKey: .status),
      readUpTo: try container.decodeIfPresent(ServerMessageID.self, forKey: .readUpTo),
      unreadCount: try container.decodeIfPresent(Int.self, forKey: .unreadCount),
      totalCount: try container.decodeIfPresent(Int.self, forKey: .totalCount),
      unreadable: try container.decodeIfPresent([ChatError].self, forKey: .unreadable) ?? [])
  }
}
