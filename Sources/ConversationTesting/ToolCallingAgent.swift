package import ConversationStore
import Foundation

/// An agent whose every answer calls the app's tool `pick_color` and ends its run waiting for the result,
/// as AG-UI, the AI SDK and OpenAI do; a continuation run is reported to `onContinue` and never answered
/// (it streams nothing until cancelled). For stories about what happens to a tool's result around a crash.
package struct ToolCallingAgent: AgentBackend {
  package var contextPolicy: AgentContextPolicy { .standard }
  package var toolResultDelivery: ToolResultDelivery { .nextRun }
  private let onContinue: @Sendable (ConversationID) -> Void
  private let continuations: @Sendable (RunContinuation) -> Void

  /// An agent that reports each continuation's conversation to `onContinue`, and the continuation itself to
  /// `continuations`.
  package init(
    onContinue: @escaping @Sendable (ConversationID) -> Void,
    continuations: @escaping @Sendable (RunContinuation) -> Void = { _ in }
  ) {
    self.onContinue = onContinue
    self.continuations = continuations
  }

  package func send(_ payload: SendPayload, context: AgentContext) -> AsyncThrowingStream<ReplyEvent, any Error> {
    let conversation = payload.conversationID ?? "tool-conversation"
    let now = Date()
    return AsyncThrowingStream { stream in
      stream.yield(
        .accepted(
          Message(
            clientID: payload.clientID, serverID: ServerMessageID(rawValue: payload.clientID.rawValue), role: .user,
            text: payload.text, createdAt: now),
          conversationID: conversation))
      stream.yield(.started(agent: nil, replyID: "answer-1"))
      stream.yield(
        .toolCall(ToolCall(id: "call-1", name: "pick_color", input: [:], execution: .client, outcome: .running)))
      stream.yield(.finished(Message(clientID: "answer", role: .assistant, text: "", createdAt: now)))
      stream.finish()
    }
  }

  package func regenerate(
    in conversation: ConversationID, replyTo prompt: ServerMessageID, answer: ServerMessageID?, context: AgentContext
  ) -> AsyncThrowingStream<ReplyEvent, any Error> {
    AsyncThrowingStream { $0.finish(throwing: ChatError.unsupported("regenerating answers")) }
  }

  package func continueRun(_ continuation: RunContinuation, in conversation: ConversationID, context: AgentContext)
    -> AsyncThrowingStream<ReplyEvent, any Error>
  {
    continuations(continuation)
    onContinue(conversation)
    return AsyncThrowingStream { _ in }
  }

  package func resumeReply(from cursor: ReplyCursor, context: AgentContext) -> AsyncThrowingStream<
    ReplyEvent, any Error
  > {
    AsyncThrowingStream { $0.finish(throwing: ChatError(.notResumable, "Nothing to resume.")) }
  }

  package func history(of conversation: ConversationID, before cursor: PageCursor?, limit: Int) async throws
    -> HistoryPage
  {
    HistoryPage(messages: [], nextCursor: nil, hasMore: false)
  }

  package func messages(in conversation: ConversationID, after: ServerMessageID?) async throws -> [Message] { [] }

  package func realtime(conversation: ConversationID?) -> AsyncThrowingStream<RealtimeUpdate, any Error> {
    AsyncThrowingStream { $0.yield(.opened) }
  }
}
