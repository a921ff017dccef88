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
  /// The user's changes the server has not confirmed yet, shown in the rows already; one per conversation
  /// and field, in the order made. Stored with the list, so they are sent again after a relaunch
  /// (`resumeEdits`).
  public var edits: [PendingListEdit]
  /// Deletions the server has not confirmed yet; their rows are out of `conversations`.
  public var deleting: [PendingDelete]
  /// Conversations deleted (here, or reported deleted): a late page or event never lists them again. Grows
  /// by one per deletion; cleared with the list.
  public var deleted: Set<ConversationID>
  /// Whether the list shows the archived conversations (`shown`) instead of the others.
  public var showsArchived: Bool

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
    edits = []
    deleting = []
    deleted = []
    showsArchived = false
  }

  /// Reads a list; what the managed list added (edits, deletions, the filter) is optional, so a list file
  /// written before reads as it was.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    conversations = try container.decode(ConversationList.self, forKey: .conversations)
    loading = try container.decodeIfPresent(Loading.self, forKey: .loading)
    hasMore = try container.decode(Bool.self, forKey: .hasMore)
    cursor = try container.decodeIfPresent(PageCursor.self, forKey: .cursor)
    totalCount = try container.decodeIfPresent(Int.self, forKey: .totalCount)
    hasLoaded = try container.decode(Bool.self, forKey: .hasLoaded)
    error = try container.decodeIfPresent(ChatError.self, forKey: .error)
    epoch = try container.decode(IdentityEpoch.self, forKey: .epoch)
    requestSequence = try container.decode(UInt64.self, forKey: .requestSequence)
    edits = try container.decodeIfPresent([PendingListEdit].self, forKey: .edits) ?? []
    deleting = try container.decodeIfPresent([PendingDelete].self, forKey: .deleting) ?? []
    deleted = try container.decodeIfPresent(Set<ConversationID>.self, forKey: .deleted) ?? []
    showsArchived = try container.decodeIfPresent(Bool.self, forKey: .showsArchived) ?? false
  }

  /// The rows a list screen shows, in order: without `showsArchived`, pinned rows first (earliest pinned
  /// first), then the others by activity, archived ones left out; with it, only the archived rows, by
  /// activity. O(n): read it once per snapshot.
  ///
  /// ```swift
  /// for row in snapshot.state.shown { sidebar.add(row.title, pinned: row.isPinned) }
  /// ```
  public var shown: [ConversationSummary] {
    if showsArchived { return conversations.filter(\.isArchived) }
    var pinned: [ConversationSummary] = []
    var others: [ConversationSummary] = []
    for row in conversations where !row.isArchived {
      if row.isPinned { pinned.append(row) } else { others.append(row) }
    }
    pinned.sort { ($0.pinnedAt ?? .distantPast, $0.id.rawValue) < ($1.pinnedAt ?? .distantPast, $1.id.rawValue) }
    return pinned + others
  }

  /// The edit on its way of `field` of conversation `id`, if any.
  public func edit(of id: ConversationID, _ field: ConversationChange.Field) -> PendingListEdit? {
    edits.first { $0.conversationID == id && $0.field == field }
  }

  /// Whether conversation `id` is being deleted or was deleted: no page or event lists it again.
  public func isDeleted(_ id: ConversationID) -> Bool {
    deleted.contains(id) || deleting.contains { $0.row.id == id }
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
    var edited = Set<String>()
    for edit in edits {
      if !edited.insert("\(edit.conversationID.rawValue)/\(edit.field)").inserted {
        violations.append("two edits of \(edit.field) of \(edit.conversationID)")
      }
      if let row = conversations[edit.conversationID], !edit.change.isShown(in: row) {
        violations.append("the row of \(edit.conversationID) does not show its edit of \(edit.field)")
      }
      if isDeleted(edit.conversationID) {
        violations.append("a deleted conversation \(edit.conversationID) has an edit")
      }
      if let sending = edit.sending, sending.requestID.epoch != epoch {
        violations.append("an edit of an old epoch is in flight")
      }
    }
    var deletions = Set<ConversationID>()
    for deletion in deleting {
      if !deletions.insert(deletion.row.id).inserted { violations.append("\(deletion.row.id) is deleted twice") }
      if seen.contains(deletion.row.id) { violations.append("\(deletion.row.id) is listed while it is deleted") }
      if deletion.requestID != nil && !deletion.isCommitted {
        violations.append("\(deletion.row.id) is sent inside its undo window")
      }
    }
    for id in deleted where seen.contains(id) { violations.append("the deleted \(id) is listed again") }
    let rows = shown
    if let firstUnpinned = rows.firstIndex(where: { !$0.isPinned }),
      rows[firstUnpinned...].contains(where: \.isPinned), !showsArchived
    {
      violations.append("a pinned row is shown below an unpinned one")
    }
    if rows.contains(where: { $0.isArchived != showsArchived }) {
      violations.append("an archived row is shown outside the archived filter, or the other way round")
    }
    return violations
  }
}

extension ConversationListState: ChangeTracking {
  /// The conversations whose rows differ from `old`'s; a reset when `old` comes from an unrelated list.
  public func changes(since old: ConversationListState) -> ChangeSet<ConversationID> {
    conversations.changes(since: old.conversations)
  }
}
