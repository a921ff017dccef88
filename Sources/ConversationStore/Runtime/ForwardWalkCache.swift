import ConversationState

/// One conversation's forward pages as a `ForwardPagedHistory` walk found them: where each starts, and how
/// many messages it held. No messages are kept, so a remembered walk costs a cursor and a count a page.
struct ForwardWalk: Sendable {
  /// The `after` cursor that fetches each forward page, oldest first: the oldest page's is nil. Never empty.
  var starts: [String?] = [nil]
  /// How many messages each page held when it was last fetched (0 until it is), for a total count when the
  /// server gives none.
  var counts: [Int] = [0]

  /// The index of the newest page known.
  var newestPage: Int { starts.count - 1 }
  /// The messages counted over all pages.
  var messageCount: Int { counts.reduce(0, +) }
}

/// The walks a `ForwardPagedHistory` remembers, a bounded number of conversations, least recently used
/// forgotten first. Only ever touched under its `StateLock`, and only to read or write these values.
struct ForwardWalkCache: Sendable {
  private var walks: [ConversationID: (walk: ForwardWalk, lastUsed: UInt64)] = [:]
  private var uses: UInt64 = 0

  /// The walk remembered for `conversation`, marked as just used; nil when there is none.
  mutating func walk(of conversation: ConversationID) -> ForwardWalk? {
    guard let entry = walks[conversation] else { return nil }
    uses &+= 1
    walks[conversation] = (entry.walk, uses)
    return entry.walk
  }

  /// Remembers `walk` for `conversation`, unless one already remembered knows more pages (another call's
  /// walk that ended meanwhile: it saw at least as far), then forgets the least recently used walks beyond
  /// `bound`. O(bound) when it forgets one; bounds are small.
  mutating func keep(_ walk: ForwardWalk, for conversation: ConversationID, bound: Int) {
    uses &+= 1
    if let known = walks[conversation], known.walk.starts.count > walk.starts.count {
      walks[conversation] = (known.walk, uses)
    } else {
      walks[conversation] = (walk, uses)
    }
    while walks.count > max(0, bound) {
      guard let oldest = walks.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key else { return }
      walks[oldest] = nil
    }
  }
}
