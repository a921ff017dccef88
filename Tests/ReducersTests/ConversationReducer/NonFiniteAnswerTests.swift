import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// A server that finishes an answer with a number no JSON can carry (a host's own backend building the
/// message, a protocol mapper's bug): the store refuses it with a typed error and keeps what it had, since a
/// NaN in the state would make it unequal to itself and its snapshots would never settle.
@Suite("Answers carrying numbers that are not finite")
struct NonFiniteAnswerTests {
  static let cases: [(String, @Sendable (inout Message) -> Void)] = [
    ("its time", { $0.createdAt = Date(timeIntervalSinceReferenceDate: .nan) }),
    ("its edit time", { $0.editedAt = Date(timeIntervalSinceReferenceDate: .infinity) }),
    ("its credits", { $0.usage = Usage(credits: .nan, inputTokens: 1, outputTokens: 1) }),
    (
      "a data part", { $0.parts = [MessagePart(id: "p1", .data(DataPart(kind: "chart", value: ["y": .number(.nan)])))] }
    ),
    ("its provider metadata", { $0.providerMetadata = ["openai": ["logprob": .number(-.infinity)]] }),
  ]

  @Test("a finished answer with a number that is not finite is refused, and the answer streams on", arguments: cases)
  func finishedAnswerRefused(_ story: (field: String, spoil: @Sendable (inout Message) -> Void)) throws {
    // Given an answer streaming its text
    let (chat, request) = StreamingTests.replying()
    chat.send(.replyDelta(request, "Your order ships Thursday."))
    let before = chat.state

    // When the server finishes it with a message one of whose numbers is not finite
    var answer = Message(
      clientID: "x", serverID: "s2", role: .assistant, text: "Your order ships Thursday.", createdAt: time(3))
    story.spoil(&answer)
    chat.send(.replyFinished(request, message: answer))

    // Then the store says so in a typed error and holds exactly what it held
    let error = try #require(chat.state.backgroundError, "\(story.field)")
    #expect(error.code == .invalidEvent, "\(story.field)")
    var expected = before
    expected.backgroundError = error
    #expect(chat.state == expected, "\(story.field): nothing else changed")
    #expect(chat.state.streamingReply?.text.string == "Your order ships Thursday.")
  }
}
