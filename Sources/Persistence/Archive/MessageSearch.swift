public import ConversationState
import Foundation

/// One stored message that matched a search, with where the words matched in its text.
public struct SearchResult: Hashable, Sendable {
  /// The conversation the message is in.
  public var conversationID: ConversationID
  /// The message as stored.
  public var message: Message
  /// Where the searched words start words of `message.text`, in text order (case and accents ignored:
  /// "cafe" marks "Café"). Ranges of `message.text`'s own indices.
  public var matches: [Range<String.Index>]
  /// Whether the message was on a branch that is not shown when it was last stored: an earlier version of an
  /// edited question or a regenerated answer, or what followed one (`ConversationState.branches`). Opening
  /// it shows that branch:
  ///
  /// ```swift
  /// if result.isOffScreen { store.send(.showBranch(containing: result.message.clientID)) }
  /// ```
  public var isOffScreen: Bool

  /// A result as the search builds it (a test's stand-in can build its own).
  public init(
    conversationID: ConversationID, message: Message, matches: [Range<String.Index>], isOffScreen: Bool = false
  ) {
    self.conversationID = conversationID
    self.message = message
    self.matches = matches
    self.isOffScreen = isOffScreen
  }
}

/// A page of search results, newest message first (server time), and where the next page starts.
public struct SearchPage: Hashable, Sendable {
  /// The matching messages of this page, newest first.
  public var results: [SearchResult]
  /// Pass it to the next `search` call for the page after this one; nil on the last page.
  public var next: SearchCursor?

  /// A page of `results`; `next` nil for the last one.
  public init(results: [SearchResult], next: SearchCursor?) {
    self.results = results
    self.next = next
  }

  /// No results.
  public static let empty = SearchPage(results: [], next: nil)

  /// The results grouped by conversation, each group newest first, groups in the order of their newest
  /// result: for a "found in 3 conversations" list.
  public var byConversation: [(conversationID: ConversationID, results: [SearchResult])] {
    var order: [ConversationID] = []
    var groups: [ConversationID: [SearchResult]] = [:]
    for result in results {
      if groups[result.conversationID] == nil { order.append(result.conversationID) }
      groups[result.conversationID, default: []].append(result)
    }
    return order.map { ($0, groups[$0] ?? []) }
  }
}

/// Where a search page ended: the next page starts after it. Opaque; valid for the same words and scope.
public struct SearchCursor: Hashable, Sendable {
  let createdAt: Double
  let rowID: Int64
}

/// The words of a search, as `ScopeDirectory.search` reads them.
///
/// Words are split at anything that is not a letter or digit; each matches the start of a word (so "deliv"
/// finds "delivery"), case and accents ignored; a message matches when it has every word. Nothing in the
/// text is query syntax: quotes, stars and `OR` are plain text.
public struct SearchWords: Hashable, Sendable {
  /// At most this many words; a longer search is refused (`tooLarge`), never cut silently.
  public static let maximumWords = 16
  /// At most this many characters in one word.
  public static let maximumWordLength = 64

  /// The words, folded (lowercased, accents removed).
  public let words: [String]

  /// The words of `text`; throws `tooLarge` for more than `maximumWords` words or a word longer than
  /// `maximumWordLength`.
  public init(_ text: String) throws(PersistenceError) {
    let words = text.split { !($0.isLetter || $0.isNumber) }.map(Self.folded)
    guard words.count <= Self.maximumWords else {
      throw PersistenceError(.tooLarge, path: "", detail: "a search holds at most \(Self.maximumWords) words")
    }
    guard words.allSatisfy({ $0.count <= Self.maximumWordLength }) else {
      throw PersistenceError(
        .tooLarge, path: "", detail: "a searched word holds at most \(Self.maximumWordLength) characters")
    }
    self.words = words
  }

  static func folded(_ word: Substring) -> String {
    word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
  }

  /// The FTS5 query: each word a quoted prefix, all of them required.
  var query: String {
    words.map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"*" }.joined(separator: " ")
  }

  /// Where the words start words in `text`, in text order.
  func matches(in text: String) -> [Range<String.Index>] {
    var found: [Range<String.Index>] = []
    for word in words {
      var from = text.startIndex
      while let range = text.range(
        of: word, options: [.caseInsensitive, .diacriticInsensitive], range: from..<text.endIndex)
      {
        let startsWord =
          range.lowerBound == text.startIndex
          || !text[text.index(before: range.lowerBound)].isLetter
            && !text[text.index(before: range.lowerBound)].isNumber
        if startsWord { found.append(range) }
        from = range.upperBound
      }
    }
    return found.sorted { $0.lowerBound < $1.lowerBound }
  }
}

extension MessageArchive {
  /// A page of up to `limit` stored messages that have every word, newest first, in `conversation` or in
  /// the whole scope, those on branches not shown included. O(matches) through the text index, never a scan
  /// of the messages.
  func search(
    _ words: SearchWords, in conversation: ConversationID?, after cursor: SearchCursor?, limit: Int
  ) throws(PersistenceError) -> SearchPage {
    guard !words.words.isEmpty, limit > 0 else { return SearchPage(results: [], next: nil) }
    let select = try database.statement(
      """
      SELECT m.id, m.conversation, m.created_at, m.body, m.off_screen FROM message_text
      JOIN message m ON m.id = message_text.rowid
      WHERE message_text MATCH ?1 AND (?2 IS NULL OR m.conversation = ?2) AND (m.created_at, m.id) < (?3, ?4)
      ORDER BY m.created_at DESC, m.id DESC LIMIT ?5
      """)
    defer { select.reset() }
    select.bind(1, words.query)
    select.bind(2, conversation?.rawValue)
    select.bind(3, cursor?.createdAt ?? Double.greatestFiniteMagnitude)
    select.bind(4, cursor?.rowID ?? Int64.max)
    select.bind(5, Int64(limit) + 1)
    var results: [SearchResult] = []
    var last: SearchCursor?
    while try select.step() {
      guard results.count < limit else { return SearchPage(results: results, next: last) }
      let message = try Self.message(select, column: 3, path: database.path)
      results.append(
        SearchResult(
          conversationID: ConversationID(rawValue: select.text(1) ?? ""), message: message,
          matches: words.matches(in: message.text), isOffScreen: select.int64(4) != 0))
      last = SearchCursor(createdAt: select.double(2), rowID: select.int64(0))
    }
    return SearchPage(results: results, next: nil)
  }
}
