import ConversationState
import ConversationStore
import Foundation
import Persistence

/// Local first: opening a stored conversation at its newest page, an older page from disk, and a search of
/// what is stored, each beside what it replaces (the whole file read; a scan of every text).
enum LocalFirstWorkloads {
  /// The stored `history`-message conversation of scope `name`, written once per process (with a window as
  /// large as the history when `whole`, so the journal holds all of it, as before local-first paging).
  static func stored(_ name: String, history: Int, whole: Bool = false) -> ScopeDirectory {
    let scope = StorageWorkloads.scope(name)
    let window = whole ? Int.max : ScopeDirectory.defaultWindow
    let file = StorageWorkloads.file(scope, "bench", window: window)
    if file.restored == nil {
      do {
        try file.persist(Conversations.history(history), changes: .reset, at: Conversations.start)
      } catch {
        fatalError("cannot store the benchmark history: \(error)")
      }
    }
    return scope
  }

  /// `scope.conversation(id).restored` for a stored `history`-message conversation: the newest page, or with
  /// `whole` every message (the old full load, side by side).
  static func open(history: Int, whole: Bool = false) -> Workload {
    let label = DeltaWorkloads.label(history)
    let scope = stored(whole ? "open-full\(history)" : "open\(history)", history: history, whole: whole)
    let window = whole ? Int.max : ScopeDirectory.defaultWindow
    return Workload(name: whole ? "open.full.h\(label)" : "open.newest.h\(label)") {
      var count = 0
      let nanoseconds = Harness.time {
        count = StorageWorkloads.file(scope, "bench", window: window).restored?.messages.count ?? 0
      }
      precondition(count == min(history, window), "opened \(count) messages of \(history)")
      return (1, nanoseconds)
    }
  }

  /// One older page of 50 from disk (`storedMessages(before:limit:)`), from the middle of the history; the
  /// file is opened outside the timer.
  static func page(history: Int, pages: Int) -> Workload {
    let scope = stored("page\(history)", history: history)
    let file = StorageWorkloads.file(scope, "bench")
    let before = Conversations.message(history / 2).orderKey
    return Workload(name: "page.disk.h\(DeltaWorkloads.label(history))") {
      var count = 0
      let nanoseconds = Harness.time {
        for _ in 0..<pages { count = (try? file.storedMessages(before: before, limit: 50))?.messages.count ?? 0 }
      }
      precondition(count == 50, "read \(count) of 50 messages")
      return (pages, nanoseconds)
    }
  }

  /// The texts of the search corpus: `count` messages over 20 conversations from a small vocabulary, the
  /// searched word ("café", written several ways) in one of every 1,000.
  static func corpusText(_ index: Int) -> String {
    let words = ["order", "shipping", "refund", "account", "password", "delivery", "invoice", "support", "thanks"]
    var text = (0..<10).map { words[(index &* 7 &+ $0 &* 3) % words.count] }.joined(separator: " ")
    if index % 1_000 == 500 { text += [" Café", " CAFE", " café"][(index / 1_000) % 3] + " au lait" }
    return text
  }

  private static let corpusSize = 100_000

  /// The scope holding the corpus, written once per process.
  private static let corpus: ScopeDirectory = {
    let scope = StorageWorkloads.scope("search")
    for conversation in 0..<20 {
      var state = ConversationState(conversationID: ConversationID("s\(conversation)"))
      for index in stride(from: conversation, to: corpusSize, by: 20) {
        var message = Conversations.message(index)
        message.text = corpusText(index)
        state.messages.commit(message)
      }
      do {
        try StorageWorkloads.file(scope, state.conversationID!).persist(
          state, changes: .reset, at: Conversations.start)
      } catch {
        fatalError("cannot store the search corpus: \(error)")
      }
    }
    return scope
  }()

  private static let expectedMatches = (0..<corpusSize).filter { $0 % 1_000 == 500 }.count

  /// `scope.search("cafe")` over 100,000 stored messages, every match on one page.
  static func searchIndex(searches: Int) -> Workload {
    let scope = corpus
    return Workload(name: "search.index.h100k") {
      var found = 0
      let nanoseconds = Harness.time {
        for _ in 0..<searches { found = (try? scope.search("cafe", limit: 200))?.results.count ?? -1 }
      }
      precondition(found == expectedMatches, "the index found \(found) of \(expectedMatches)")
      return (searches, nanoseconds)
    }
  }

  /// The same search as a scan: every one of the same 100,000 texts, in memory, compared case- and
  /// accent-insensitively (what a host without an index would do).
  static func searchScan(searches: Int) -> Workload {
    let texts = (0..<corpusSize).map(corpusText)
    return Workload(name: "search.scan.h100k") {
      var found = 0
      let nanoseconds = Harness.time {
        for _ in 0..<searches {
          found = texts.reduce(0) { count, text in
            count + (text.range(of: "cafe", options: [.caseInsensitive, .diacriticInsensitive]) == nil ? 0 : 1)
          }
        }
      }
      precondition(found == expectedMatches, "the scan found \(found) of \(expectedMatches)")
      return (searches, nanoseconds)
    }
  }
}
