/// The user's list of conversations, as a plain value.
public struct ConversationListState: Equatable, Sendable, Codable {
  /// Conversations per page when the caller does not say.
  public static let defaultPageSize = 20

  /// What the request in flight is doing.
  public enum Loading: Hashable, Sendable, Codable {
    /// The first page: the list is replaced by it.
    case firstPage(RequestID)
    /// The page after `cursor`: appended, deduplicated by ID.
    case nextPage(RequestID)
    /// The loaded window again: reconciled with what is shown, keeping what was paged in.
    case refresh(RequestID)

    /// The request this load waits for; results carrying any other ID are ignored.
    public var requestID: RequestID {
      switch self {
      case .firstPage(let id), .nextPage(let id), .refresh(let id): return id
      }
    }
  }

  /// The rows shown, most recent activity first.
  public var conversations: ConversationList
  /// The list request in flight, if any; at most one is in flight at a time.
  public var loading: Loading?
  /// Whether the server has older conversations to page in; true until a page says otherwise.
  public var hasMore: Bool
  /// The server's cursor for the next page; `nil` before the first page has loaded.
  public var cursor: PageCursor?
  /// How many conversations the user has in all, as the last page that said so counted them (for "12 of
  /// 230" and a scroll bar); nil until one does. The server's count: rows created or deleted since come in
  /// with the next page that carries it.
  public var totalCount: Int?
  /// Whether any page has loaded since the list was created or cleared.
  public var hasLoaded: Bool
  /// The last list failure, shown until the user dismisses it or a page loads.
  public var error: ChatError?
  /// The signed-in identity the list belongs to; results of requests made under an older epoch are ignored.
  public var epoch: IdentityEpoch
  /// The number of the last request minted; it survives clearing the list, so request IDs are never reused.
  public var requestSequence: UInt64

  /// An empty list that has loaded nothing yet, belonging to `epoch`.
  public init(epoch: IdentityEpoch = IdentityEpoch()) {
    conversations = ConversationList()
    loading = nil
    hasMore = true
    cursor = nil
    totalCount = nil
    hasLoaded = false
    error = nil
    self.epoch = epoch
    requestSequence = 0
  }

  /// Whether a list request is in flight, for a spinner.
  public var isLoading: Bool { loading != nil }

  /// The app's unread badge: unread messages over every listed conversation.
  public var unreadTotal: Int { conversations.reduce(0) { $0 + $1.unreadCount } }

  /// Mints the next request ID of the current epoch.
  public mutating func nextRequestID() -> RequestID {
    requestSequence += 1
    return RequestID(epoch: epoch, sequence: requestSequence)
  }

  /// Every invariant this state breaks; empty when sound.
  public func invariantViolations() -> [String] {
    var violations: [String] = []
    var seen = Set<ConversationID>()
    for conversation in conversations {
      if !seen.insert(conversation.id).inserted { violations.append("conversation \(conversation.id) is listed twice") }
      if conversations[conversation.id] != conversation {
        violations.append("the index does not find conversation \(conversation.id)")
      }
      if conversation.unreadCount < 0 {
        violations.append("conversation \(conversation.id) has a negative unread count")
      }
    }
    if seen.count != conversations.count { violations.append("the list's count disagrees with its rows") }
    if let loading, loading.requestID.epoch != epoch { violations.append("a request of an old epoch is in flight") }
    return violations
  }
}

extension ConversationListState: ChangeTracking {
  /// The conversations whose rows differ from `old`'s; a reset when `old` comes from an unrelated list.
  public func changes(since old: ConversationListState) -> ChangeSet<ConversationID> {
    conversations.changes(since: old.conversations)
  }
}
