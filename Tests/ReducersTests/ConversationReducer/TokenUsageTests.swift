import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

@Suite("Token usage, summed over a conversation")
struct TokenUsageTests {
  static func answer(_ text: String, id: String, at seconds: Double, _ usage: Usage?) -> Message {
    var message = Message.server(text, id: id, at: seconds)
    message.usage = usage
    return message
  }

  @Test("replies that report usage add up; one that reports none adds nothing; reasoning where given")
  func repliesAddUp() {
    // Given a conversation whose two answers reported usage and one did not
    let chat = Chat.existing([
      .server("Q1", id: "s1", role: .user, at: 1),
      Self.answer("A1", id: "s2", at: 2, Usage(inputTokens: 100, outputTokens: 20, reasoningTokens: 8)),
      .server("Q2", id: "s3", role: .user, at: 3), Self.answer("A2", id: "s4", at: 4, nil),
    ])
    #expect(chat.state.tokenUsage.inputTokens == 100)

    // When a new reply finishes with its usage
    let request = chat.userSends("Q3", id: "c3", at: 5)
    chat.send(.replyStarted(request, agent: nil, at: time(6)))
    chat.send(
      .replyFinished(request, message: Self.answer("A3", id: "s6", at: 6, Usage(inputTokens: 150, outputTokens: 30))))

    // Then the conversation's tokens are the sum, reasoning counted where it was reported
    var expected = TokenUsage()
    expected.inputTokens = 250
    expected.outputTokens = 50
    expected.reasoningTokens = 8
    #expect(chat.state.tokenUsage == expected)
  }

  @Test("a regenerated answer's tokens leave with it; the new answer's come in")
  func regenerationReplacesTokens() {
    let chat = Chat.existing([
      .server("Q1", id: "s1", role: .user, at: 1), Self.answer("A1", id: "s2", at: 2, Usage(outputTokens: 40)),
    ])
    let request = chat.nextRequestID

    chat.send([.regenerate("srv-s2"), .replyStarted(request, agent: nil, at: time(5))])
    chat.send(.replyFinished(request, message: Self.answer("A1 v2", id: "s5", at: 5, Usage(outputTokens: 7))))

    #expect(chat.state.tokenUsage.outputTokens == 7)
  }

  @Test("a server edit of an answer's usage replaces its tokens in the sum, not adds them")
  func editReplaces() {
    let chat = Chat.existing([Self.answer("A1", id: "s2", at: 2, Usage(inputTokens: 10))])

    chat.send(.realtime("conv-1", .messageEdited(Self.answer("A1", id: "s2", at: 2, Usage(inputTokens: 12)))))

    #expect(chat.state.tokenUsage.inputTokens == 12)
  }

  @Test("absurd counts from a server wrap the sum instead of trapping")
  func absurdCountsWrap() {
    let chat = Chat.existing([
      Self.answer("A1", id: "s2", at: 2, Usage(inputTokens: .max)),
      Self.answer("A2", id: "s3", at: 3, Usage(inputTokens: .max)),
    ])

    #expect(chat.state.tokenUsage.inputTokens == Int.max &+ Int.max)
  }
}
