import ConversationStore
import Foundation

/// A server that refuses every credential (a revoked account, a clock skew that invalidates every token):
/// each request and realtime connection fails at once with `status` (401 or 403), or, with `refusing`
/// narrowed, only those kinds of calls do and the rest answer as an empty server would. It counts what it
/// was asked, so a story can hold the client to its backoff.
final class RefusingServer: ChatBackend {
  /// Which calls are refused.
  struct Refusing: OptionSet, Sendable {
    let rawValue: Int
    static let realtime = Refusing(rawValue: 1)
    static let sends = Refusing(rawValue: 2)
    static let list = Refusing(rawValue: 4)
    static let other = Refusing(rawValue: 8)
    static let everything: Refusing = [.realtime, .sends, .list, .other]
  }

  /// How many calls of each kind reached the server.
  struct Counts: Sendable, CustomStringConvertible {
    var realtime = 0
    var sends = 0
    var list = 0
    var other = 0
    var total: Int { realtime + sends + list + other }
    var description: String { "realtime \(realtime), sends \(sends), list \(list), other \(other)" }
  }

  let status: Int
  let refusing: Refusing
  private let counted = StateLock(Counts())

  init(status: Int = 401, refusing: Refusing = .everything) {
    self.status = status
    self.refusing = refusing
  }

  var counts: Counts { counted.withLock { $0 } }

  private var refusal: ChatError {
    ChatError(.unauthorized, "The credential was refused.", status: status)
  }

  private func count(_ kind: WritableKeyPath<Counts, Int>) { counted.withLock { $0[keyPath: kind] += 1 } }

  private func refused<Element>(_ kind: Refusing) -> AsyncThrowingStream<Element, any Error>? {
    guard refusing.contains(kind) else { return nil }
    return AsyncThrowingStream { $0.finish(throwing: refusal) }
  }

  func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    count(\.sends)
    if let refused: AsyncThrowingStream<ReplyEvent, any Error> = refused(.sends) { return refused }
    return AsyncThrowingStream { continuation in
      let confirmed = Message(
        clientID: payload.clientID, serverID: ServerMessageID("s-\(payload.clientID.rawValue)"), role: .user,
        text: payload.text, createdAt: Date())
      continuation.yield(.accepted(confirmed, conversationID: payload.conversationID ?? "c-new"))
      continuation.finish()
    }
  }

  func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws -> HistoryPage {
    count(\.other)
    if refusing.contains(.other) { throw refusal }
    return HistoryPage(messages: [], nextCursor: nil, hasMore: false)
  }

  func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] {
    count(\.other)
    if refusing.contains(.other) { throw refusal }
    return []
  }

  func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    count(\.realtime)
    if let refused: AsyncThrowingStream<RealtimeUpdate, any Error> = refused(.realtime) { return refused }
    return AsyncThrowingStream { $0.yield(.opened) }
  }

  func conversations(after cursor: PageCursor?, limit: Int) async throws -> ConversationPage {
    count(\.list)
    if refusing.contains(.list) { throw refusal }
    return ConversationPage(conversations: [], nextCursor: nil, hasMore: false)
  }

  func uploadOutbox(_ batch: OutboxBatch) async throws -> OutboxReceipt {
    count(\.other)
    if refusing.contains(.other) { throw refusal }
    return OutboxReceipt()
  }

  func markRead(upTo message: ServerMessageID, in conversation: ConversationID) async throws {
    count(\.other)
    if refusing.contains(.other) { throw refusal }
  }
}

/// A host's credential provider that counts how often it was asked, and answers each time with a "fresh"
/// token the server then refuses again.
final class CountingProvider: Sendable {
  private let asked = StateLock(0)
  var count: Int { asked.withLock { $0 } }
  var provider: @Sendable () async throws -> Void { { [asked] in asked.withLock { $0 += 1 } } }
}
