import ConversationState

/// Where a `ForwardPagedHistory` stopped paging back: the history cursor it hands the store, and reads back
/// from the store's next `loadMoreHistory` (and from a journal written by an earlier run).
///
/// The server's own cursors only go forward, so this one names a position in the conversation as the
/// adapter's walk numbered it: forward page `page` (0 is the oldest), of whose messages the first `offset`
/// are still to be paged in. `boundary` is the server ID of the oldest message handed out so far, so that a
/// page whose messages moved since (the server deleted some before it) is cut where that message now is.
///
/// Written `fwd1/<page>/<offset>/<boundary>` (the boundary last, so it may hold any character).
struct ForwardHistoryCursor: Hashable, Sendable {
  /// The forward page that holds the next older message (0: the oldest page).
  var page: Int
  /// How many messages at the start of `page` come before the ones already handed out.
  var offset: Int
  /// The server ID of the oldest message already handed out; empty when it had none.
  var boundary: String

  private static let prefix = "fwd1"

  init(page: Int, offset: Int, boundary: String) {
    self.page = page
    self.offset = offset
    self.boundary = boundary
  }

  /// Reads a cursor this type wrote; nil for any other (a server's own cursor, another version's, garbage).
  init?(_ cursor: PageCursor) {
    let fields = cursor.rawValue.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
    guard fields.count == 4, fields[0] == Self.prefix, let page = Int(fields[1]), let offset = Int(fields[2]),
      page >= 0, offset >= 0
    else { return nil }
    self.init(page: page, offset: offset, boundary: String(fields[3]))
  }

  /// The cursor as the store keeps it.
  var pageCursor: PageCursor { PageCursor("\(Self.prefix)/\(page)/\(offset)/\(boundary)") }
}
