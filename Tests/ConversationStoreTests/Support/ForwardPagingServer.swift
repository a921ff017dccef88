import ConversationStore
import ConversationTesting
import Foundation

/// A support-chat server that pages forward, as `GET /conversations/{id}/messages?after=<cursor>&limit=50`
/// answering `{messages, next_cursor, total_count?}` does: oldest first, at most `pageLimit` messages a
/// page, its cursor the server ID of a page's last message. It counts every request it serves, and lies
/// when told to.
final class ForwardPagingServer: Sendable {
  /// How the server misbehaves, from its `fromRequest`-th request on (1 is the first it serves).
  enum Lie: Hashable, Sendable, CustomStringConvertible {
    /// The next cursor is the one the page was asked with: the same page forever.
    case repeatsCursor(fromRequest: Int)
    /// A page holds one message more than was asked for.
    case oversizedPage(fromRequest: Int)
    /// Past the last message, every page holds one made-up message and a fresh cursor.
    case neverEnds

    var description: String {
      switch self {
      case .repeatsCursor(let request): "a next cursor that repeats from request \(request)"
      case .oversizedPage(let request): "a page too large from request \(request)"
      case .neverEnds: "pages that never end"
      }
    }
  }

  /// One request as the server received it.
  struct Request: Hashable, Sendable {
    var conversation: ConversationID
    var after: String?
    var limit: Int
  }

  private struct Script: Sendable {
    var conversations: [ConversationID: [Message]]
    var lie: Lie?
    var requests: [Request] = []
  }

  /// The most messages a page holds, however many are asked for.
  let pageLimit: Int
  /// Whether each page says how many messages the conversation has (some servers do, some do not).
  let givesTotal: Bool
  /// Whether the newest page has a next cursor too (to ask for what comes later); an empty page then ends.
  let cursorOnNewestPage: Bool
  private let script: StateLock<Script>

  /// A server holding `count` messages in each of `conversations`, numbered from 0 (`Self.message(_:in:)`).
  init(
    conversations: [ConversationID: Int], pageLimit: Int = 50, givesTotal: Bool = true,
    cursorOnNewestPage: Bool = false, lie: Lie? = nil
  ) {
    self.pageLimit = pageLimit
    self.givesTotal = givesTotal
    self.cursorOnNewestPage = cursorOnNewestPage
    script = StateLock(
      Script(
        conversations: Dictionary(
          uniqueKeysWithValues: conversations.map { id, count in (id, (0..<count).map { Self.message($0, in: id) }) }),
        lie: lie))
  }

  /// The `index`-th message of `conversation` (0 is the oldest), as this server stores it.
  static func message(_ index: Int, in conversation: ConversationID) -> Message {
    .server("message \(index)", id: "\(conversation)-\(index)", at: Double(index))
  }

  /// Every request served, oldest first.
  var requests: [Request] { script.withLock { $0.requests } }

  /// The server misbehaves from now on (nil: it behaves again).
  func lie(_ lie: Lie?) { script.withLock { $0.lie = lie } }

  /// Deletes the messages `indices` of `conversation` (their numbers as made, not their places now).
  func delete(_ indices: Range<Int>, in conversation: ConversationID) {
    let gone = Set(indices.map { Self.message($0, in: conversation).serverID })
    script.withLock { $0.conversations[conversation]?.removeAll { gone.contains($0.serverID) } }
  }

  /// One forward page: the messages after the one named by `after` (from the first when nil), oldest first.
  func page(of conversation: ConversationID, after: String?, limit: Int) throws -> ForwardPagedHistory.Page {
    try script.withLock { script throws(ChatError) in
      script.requests.append(Request(conversation: conversation, after: after, limit: limit))
      let number = script.requests.count
      guard let all = script.conversations[conversation] else {
        throw ChatError(.conversationNotFound, "No conversation \(conversation).")
      }
      var start = 0
      if let after {
        guard let index = all.firstIndex(where: { $0.serverID?.rawValue == after }) else {
          if script.lie == .neverEnds { return Self.madeUp(number) }
          throw ChatError(.invalidAction, "No message \(after) to page after.")
        }
        start = index + 1
      }
      var messages = Array(all[start..<min(all.count, start + min(limit, pageLimit))])
      let isNewest = start + messages.count == all.count
      var next = isNewest && !cursorOnNewestPage ? nil : messages.last?.serverID?.rawValue ?? after
      switch script.lie {
      case .repeatsCursor(let from) where number >= from:
        next = after
      case .oversizedPage(let from) where number >= from:
        for extra in messages.count...min(limit, pageLimit) {
          messages.append(Self.message(10_000 * number + extra, in: conversation))
        }
      case .neverEnds:
        if messages.isEmpty { return Self.madeUp(number) }
        next = messages.last?.serverID?.rawValue
      default:
        break
      }
      return ForwardPagedHistory.Page(
        messages: messages, nextCursor: next, totalCount: givesTotal ? all.count : nil)
    }
  }

  /// A page of one message that was never written, pointing at another such page.
  private static func madeUp(_ number: Int) -> ForwardPagedHistory.Page {
    ForwardPagedHistory.Page(
      messages: [.server("made up \(number)", id: "endless-\(number)", at: Double(100_000 + number))],
      nextCursor: "endless-\(number)")
  }
}
