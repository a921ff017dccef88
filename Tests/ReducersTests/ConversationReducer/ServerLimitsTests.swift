import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// What a server sends can never grow a conversation past the policy's limits: the reply that would pass
/// one ends, interrupted, with what arrived kept, and its stream is closed.
@Suite("Conversation: server limits")
struct ServerLimitsTests {
  static let policy: ChatPolicy = {
    var policy = ChatPolicy()
    policy.maximumReplyBytes = 16
    policy.maximumToolCallsPerReply = 2
    return policy
  }()

  @Test("a reply whose text would pass maximumReplyBytes ends REPLY_TOO_LARGE, keeping the text before it")
  func replyTooLarge() {
    // Given a reply streaming 10 bytes of its 16
    let chat = Chat(.existing([]), policy: Self.policy)
    let request = chat.userSends("Question", id: "c1")
    chat.send([.replyStarted(request, agent: nil, at: time(1)), .replyDelta(request, "0123456789")])

    // When the next delta would make it 20
    let effects = chat.send(.replyDelta(request, "abcdefghij"))

    // Then the reply ends, interrupted, with the 10 bytes; its stream is closed; later deltas change nothing
    #expect(effects == [.cancel(request)])
    #expect(chat.state.streamingReply == nil)
    let answer = chat.state.messages.last
    #expect(answer?.text == "0123456789")
    #expect(answer?.reply == .failed(ChatError(.replyTooLarge, "The reply passed 16 bytes of text.")))
    #expect(chat.state.backgroundError?.code == .replyTooLarge)
    #expect(chat.send(.replyDelta(request, "more")) == [])
    #expect(chat.state.messages.last?.text == "0123456789")
  }

  @Test("a delta that fills the reply exactly to the limit is taken")
  func replyAtTheLimit() {
    let chat = Chat(.existing([]), policy: Self.policy)
    let request = chat.userSends("Question", id: "c1")
    chat.send([.replyStarted(request, agent: nil, at: time(1)), .replyDelta(request, "0123456789abcdef")])

    #expect(chat.state.streamingReply?.text.string == "0123456789abcdef")
    #expect(chat.state.backgroundError == nil)
  }

  @Test("a reply with more tool calls than maximumToolCallsPerReply ends REPLY_TOO_LARGE, keeping its calls so far")
  func tooManyToolCalls() {
    let chat = Chat(.existing([]), policy: Self.policy)
    let request = chat.userSends("Question", id: "c1")
    chat.send(.replyStarted(request, agent: nil, at: time(1)))
    for index in 0..<2 {
      chat.send(
        .toolCallStarted(
          request, ToolCall(id: ToolCallID("t\(index)"), name: "search", input: .object([:]), execution: .server)))
    }

    let effects = chat.send(
      .toolCallStarted(request, ToolCall(id: "t2", name: "search", input: .object([:]), execution: .server)))

    #expect(effects.first == .cancel(request))
    #expect(chat.state.streamingReply == nil)
    #expect(chat.state.messages.last?.toolCalls.map(\.id) == ["t0", "t1"])
    #expect(chat.state.backgroundError?.code == .replyTooLarge)
  }
}
