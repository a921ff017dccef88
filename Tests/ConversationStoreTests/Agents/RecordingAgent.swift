import ConversationStore
import Foundation

/// An agent backend that records the context of every request and answers each with "ok" at once.
final class RecordingAgent: AgentBackend {
  let contextPolicy: AgentContextPolicy
  var toolResultDelivery: ToolResultDelivery { .nextRun }
  private let recorded = StateLock<[(kind: String, context: AgentContext)]>([])
  /// The server's clock: each message a second after the one before, so server order is send order.
  private let seconds = StateLock(1_000_000.0)

  private func tick() -> Date {
    Date(
      timeIntervalSince1970: seconds.withLock { now in
        now += 1
        return now
      })
  }

  init(_ policy: AgentContextPolicy = .standard) { contextPolicy = policy }

  /// Every request so far: its kind (send, regenerate, continue, resume) and its context.
  var requests: [(kind: String, context: AgentContext)] { recorded.withLock { $0 } }

  private func answer(_ kind: String, _ context: AgentContext, accepting payload: SendPayload? = nil)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    recorded.withLock { $0.append((kind, context)) }
    return AsyncThrowingStream { continuation in
      if let payload {
        let user = Message(
          clientID: payload.clientID, serverID: ServerMessageID(rawValue: "s-\(payload.clientID.rawValue)"),
          role: .user, text: payload.text, createdAt: tick())
        continuation.yield(.accepted(user, conversationID: payload.conversationID ?? "conv-1"))
      }
      continuation.yield(.started(agent: nil))
      continuation.yield(.delta("ok"))
      continuation.yield(
        .finished(
          Message(clientID: "any", role: .assistant, text: "", createdAt: tick())))
      continuation.finish()
    }
  }

  func send(_ payload: SendPayload, context: AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error> {
    answer("send", context, accepting: payload)
  }
  func regenerate(
    in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?, context: AgentContext
  ) -> AsyncThrowingStream<ReplyEvent, any Error> {
    self.answer("regenerate", context)
  }
  func continueRun(_ continuation: RunContinuation, in conversation: ConversationID, context: AgentContext)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    answer("continue", context)
  }
  func resumeReply(from cursor: ReplyCursor, context: AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error> {
    answer("resume", context)
  }
  func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws -> HistoryPage {
    HistoryPage(messages: [], nextCursor: nil, hasMore: false)
  }
  func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] { [] }
  func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    AsyncThrowingStream { $0.yield(.opened) }
  }
}
