import ConversationStore
import Foundation

/// A server that takes every message (at once, or after `acceptAfter` seconds of real time) and stamps it
/// with the order it arrived in.
final class ArrivalOrderServer: ChatBackend {
  private let arrivals = StateLock<[String]>([])
  private let start = Date(timeIntervalSince1970: 1_800_000_000)
  private let acceptAfter: Double

  init(acceptAfter: Double = 0) { self.acceptAfter = acceptAfter }

  /// The texts of the messages, in the order the server received them.
  var arrived: [String] { arrivals.withLock { $0 } }

  func send(_ payload: SendPayload) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let position = arrivals.withLock { arrivals in
      arrivals.append(payload.text)
      return arrivals.count
    }
    let confirmed = Message(
      clientID: payload.clientID, serverID: ServerMessageID("s\(position)"), role: .user, text: payload.text,
      createdAt: start.addingTimeInterval(Double(position) / 1000))
    let delay = acceptAfter
    return AsyncThrowingStream { continuation in
      guard delay > 0 else {
        continuation.yield(.accepted(confirmed, conversationID: payload.conversationID ?? "c1"))
        return continuation.finish()
      }
      let task = Task {
        try? await Task.sleep(for: .seconds(delay))
        continuation.yield(.accepted(confirmed, conversationID: payload.conversationID ?? "c1"))
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws -> HistoryPage {
    HistoryPage(messages: [], nextCursor: nil, hasMore: false)
  }

  func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] { [] }

  func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    AsyncThrowingStream { $0.yield(.opened) }
  }
}
