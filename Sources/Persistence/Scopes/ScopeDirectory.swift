public import ConversationState

/// One scope's directory: its conversations, its conversation list and its outbox. (`StorageScope` names
/// whose data it is; this is where that data is.)
///
/// Get it from `ChatStorage.scope(_:)`. Open each file once per process and keep it while the conversation
/// (or list, or outbox) is in use: a file object is the only writer of its file.
public struct ScopeDirectory: Sendable {
  /// Whose data this is.
  public let scope: StorageScope
  /// The scope's directory (mode 0700).
  public let directory: String
  let events: StorageEvents

  /// The file of conversation `conversationID` (nil: the new conversation not yet created on the server,
  /// which moves to its ID's file once it has one). Reads what is stored; an unreadable file is moved aside
  /// and reported in `restoreError`, and the conversation starts clean.
  ///
  /// `replyWriteInterval` (seconds of the clock passed to `persist`) spaces the writes of streamed text.
  /// `window` is how many of the newest committed messages the conversation opens with (at least 1): the
  /// rest stay on disk until `loadHistory` pages them in (`HistoryPaging.hasStoredHistory`). Make it at
  /// least the page size the UI first shows.
  public func conversation(
    _ conversationID: ConversationID?, replyWriteInterval: Double = 0.25, window: Int = Self.defaultWindow
  ) throws(PersistenceError) -> ConversationFile {
    let directory = "\(directory)/conversations"
    try FileSystem.createDirectory(directory)
    return try ConversationFile(
      directory: directory, conversationID: conversationID, replyWriteInterval: replyWriteInterval,
      window: window, events: events)
  }

  /// How many of the newest messages a conversation opens with when the caller does not say.
  public static let defaultWindow = 50

  /// Deletes the stored copy of one conversation (for example when the server says it no longer exists):
  /// its file and its archived messages.
  public func removeConversation(_ conversationID: ConversationID?) throws(PersistenceError) {
    let directory = "\(directory)/conversations"
    try FileSystem.removeTree(ConversationWriter.path(in: directory, for: conversationID))
    guard let conversationID else { return }
    var isDirectory = false
    guard FileSystem.exists("\(directory)/\(MessageArchive.fileName)", isDirectory: &isDirectory) else { return }
    try SharedArchive.open(in: directory, events: events).with { archive throws(PersistenceError) in
      try archive.removeConversation(conversationID)
    }
  }

  /// Copies the archived messages of `conversationID` into `other`'s archive (a guest's conversation going
  /// on under an account): the older history a conversation pages from disk goes with it. O(history).
  package func copyArchivedMessages(of conversationID: ConversationID?, to other: ScopeDirectory)
    throws(PersistenceError)
  {
    guard let conversationID else { return }
    let directory = "\(directory)/conversations"
    var isDirectory = false
    guard FileSystem.exists("\(directory)/\(MessageArchive.fileName)", isDirectory: &isDirectory) else { return }
    let destination = "\(other.directory)/conversations"
    try FileSystem.createDirectory(destination)
    try MessageArchive(directory: directory).copy(conversationID, to: MessageArchive(directory: destination))
  }

  /// Searches the stored messages of this scope: all conversations, or only `conversationID`'s. A page of
  /// up to `limit` results, newest first; pass `page.next` as `after` for the next one.
  ///
  /// ```swift
  /// let page = try scope.search("refund order")  // messages with a word starting "refund" and one "order"
  /// for result in page.results { print(result.conversationID, result.message.text[result.matches[0]]) }
  /// ```
  ///
  /// What is searched: the text of committed messages (confirmed by the server, or finished replies) that
  /// were persisted in this scope, kept current as they are written, edited and deleted. See `SearchWords`
  /// for how the words are read; throws `tooLarge` for too many or too long words. O(matches) through a
  /// full-text index, never a scan; it reads the disk, so call it off the main thread.
  public func search(
    _ words: String, in conversationID: ConversationID? = nil, after cursor: SearchCursor? = nil, limit: Int = 20
  ) throws(PersistenceError) -> SearchPage {
    let words = try SearchWords(words)
    let directory = "\(directory)/conversations"
    var isDirectory = false
    guard FileSystem.exists("\(directory)/\(MessageArchive.fileName)", isDirectory: &isDirectory) else {
      return SearchPage(results: [], next: nil)
    }
    return try SharedArchive.open(in: directory, events: events).with { archive throws(PersistenceError) in
      try archive.search(words, in: conversationID, after: cursor, limit: limit)
    }
  }

  /// Stores the list's rows `rows` in the scope's list of every stored conversation, and deletes those of
  /// `removed` (deleted conversations): what `storedConversations(after:limit:)` pages. `ChatClient` calls it
  /// with each list snapshot's changed rows.
  public func saveListRows(_ rows: [ConversationSummary], removing removed: [ConversationID]) throws(PersistenceError) {
    guard !rows.isEmpty || !removed.isEmpty else { return }
    let directory = "\(directory)/conversations"
    try FileSystem.createDirectory(directory)
    try SharedArchive.open(in: directory, events: events).with { archive throws(PersistenceError) in
      try archive.saveRows(rows, removing: removed)
    }
  }

  /// A page of every conversation stored in this scope, for a list whose backend keeps none (an agent
  /// backend): pinned first (earliest pinned first), then by activity, newest first. `cursor` is the page's
  /// `nextCursor` before it (nil: the first page). O(page) for the first page, through an index; reads the
  /// disk, so call it off the main thread. A cursor this method did not make reads as the first page.
  ///
  /// ```swift
  /// let first = try scope.storedConversations(after: nil, limit: 30)
  /// let next = try scope.storedConversations(after: first.nextCursor, limit: 30)
  /// ```
  public func storedConversations(after cursor: PageCursor?, limit: Int) throws(PersistenceError) -> ConversationPage {
    let directory = "\(directory)/conversations"
    var isDirectory = false
    guard FileSystem.exists("\(directory)/\(MessageArchive.fileName)", isDirectory: &isDirectory) else {
      return ConversationPage(conversations: [], nextCursor: nil, hasMore: false, totalCount: 0)
    }
    let offset = cursor.flatMap { $0.rawValue.hasPrefix("stored:") ? Int($0.rawValue.dropFirst(7)) : nil } ?? 0
    let page = try SharedArchive.open(in: directory, events: events).with { archive throws(PersistenceError) in
      try archive.rows(from: offset, limit: limit)
    }
    return ConversationPage(
      conversations: page.rows, nextCursor: page.hasMore ? PageCursor("stored:\(offset + page.rows.count)") : nil,
      hasMore: page.hasMore, totalCount: page.total)
  }

  /// The stored conversation list (see `ConversationListFile`).
  public var conversationList: ConversationListFile { ConversationListFile(path: "\(directory)/list", events: events) }

  /// The person's standing approvals (see `StandingApprovalsFile`).
  public var standingApprovals: StandingApprovalsFile {
    StandingApprovalsFile(path: "\(directory)/approvals", events: events)
  }

  /// The scope's durable outbox, read from disk (an unreadable one is moved aside and reported in its
  /// `restoreError`).
  public func outbox(limits: OutboxLimits = OutboxLimits()) throws(PersistenceError) -> Outbox {
    try Outbox(path: "\(directory)/outbox", limits: limits, events: events)
  }
}

/// The name `ScopeDirectory` had, beside `StorageScope`, which named something else.
@available(*, deprecated, renamed: "ScopeDirectory")
public typealias ScopeStorage = ScopeDirectory
