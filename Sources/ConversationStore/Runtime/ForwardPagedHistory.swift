public import ConversationState

/// Serves `ChatBackend.history(of:before:limit:)` from a server that pages forward: oldest first, from a
/// cursor, at most `serverPageLimit` messages a page (for example
/// `GET /conversations/{id}/messages?after=<cursor>&limit=50` answering `{messages, next_cursor}`).
///
/// The store opens a conversation at its newest messages and pages back from there (`HistoryPage`). A
/// server that only pages forward cannot say where its newest page is, so the first page walks there: from
/// the oldest page, one request per forward page, until a page comes back empty or without a next cursor.
/// The walk remembers the `after` cursor of every forward page it passed, so each older page after that
/// costs only the forward pages it overlaps: one request, two when it straddles two forward pages, more when
/// the store asks for more messages than the server gives a page (its pages are joined). Every forward page
/// is asked for with `serverPageLimit`, so the same cursor always brings back the same page.
///
/// - The newest page: the newest `limit` messages, taken from the pages the walk just fetched. Asked
///   again (a reload, the conversation opened again), the walk goes on from the newest forward page it
///   remembers, not from the oldest: one request when nothing is new.
/// - Older pages: the messages just before the oldest one handed out, oldest first; `hasMore` is false
///   with the conversation's first message. The cursor handed to the store names the forward page, the
///   place in it and the server ID of the oldest message handed out (`fwd1/<page>/<offset>/<server ID>`), so
///   a page whose messages moved since (the server deleted some before it) is still cut at that message.
/// - Memory: the cursors of at most `ChatPolicy.rememberedHistoryWalks` conversations (16 by default), at
///   most `ChatPolicy.maximumHistoryWalkPages` cursors each (1,000), and no messages (a call holds the
///   pages it joins, and a walk the newest pages it fetched, until it returns). Past that bound the
///   conversation paged least recently is forgotten; its next older page walks from the oldest again.
/// - A cursor of this type's own that it does not remember (the store kept it in its journal, and the app
///   was relaunched since; or it was forgotten past the bound): one walk from the oldest page, then the
///   page just before where that cursor points, so paging goes on where it left off. Any other cursor (the
///   server's own, written by a backend the host used before this one): the newest page again; the store
///   merges what it already shows, nothing is lost or shown twice, and paging goes on back from there.
///   A cursor past the pages the server has now (it deleted messages) is read as the end of its newest page.
/// - The total count: the server's, when a page gives one; else the messages the walk counted, on a page
///   that walked (on other older pages none, which leaves the store's count as it was).
/// - A server that lies fails the call with `INVALID_RESPONSE` and nothing of it reaches the store: a
///   page larger than `serverPageLimit`, a next cursor that points back at a page of the same walk, a
///   walk that would go past `ChatPolicy.maximumHistoryWalkPages` pages. A failed walk changes nothing remembered.
///   Errors the host's `fetchPage` throws pass through as they are.
///
/// Thread-safe: the store's runtime calls it from any thread, for several conversations at once. The
/// remembered cursors are only read and written under a lock; the requests are made outside it. Two calls
/// for the same conversation at once (one store makes one at a time) may each walk; the longer walk is kept.
///
/// ```swift
/// struct SupportServer: ChatBackend {
///   let api: SupportAPI  // your HTTP client
///   let pages: ForwardPagedHistory
///
///   init(api: SupportAPI, policy: ChatPolicy = ChatPolicy()) throws {
///     self.api = api
///     pages = try ForwardPagedHistory(serverPageLimit: 50, policy: policy) { conversation, after, limit in
///       // GET /conversations/{id}/messages?after=<cursor>&limit=50 → {messages, next_cursor, total_count?}
///       let answer = try await api.messages(in: conversation, after: after, limit: limit)
///       return ForwardPagedHistory.Page(
///         messages: answer.messages, nextCursor: answer.nextCursor, totalCount: answer.total)
///     }
///   }
///
///   func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws
///     -> HistoryPage
///   {
///     try await pages.history(of: conversation, before: cursor, limit: limit)
///   }
///   // send, messages(in:after:), realtime…
/// }
/// ```
public final class ForwardPagedHistory: Sendable {
  /// One page as a forward-paging server answers it.
  public struct Page: Hashable, Sendable {
    /// The page's messages, oldest first, as the server orders them; at most the `limit` asked for.
    public var messages: [Message]
    /// The cursor of the page after this one; nil (or an empty page) when this is the newest.
    public var nextCursor: String?
    /// How many messages the conversation has in all, when the server says.
    public var totalCount: Int?

    /// A page as the server answered it.
    public init(messages: [Message], nextCursor: String?, totalCount: Int? = nil) {
      self.messages = messages
      self.nextCursor = nextCursor
      self.totalCount = totalCount
    }
  }

  /// Fetches one forward page of `conversation`: the first one when `after` is nil, else the one the
  /// cursor names, of at most `limit` messages (always `serverPageLimit`). Throw as from any `ChatBackend`
  /// method.
  public typealias PageFetcher =
    @Sendable (_ conversation: ConversationID, _ after: String?, _ limit: Int) async throws -> Page

  /// The most messages the server gives a page; every forward page is asked for with this limit.
  public let serverPageLimit: Int
  let maximumWalkPages: Int
  let rememberedWalks: Int
  let fetchPage: PageFetcher
  /// Each conversation's forward cursors, as its last walk found them.
  let walks = StateLock(ForwardWalkCache())

  /// History over a forward-paging server.
  ///
  /// - Parameters:
  ///   - serverPageLimit: the most messages the server gives a page (50 for a server capped at 50); a page
  ///     with more fails with `INVALID_RESPONSE`.
  ///   - policy: `maximumHistoryWalkPages` caps a walk, `rememberedHistoryWalks` bounds the conversations
  ///     whose cursors are kept; the same value the store has.
  ///   - fetchPage: asks the server for one forward page (see `PageFetcher`).
  /// - Throws: `INVALID_CONFIGURATION` for a `serverPageLimit` below 1 or a policy that cannot work
  ///   (`ChatPolicy.validate()`).
  public init(serverPageLimit: Int, policy: ChatPolicy = ChatPolicy(), fetchPage: @escaping PageFetcher)
    throws(ChatError)
  {
    guard serverPageLimit >= 1 else {
      throw ChatError(.invalidConfiguration, "A server page holds at least 1 message; \(serverPageLimit) was given.")
    }
    try policy.validate()
    self.serverPageLimit = serverPageLimit
    maximumWalkPages = policy.maximumHistoryWalkPages
    rememberedWalks = policy.rememberedHistoryWalks
    self.fetchPage = fetchPage
  }

  /// The newest `limit` messages of `conversation` when `cursor` is nil, else the `limit` messages just
  /// older than where `cursor` points; for `ChatBackend.history(of:before:limit:)`.
  ///
  /// The newest page walks the server's forward pages (from the oldest the first time); an older page
  /// costs the forward pages it overlaps. A `limit` below 1 fails with `INVALID_PAGE_SIZE`; a lying server
  /// with `INVALID_RESPONSE` (see the type's documentation for both, and for a cursor it did not make).
  public func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws
    -> HistoryPage
  {
    guard limit >= 1 else {
      throw ChatError(.invalidPageSize, "A history page holds at least 1 message; \(limit) was asked for.")
    }
    // A cursor of another making names nothing here: the newest page again is the answer with no gap.
    guard let position = cursor.flatMap(ForwardHistoryCursor.init) else {
      return try await newestPage(of: conversation, limit: limit)
    }
    return try await olderPage(of: conversation, before: position, limit: limit)
  }
}
