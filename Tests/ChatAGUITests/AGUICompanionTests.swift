import ChatAGUI
import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// What AG-UI does not carry goes to the host's own backend; without one it is unsupported, never a hang.
@Suite("AG-UI backend beside the host's own backend", .hangGuard)
struct AGUICompanionTests {
  /// Nothing listens here: none of these calls may reach the agent's endpoint.
  static let agent = URL(string: "http://127.0.0.1:9/agent")!

  @Test("history pages and ratings go to the companion, as the host's backend answers them")
  func companionAnswers() async throws {
    // Given an AG-UI agent beside the host's own backend
    let companion = ControlledBackend()
    let backend = try AGUIBackend(endpoint: Self.agent, companion: companion)

    // When the store asks for a history page and rates an answer
    let page = Task { try await backend.history(of: "conv-1", before: nil, limit: 20) }
    let rating = Task { try await backend.rate("a-1", in: "conv-1", as: .up) }
    var calls = companion.calls.makeAsyncIterator()
    for _ in 0..<2 {
      switch await calls.next() {
      case .history(let conversation, _, let limit, let reply)?:
        #expect(conversation == "conv-1" && limit == 20)
        reply.resume(returning: HistoryPage(messages: [], nextCursor: "older", hasMore: true))
      case .rate(let message, let value, let reply)?:
        #expect(message == "a-1" && value == .up)
        reply.resume()
      default: Issue.record("the companion got a call it should not have")
      }
    }

    // Then both came from the companion
    #expect(try await page.value.nextCursor == "older")
    try await rating.value
  }

  @Test("alone, what AG-UI does not carry is unsupported; history is empty and realtime opens and stays")
  func alone() async throws {
    let backend = try AGUIBackend(endpoint: Self.agent)
    await #expect(throws: ChatError.self) { try await backend.rate("a-1", in: "conv-1", as: .up) }
    do {
      try await backend.submitFeedback(.down, comment: nil, in: "conv-1")
      Issue.record("feedback went somewhere")
    } catch let error as ChatError {
      #expect(error.code == .unsupported)
    }
    #expect(try await backend.history(of: "conv-1", before: nil, limit: 20).messages.isEmpty)
    try await backend.sendTyping(true, in: "conv-1")  // best effort: nothing to do, nothing thrown
    var realtime = backend.realtime(conversation: "conv-1").makeAsyncIterator()
    #expect(try await realtime.next() == .opened)
  }

  @Test("a continuation that leaves an interrupt unanswered is refused before anything is sent")
  func uncoveredResume() async throws {
    // Given an answer whose run stopped on two interrupts (as the conversation stores it)
    let backend = try AGUIBackend(endpoint: Self.agent)
    let waiting = Message(
      clientID: "a", role: .assistant, text: "", createdAt: Date(),
      providerMetadata: ["ag-ui": ["runId": "run-1", "interrupts": ["i1", "i2"]]])

    // When a continuation answers only one
    let answered = InputRequest(id: "i1", kind: .question(.object([:])), answer: .answered(true))
    let run = RunContinuation(answer: nil, message: waiting, toolResults: [], inputAnswers: [answered])
    var events = backend.continueRun(run, in: "conv-1").makeAsyncIterator()

    // Then it fails at once with INVALID_ACTION (the endpoint, where nothing listens, is never asked)
    do {
      _ = try await events.next()
      Issue.record("the continuation went ahead")
    } catch let error as ChatError {
      #expect(error.code == .invalidAction)
      #expect(error.message.contains("i2"))
    }
  }
}
