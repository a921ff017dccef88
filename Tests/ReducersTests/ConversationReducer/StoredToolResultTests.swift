import ConversationState
import Foundation
import Reducers
import Testing

/// An app tool's result goes to the agent only once it is on disk, and a relaunch delivers a stored result
/// again instead of running the tool again.
@Suite("Tool results stored before they are delivered")
struct StoredToolResultTests {
  /// A state whose answer ended waiting for the app's lookup, the tool still running, and the tool's request.
  static func waitingForTheTool() throws -> (ConversationState, RequestID) {
    let (chat, request) = AwaitingReplyTests.nextRunChat()
    let tool = try #require(
      AwaitingReplyTests.toolRun(in: chat.send(.toolCallStarted(request, AwaitingReplyTests.lookup))))
    chat.send(
      .replyFinished(
        request,
        message: Message(clientID: "x", role: .assistant, text: "", createdAt: time(3), finishReason: .toolCalls)))
    return (chat.state, tool)
  }

  static var reducer: ConversationReducer {
    var policy = ChatPolicy()
    policy.toolResultDelivery = .nextRun
    return ConversationReducer(policy: policy, storesBeforeContinuing: true)
  }

  @Test("with storage following the store, the result waits for the disk, then the continuation carries it")
  func continuationWaitsForStorage() throws {
    // Given an answer waiting for the app's tool, in a store whose storage reports writes
    var (state, tool) = try Self.waitingForTheTool()
    let answer = try #require(state.messages.last?.clientID)

    // When the tool returns
    let effects = Self.reducer.reduce(into: &state, action: .toolRan(tool, .succeeded("shipped")))

    // Then nothing goes to the agent yet: the answer, with the result, waits for storage
    #expect(AwaitingReplyTests.continuation(in: effects) == nil)
    #expect(state.continuationAwaitingStorage == answer)
    #expect(state.messages.last?.toolCalls.first?.outcome == .succeeded("shipped"))

    // When storage has written that state
    let stored = Self.reducer.reduce(into: &state, action: .toolResultsStored(answer))

    // Then the continuation carries the result, once
    let (_, continuation) = try #require(AwaitingReplyTests.continuation(in: stored))
    #expect(continuation.toolResults.map(\.outcome) == [.succeeded("shipped")])
    #expect(state.continuationAwaitingStorage == nil)
    #expect(Self.reducer.reduce(into: &state, action: .toolResultsStored(answer)).isEmpty, "a second report is nothing")
  }

  @Test("a relaunch never runs a tool that was running again: it fails, and the restored store delivers that")
  func relaunchFailsARunningTool() throws {
    // Given the app stopped while the tool ran
    var (stored, _) = try Self.waitingForTheTool()
    _ = Self.reducer.reduce(into: &stored, action: .relaunched)
    let call = try #require(stored.messages.last?.toolCalls.first)
    guard case .failed(let error) = call.outcome else {
      Issue.record("the call is \(call.outcome) after the relaunch")
      return
    }
    #expect(error.message.contains("not run again"))

    // When a store that opened before the file was read gets it
    var opening = ConversationState(conversationID: "conv-1")
    opening.isRestoring = true
    var effects = Self.reducer.reduce(into: &opening, action: .restored(stored))
    #expect(!effects.contains { if case .runTool = $0 { true } else { false } }, "the tool is not run again")
    let answer = try #require(opening.continuationAwaitingStorage)
    effects += Self.reducer.reduce(into: &opening, action: .toolResultsStored(answer))

    // Then the agent is told the tool stopped
    let (_, continuation) = try #require(AwaitingReplyTests.continuation(in: effects))
    #expect(continuation.toolResults.first?.outcome == call.outcome)
  }

  @Test("a result stored before the app stopped is delivered after the relaunch, and the tool does not run")
  func storedResultDeliveredAgain() throws {
    var (stored, tool) = try Self.waitingForTheTool()
    _ = Self.reducer.reduce(into: &stored, action: .toolRan(tool, .succeeded("shipped")))
    _ = Self.reducer.reduce(into: &stored, action: .relaunched)
    #expect(stored.continuationAwaitingStorage == nil, "the wait for storage is this run's")

    var opening = ConversationState(conversationID: "conv-1")
    opening.isRestoring = true
    var effects = Self.reducer.reduce(into: &opening, action: .restored(stored))
    #expect(!effects.contains { if case .runTool = $0 { true } else { false } })
    let answer = try #require(opening.continuationAwaitingStorage)
    effects += Self.reducer.reduce(into: &opening, action: .toolResultsStored(answer))
    let (_, continuation) = try #require(AwaitingReplyTests.continuation(in: effects))
    #expect(continuation.toolResults.map(\.outcome) == [.succeeded("shipped")])
  }
}
