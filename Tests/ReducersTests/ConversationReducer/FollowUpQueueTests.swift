import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// The follow-up queue (`ConversationState.followUps`): what the user writes while the agent answers waits,
/// and goes one turn at a time, each once the answer before it completed.
@Suite("Follow-ups written while the agent answers")
struct FollowUpQueueTests {
  /// An answer streaming "Let me look" to the question `c1`, with `policy`.
  static func answering(policy: ChatPolicy = ChatPolicy()) -> (Chat, RequestID) {
    let (chat, request) = StreamingTests.replying(policy: policy)
    chat.send(.replyDelta(request, "Let me look"))
    return (chat, request)
  }

  /// The user writes `text` (client ID `id`) from the composer.
  static func writes(_ text: String, id: ClientMessageID, in chat: Chat, at seconds: Double = 3) {
    chat.send(.setDraft(text))
    chat.send(.send(OutgoingMessage(clientID: id, text: text, createdAt: time(seconds))))
  }

  /// The sends among `effects`, by client ID.
  static func sent(_ effects: [ConversationEffect]) -> [ClientMessageID] {
    effects.compactMap { effect in
      if case .sendMessage(_, let payload) = effect { payload.clientID } else { nil }
    }
  }

  /// The reply of `request` finishes as the server's message `serverID`.
  static func finishes(_ request: RequestID, as serverID: ServerMessageID, in chat: Chat, at seconds: Double)
    -> [ConversationEffect]
  {
    chat.send(
      .replyFinished(
        request,
        message: Message(clientID: "x", serverID: serverID, role: .assistant, text: "Done", createdAt: time(seconds))))
  }

  /// The user's message `id`, sent as `request`, is accepted by the server as `serverID`.
  static func accepted(_ id: ClientMessageID, _ request: RequestID, as serverID: ServerMessageID, in chat: Chat) {
    chat.send(
      .sendAccepted(
        request, confirmed: .confirmed("?", clientID: id, serverID: serverID.rawValue, at: 10),
        conversationID: "conv-1"))
  }

  @Test("a question written while the answer streams waits, and goes once that answer completed")
  func waitsThenGoes() {
    // Given an answer streaming
    let (chat, request) = Self.answering()

    // When the user writes a follow-up
    Self.writes("And the invoice?", id: "c2", in: chat)

    // Then it waits in the queue, nothing is sent, the composer is empty, the answer streams on
    #expect(chat.state.followUps.turns.map(\.text) == ["And the invoice?"])
    #expect(!chat.state.messages.contains("c2"))
    #expect(chat.state.draft == "")
    #expect(chat.state.overlappingReplies.isEmpty && chat.state.streamingReply?.requestID == request)

    // When the user starts typing the next one, and the answer completes
    chat.send(.setDraft("Also"))
    let next = chat.nextRequestID
    let effects = Self.finishes(request, as: "s2", in: chat, at: 4)

    // Then the follow-up is sent, under its own client ID, and what the user is typing stays
    #expect(Self.sent(effects) == ["c2"])
    #expect(chat.state.requests[next] == .send("c2"))
    #expect(chat.state.followUps.isEmpty)
    #expect(chat.state.draft == "Also")
  }

  @Test("three follow-ups go one at a time, each after the answer before it, in the order written")
  func oneAtATime() {
    // Given three follow-ups written while the first answer streams
    let (chat, first) = Self.answering()
    for (index, id) in ["c2", "c3", "c4"].enumerated() { Self.writes("q\(index)", id: ClientMessageID(id), in: chat) }

    // When each answer completes in turn
    var order: [ClientMessageID] = []
    var request = first
    for (index, id) in ["c2", "c3", "c4"].enumerated() {
      let next = chat.nextRequestID
      order += Self.sent(Self.finishes(request, as: ServerMessageID("a\(index)"), in: chat, at: Double(4 + index)))
      // (one turn in flight, the rest waiting)
      #expect(chat.state.followUps.turns.count == 2 - index)
      #expect(chat.state.messages.outgoing.map(\.clientID) == [ClientMessageID(id)])
      Self.accepted(ClientMessageID(id), next, as: ServerMessageID("q\(index)"), in: chat)
      chat.send(.replyStarted(next, agent: nil, at: time(Double(4 + index))))
      request = next
    }

    // Then they went in order, exactly once each
    #expect(order == ["c2", "c3", "c4"])
    #expect(chat.state.followUps.isEmpty)
  }

  /// How an answer ends without completing.
  enum CutShort: String, CaseIterable, CustomTestStringConvertible {
    case stopped, failed, dropped

    var testDescription: String { rawValue }

    func end(_ request: RequestID, in chat: Chat) {
      switch self {
      case .stopped: chat.send(.stopReply)
      case .failed: chat.send(.requestFailed(request, ChatError(.providerError, "model down", status: 503)))
      case .dropped: chat.send(.replyEnded(request))
      }
    }
  }

  @Test(
    "an answer that ends without completing pauses the queue; resuming sends the next", arguments: CutShort.allCases)
  func cutShortPauses(ending: CutShort) throws {
    // Given a follow-up waiting behind a streaming answer
    let (chat, request) = Self.answering()
    Self.writes("And the invoice?", id: "c2", in: chat)

    // When the answer ends without completing
    ending.end(request, in: chat)

    // Then nothing is sent: the queue is paused, naming the answer and how it ended
    let answer = try #require(chat.state.messages.last)
    #expect(answer.reply?.isCutShort == true)
    #expect(chat.state.followUps.pause == .answerEnded(answer.clientID, try #require(answer.reply)))
    #expect(chat.state.followUps.turns.map(\.clientID) == ["c2"])
    #expect(!chat.state.messages.contains("c2"))

    // When the user resumes it
    let effects = chat.send(.resumeQueue)

    // Then the follow-up goes, once, and nothing pauses again for the same answer
    #expect(Self.sent(effects) == ["c2"])
    #expect(chat.state.followUps.pause == nil && chat.state.followUps.isEmpty)
  }

  @Test("emptying a paused queue lifts the pause: the next follow-up waits only for the answer before it")
  func emptiedQueueIsNotPaused() {
    // Given a queue paused by a stopped answer
    let (chat, _) = Self.answering()
    Self.writes("And the invoice?", id: "c2", in: chat)
    chat.send(.stopReply)
    #expect(chat.state.followUps.pause != nil)

    // When the user takes the only waiting turn out
    chat.send(.removeQueued("c2"))

    // Then nothing is queued and nothing is paused
    #expect(chat.state.followUps == FollowUpQueue())
  }

  @Test("past the bound a follow-up is refused with a typed error, and what the user wrote stays in the composer")
  func bounded() {
    // Given as many follow-ups as the queue holds
    let (chat, _) = Self.answering()
    for index in 0..<ChatPolicy.maximumFollowUps {
      Self.writes("q\(index)", id: ClientMessageID("f\(index)"), in: chat)
    }

    // When the user writes one more
    Self.writes("one too many", id: "extra", in: chat)

    // Then it is refused, not queued and not lost
    #expect(chat.state.userError?.code == .tooManyFollowUps)
    #expect(chat.state.followUps.turns.count == ChatPolicy.maximumFollowUps)
    #expect(chat.state.draft == "one too many")
  }

  @Test("a message of the user's that fails pauses the queue behind it")
  func failedSendPauses() {
    // Given a question on its way and a follow-up queued behind it
    let chat = Chat.existing()
    let request = chat.userSends("Where is it?", id: "c1")
    Self.writes("And the invoice?", id: "c2", in: chat)
    #expect(chat.state.followUps.turns.map(\.clientID) == ["c2"])

    // When the question fails to send
    chat.send(.requestFailed(request, ChatError(.messageTooLong, "too long", status: 413)))

    // Then the follow-up waits, paused, rather than answering a question the agent never got
    #expect(chat.state.followUps.pause == .sendFailed("c1"))
    #expect(!chat.state.messages.contains("c2"))
  }

  @Test("an answer that waits for the user holds the queue without pausing it; approved and completed, it drains")
  func awaitingHolds() throws {
    // Given an answer that asks for an approval, with a follow-up written while it streamed
    let (chat, request) = StreamingTests.replying()
    Self.writes("Thanks", id: "c2", in: chat)
    chat.send([
      .toolCallStarted(request, AwaitingReplyTests.refund), .inputRequested(request, AwaitingReplyTests.approval),
      .replyFinished(
        request, message: Message(clientID: "x", serverID: "s2", role: .assistant, text: "", createdAt: time(3))),
    ])

    // Then the follow-up holds, not paused
    #expect(chat.state.followUps.turns.map(\.clientID) == ["c2"])
    #expect(chat.state.followUps.pause == nil)

    // When the user approves, and the continuation completes
    let (run, _) = try #require(AwaitingReplyTests.continuation(in: chat.send(.answerInput("int-1", .approved))))
    chat.send(.replyStarted(run, agent: nil, at: time(4)))
    let effects = Self.finishes(run, as: "s2", in: chat, at: 5)

    // Then the follow-up goes
    #expect(Self.sent(effects) == ["c2"])
  }

  @Test("the user edits, moves, removes and takes back waiting turns; they keep their client IDs")
  func userChangesTheQueue() {
    // Given three follow-ups waiting
    let (chat, _) = Self.answering()
    for id in ["c2", "c3", "c4"] { Self.writes("text of \(id)", id: ClientMessageID(id), in: chat) }

    // When the user edits one, moves the last first, removes one and takes one back into the draft
    chat.send(.editQueued("c3", text: "c3, reworded"))
    chat.send(.moveQueued("c4", to: 0))
    #expect(chat.state.followUps.turns.map(\.clientID) == ["c4", "c2", "c3"])
    chat.send(.moveQueued("c4", to: 99))
    #expect(chat.state.followUps.turns.map(\.clientID) == ["c2", "c3", "c4"])
    chat.send(.removeQueued("c2"))
    chat.send(.takeQueuedIntoDraft("c4"))

    // Then one waits, reworded, and the taken-back text is in the composer
    #expect(chat.state.followUps.turns.map(\.text) == ["c3, reworded"])
    #expect(chat.state.followUps.turns.map(\.clientID) == ["c3"])
    #expect(chat.state.draft == "text of c4")
  }

  @Test(
    "a change to a turn that does not wait, or to an empty text, is refused and changes nothing",
    arguments: [
      (ConversationAction.editQueued("c9", text: "x"), ChatError.Code.unknownMessage),
      (.editQueued("c2", text: "   "), .emptyMessage),
      (.editQueued("c2", text: String(repeating: "x", count: 10_001)), .messageTooLong),
      (.removeQueued("c1"), .unknownMessage),
      (.moveQueued("c9", to: 0), .unknownMessage),
      (.takeQueuedIntoDraft("c9"), .unknownMessage),
      (.sendQueuedNow("c9"), .unknownMessage),
      (.send(OutgoingMessage(clientID: "c2", text: "again", createdAt: time(5))), .invalidAction),
    ])
  func refused(action: ConversationAction, code: ChatError.Code) {
    // Given a follow-up waiting
    let (chat, _) = Self.answering()
    Self.writes("And the invoice?", id: "c2", in: chat)
    let before = chat.state

    // When the user does what cannot be done
    let effects = chat.send(action)

    // Then it is refused with a typed error, and nothing else changed
    #expect(effects.isEmpty)
    #expect(chat.state.userError?.code == code)
    var expected = before
    expected.userError = chat.state.userError
    #expect(chat.state == expected)
  }

  @Test("send now stops the streaming answer, keeping its text, sends the turn, and the others wait for its answer")
  func sendNow() {
    // Given two follow-ups behind a streaming answer
    let (chat, request) = Self.answering()
    Self.writes("First", id: "c2", in: chat)
    Self.writes("Urgent", id: "c3", in: chat)

    // When the user sends the second now
    let effects = chat.send(.sendQueuedNow("c3"))

    // Then the answer is stopped with what it streamed, the urgent one goes, the other still waits
    #expect(effects.contains(.cancel(request)))
    #expect(Self.sent(effects) == ["c3"])
    let stopped = chat.state.messages.last { $0.role == .assistant }
    #expect(stopped?.text == "Let me look" && stopped?.reply == .cancelled)
    #expect(chat.state.followUps.turns.map(\.clientID) == ["c2"])
    #expect(chat.state.followUps.pause == nil)
  }

  @Test("the policy chooses: a second reply beside the first, or the first stopped")
  func policies() {
    // Given answers streaming under each of the other policies
    let (overlapping, first) = Self.answering(policy: .overlapping)
    var stopping = ChatPolicy()
    stopping.whileAnswering = .stopAndSend
    let (stopped, running) = Self.answering(policy: stopping)

    // When the user writes a follow-up in each
    let beside = overlapping.send(.send(OutgoingMessage(clientID: "c2", text: "Two", createdAt: time(3))))
    let afterStop = stopped.send(.send(OutgoingMessage(clientID: "c2", text: "Two", createdAt: time(3))))

    // Then it goes at once in both; the first answer streams on in one and is stopped in the other
    #expect(Self.sent(beside) == ["c2"] && Self.sent(afterStop) == ["c2"])
    #expect(overlapping.state.streamingReply?.requestID == first && overlapping.state.followUps.isEmpty)
    #expect(afterStop.contains(.cancel(running)) && stopped.state.streamingReply == nil)
  }

  @Test("with a person in the chat, or offline, every message goes as it always has")
  func notQueued() {
    // Given an answer streaming while a human agent takes over
    let (chat, _) = Self.answering()
    chat.send(.realtime("conv-1", .statusChanged(.takenOver)))

    // When the user writes
    let effects = chat.send(.send(OutgoingMessage(clientID: "c2", text: "Hello?", createdAt: time(3))))

    // Then it is sent at once
    #expect(Self.sent(effects) == ["c2"])
    #expect(chat.state.followUps.isEmpty)

    // And offline, two messages written one after the other wait in the conversation in order
    let offline = Chat.existing()
    let connection = offline.connected()
    offline.send(.connectionLost(connection, ChatError(.network, "tunnel"), at: time(5), jitter: 0.5))
    offline.userSends("one", id: "o1")
    offline.userSends("two", id: "o2")
    #expect(offline.state.messages.outgoing.map(\.clientID) == ["o1", "o2"])
    #expect(offline.state.followUps.isEmpty)
  }

  @Test("guidance written while the agent answers goes next, ahead of the follow-ups written before it")
  func steeringGoesFirst() {
    // Given an answer streaming and two follow-ups waiting
    let (chat, request) = Self.answering()
    Self.writes("And the invoice?", id: "c2", in: chat)
    Self.writes("And the receipt?", id: "c3", in: chat)

    // When the user steers the running turn
    chat.send(.setDraft("Use the EU store"))
    let steered = chat.send(.steer(OutgoingMessage(clientID: "g1", text: "Use the EU store", createdAt: time(3))))

    // Then nothing is sent yet (no protocol takes input into a running turn): it waits first in the queue
    #expect(Self.sent(steered).isEmpty)
    #expect(chat.state.followUps.turns.map(\.clientID) == ["g1", "c2", "c3"])
    #expect(chat.state.draft == "")

    // When the answer completes, the guidance is what goes
    #expect(Self.sent(Self.finishes(request, as: "s2", in: chat, at: 4)) == ["g1"])
  }

  @Test("guidance with nothing answering and nothing waiting is sent at once, as a message is")
  func steeringWhileIdleSends() {
    // Given a conversation whose last answer completed
    let (chat, request) = Self.answering()
    _ = Self.finishes(request, as: "s2", in: chat, at: 4)

    // When the user steers
    let effects = chat.send(.steer(OutgoingMessage(clientID: "g1", text: "Shorter, please", createdAt: time(5))))

    // Then it is sent at once
    #expect(Self.sent(effects) == ["g1"])
    #expect(chat.state.followUps.isEmpty)
  }
}
