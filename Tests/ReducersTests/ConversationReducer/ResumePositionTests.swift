import ConversationState
import Foundation
import Reducers
import Testing

@Suite("Resuming a dropped stream: each event applied once")
struct ResumePositionTests {
  /// The deltas "Hel", "lo", " there" at sequence numbers 1, 2, 3.
  static func streamedThree() -> (Chat, RequestID) {
    let (chat, request) = StreamingTests.replying()
    for (index, delta) in ["Hel", "lo", " there"].enumerated() {
      chat.send(.positioned(request, .sequence(UInt64(index + 1)), .replyDelta(request, delta)))
    }
    return (chat, request)
  }

  @Test("a resumed stream that replays events already applied adds only what is new")
  func replayedDeltasAreDropped() {
    // Given a reply that applied events 1 to 3, then lost its connection
    let (chat, request) = Self.streamedThree()
    #expect(chat.state.streamingReply?.resumePosition == .sequence(3))

    // When the adapter resumes from there and the server replays 2 and 3 before 4
    chat.send([
      .positioned(request, .sequence(2), .replyDelta(request, "lo")),
      .positioned(request, .sequence(3), .replyDelta(request, " there")),
      .positioned(request, .sequence(4), .replyDelta(request, "!")),
    ])

    // Then every delta is there once, and the reply remembers the newest position
    #expect(chat.state.streamingReply?.text.string == "Hello there!")
    #expect(chat.state.streamingReply?.resumePosition == .sequence(4))
  }

  @Test(
    "a replayed event of any kind changes nothing",
    arguments: [
      ConversationAction.replyDelta(RequestID(epoch: IdentityEpoch(), sequence: 1), "again"),
      .toolCallStarted(
        RequestID(epoch: IdentityEpoch(), sequence: 1), ToolCall(id: "t1", name: "lookup", execution: .server)),
      .agentStateDelta([JSONPatchOperation(.add(value: 1), path: JSONPointer(tokens: ["items", "-"]))]),
      .replyPartAdded(RequestID(epoch: IdentityEpoch(), sequence: 1), MessagePart(id: "p1", .text("whole"))),
      .replyFinished(
        RequestID(epoch: IdentityEpoch(), sequence: 1),
        message: Message(clientID: "x", role: .assistant, text: "", createdAt: Date(timeIntervalSince1970: 9))),
    ])
  func anyReplayedEventIsDropped(event: ConversationAction) throws {
    // Given a reply at position 3 (its request is the chat's first)
    let (chat, request) = Self.streamedThree()
    try #require(request == RequestID(epoch: IdentityEpoch(), sequence: 1))
    chat.send(.agentStateSnapshot(["items": []]))
    let before = chat.state

    // When an event at position 3 or before comes again
    chat.send(.positioned(request, .sequence(3), event))
    chat.send(.positioned(request, .sequence(1), event))

    // Then nothing changed
    #expect(chat.state == before)
  }

  @Test("with event IDs, the last event repeated is dropped, and any other ID is new")
  func eventIDs() {
    let (chat, request) = StreamingTests.replying()
    chat.send([
      .positioned(request, .eventID("e1"), .replyDelta(request, "One")),
      .positioned(request, .eventID("e2"), .replyDelta(request, " two")),
      .positioned(request, .eventID("e2"), .replyDelta(request, " two")),
      .positioned(request, .eventID("e3"), .replyDelta(request, " three")),
    ])

    #expect(chat.state.streamingReply?.text.string == "One two three")
    #expect(chat.state.streamingReply?.resumePosition == .eventID("e3"))
  }

  @Test("events before the reply starts are applied as they come; a new reply starts without a position")
  func positionBelongsToTheReply() throws {
    // Given a send whose stream numbers its events from the first
    let chat = Chat.existing()
    let request = chat.userSends("Question", id: "c1")
    chat.send(
      .positioned(
        request, .sequence(1),
        .sendAccepted(
          request, confirmed: .confirmed("Question", clientID: "c1", serverID: "s1", at: 1),
          conversationID: "conv-1")))
    #expect(chat.state.streamingReply == nil)

    // When the reply starts at 2 and streams at 3
    chat.send([
      .positioned(request, .sequence(2), .replyStarted(request, agent: nil, at: time(2))),
      .positioned(request, .sequence(3), .replyDelta(request, "Hi")),
    ])
    #expect(chat.state.streamingReply?.resumePosition == .sequence(3))

    // Then once it is finished, the next send's reply starts with no position, and its 1 is new
    chat.send(.positioned(request, .sequence(4), .replyFinished(request, message: .server("Hi", id: "s2", at: 3))))
    let next = chat.userSends("Again", id: "c2")
    chat.send(.replyStarted(next, agent: nil, at: time(4)))
    #expect(chat.state.streamingReply?.resumePosition == nil)
    chat.send(.positioned(next, .sequence(1), .replyDelta(next, "Yes")))
    #expect(chat.state.streamingReply?.text.string == "Yes")
  }

  @Test("a position of another request's stream does not drop this reply's events")
  func otherRequestsPositions() {
    let (chat, request) = Self.streamedThree()
    let stale = RequestID(epoch: chat.state.epoch, sequence: 99)

    chat.send(.positioned(stale, .sequence(9), .replyDelta(stale, "ghost")))
    chat.send(.positioned(request, .sequence(4), .replyDelta(request, "!")))

    #expect(chat.state.streamingReply?.text.string == "Hello there!")
    #expect(chat.state.streamingReply?.resumePosition == .sequence(4))
  }
}
