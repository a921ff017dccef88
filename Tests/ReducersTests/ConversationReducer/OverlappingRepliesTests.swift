import ConversationState
import Foundation
import Reducers
import Testing

@Suite("Replies that overlap: a newer one starts while an older one still streams")
struct OverlappingRepliesTests {
  /// Two questions sent at once, the first one's reply streaming "First".
  static func twoSends() -> (Chat, RequestID, RequestID) {
    let chat = Chat.existing(policy: .overlapping)
    let first = chat.userSends("One?", id: "c1")
    let second = chat.userSends("Two?", id: "c2")
    chat.send([.replyStarted(first, agent: nil, at: time(2)), .replyDelta(first, "First")])
    return (chat, first, second)
  }

  @Test("both stream live, each takes its own deltas, and neither is shown cut off while it streams")
  func bothStreamLive() throws {
    // Given the first reply streaming
    let (chat, first, second) = Self.twoSends()

    // When the second reply starts and both go on
    chat.send([
      .replyStarted(second, agent: nil, at: time(3)), .replyDelta(second, "Second"),
      .replyDelta(first, " goes on"), .replyDelta(second, " too"),
    ])

    // Then the older streams beside the newer, nothing committed, and the rows show both in order
    #expect(chat.state.overlappingReplies.map(\.text.string) == ["First goes on"])
    #expect(chat.state.streamingReply?.text.string == "Second too")
    #expect(!chat.state.messages.contains { $0.role == .assistant })
    #expect(chat.state.rows.map(\.id) == ["c1", "c2", "reply-\(first)", "reply-\(second)"])
    #expect(chat.state.rowIndex(of: ClientMessageID("reply-\(first)")) == 2)
  }

  @Test("a delta of the older reply changes its row alone; the newer one and the activity stay as they were")
  func olderDeltaChangesItsRow() {
    let (chat, first, second) = Self.twoSends()
    chat.send([.replyStarted(second, agent: nil, at: time(3)), .replyDelta(second, "Second")])
    let before = chat.state

    chat.send(.replyDelta(first, "!"))

    #expect(chat.state.changes(since: before).updated == [ClientMessageID("reply-\(first)")])
    #expect(chat.state.streamingReply == before.streamingReply)
    #expect(chat.state.agentActivity == before.agentActivity)
  }

  @Test("each commits with its own text when it finishes; the older one takes the newer's place when that ends first")
  func eachFinishes() throws {
    let (chat, first, second) = Self.twoSends()
    chat.send([.replyStarted(second, agent: nil, at: time(3)), .replyDelta(second, "Second")])

    // When the newer one finishes first, the older becomes the streaming reply
    chat.send(.replyFinished(second, message: .server("Second", id: "s2", at: 4)))
    #expect(chat.state.streamingReply?.requestID == first)
    #expect(chat.state.overlappingReplies.isEmpty)
    #expect(chat.state.agentActivity == .generating)

    // And when it finishes too, both answers are there, completed
    chat.send([.replyDelta(first, "!"), .replyFinished(first, message: .server("", id: "s1", at: 5))])
    let answers = chat.state.messages.filter { $0.role == .assistant }
    #expect(answers.map(\.text).sorted() == ["First!", "Second"])
    #expect(answers.allSatisfy { $0.reply == .completed })
    #expect(chat.state.streamingReply == nil)
    #expect(chat.state.agentActivity == .idle)
  }

  @Test("stopping stops every reply that streams: each is cancelled, each stream cancelled")
  func stopStopsAll() {
    let (chat, first, second) = Self.twoSends()
    chat.send(.replyStarted(second, agent: nil, at: time(3)))

    let effects = chat.send(.stopReply)

    #expect(effects.contains(.cancel(first)) && effects.contains(.cancel(second)))
    #expect(chat.state.streamingReply == nil && chat.state.overlappingReplies.isEmpty)
    #expect(chat.state.messages.filter { $0.role == .assistant }.map(\.reply) == [.cancelled, .cancelled])
  }

  @Test("a reply over the realtime connection beside a send's: the connection's drop cuts off only its own")
  func realtimeBesideASend() {
    // Given a send's reply streaming, and a person's reply starting over the realtime connection
    let (chat, first, _) = Self.twoSends()
    let connection = chat.connected()
    chat.send(.realtime("conv-1", .replyStarted("s9", agent: nil, at: time(3)), connection: connection))
    chat.send(.realtime("conv-1", .replyDelta("s9", "Hello"), connection: connection))
    #expect(chat.state.streamingReply?.serverID == "s9")
    #expect(chat.state.overlappingReplies.map(\.requestID) == [first])

    // When the connection drops
    chat.send(.connectionLost(connection, ChatError(.network, "drop"), at: time(4), jitter: 0.5))

    // Then the realtime reply is kept, truncated, and the send's reply streams on as the newest
    #expect(chat.state.messages[serverID: "s9"]?.reply == .truncated)
    #expect(chat.state.streamingReply?.requestID == first)
    chat.send(.replyDelta(first, " still"))
    #expect(chat.state.streamingReply?.text.string == "First still")
  }

  @Test("past the bound, a newer reply cuts the oldest off, truncated, and the rest stream on")
  func bounded() throws {
    let chat = Chat.existing(policy: .overlapping)
    let limit = ConversationState.maximumOverlappingReplies
    // (each question goes once the one before it is taken: its reply's start says so)
    var requests: [RequestID] = []
    for index in 0...(limit + 1) {
      let request = chat.userSends("Q\(index)", id: ClientMessageID("c\(index)"))
      chat.send([.replyStarted(request, agent: nil, at: time(Double(2 + index))), .replyDelta(request, "A\(index)")])
      requests.append(request)
    }

    #expect(chat.state.overlappingReplies.count == limit)
    #expect(chat.state.streamingReply?.requestID == requests.last)
    let cut = try #require(chat.state.messages[clientID: ClientMessageID("reply-\(requests[0])")])
    #expect(cut.reply == .truncated)
    #expect(cut.text == "A0")
  }

  @Test("a regeneration does not overlap: a reply that starts while one streams cuts it off, the old answer kept")
  func regenerationDoesNotOverlap() throws {
    // Given an answer being regenerated, and a question sent meanwhile
    let chat = Chat(
      .existing([.confirmed("Q", clientID: "c0", serverID: "s0", at: 0), .server("A", id: "s1", at: 1)]),
      policy: .overlapping)
    let answer = try #require(chat.state.messages[serverID: "s1"]?.clientID)
    let regeneration = chat.nextRequestID
    chat.send(.regenerate(answer))
    chat.send([.replyStarted(regeneration, agent: nil, at: time(2)), .replyDelta(regeneration, "Again")])
    let asked = chat.userSends("Another?", id: "c2", at: 3)

    // When the question's reply starts
    chat.send(.replyStarted(asked, agent: nil, at: time(4)))

    // Then only the new reply streams, and the answer being regenerated is still there
    #expect(chat.state.streamingReply?.requestID == asked)
    #expect(chat.state.overlappingReplies.isEmpty)
    #expect(chat.state.messages[serverID: "s1"]?.text == "A")
  }
}
