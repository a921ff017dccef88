import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// Never two entries, for every server: echoes that carry only the server's ID, servers that name the
/// user's message only beside the finished answer, servers that never name it, and queued acks.
@Suite("Message identity across servers")
struct MessageIdentityTests {
  @Test(
    "a copy with only the server ID that arrives before the send's response ends as one entry",
    arguments: ["realtime", "sync", "history"])
  func serverIDOnlyCopyBeforeResponse(_ path: String) {
    let chat = Chat.existing()
    let request = chat.userSends("Where is my order?", id: "c1")
    let copy = Message.server("Where is my order?", id: "s1", role: .user, at: 1)  // client ID srv-s1
    switch path {
    case "realtime": chat.send(.realtime("conv-1", .messageCreated(copy)))
    case "sync":
      let connection = chat.connected()
      let lost = chat.send(.connectionLost(connection, ChatError(.network, "x"), at: time(1), jitter: 0))
      #expect(lost.contains(.startTimer(.reconnect, seconds: 0)))
      let reconnect = chat.nextRequestID
      chat.send(.timerFired(.reconnect, at: time(1)))
      let sync = chat.nextRequestID
      chat.send(.connectionOpened(reconnect))
      if chat.state.connection == .syncing {
        chat.send(.syncLoaded(sync, [copy]))
      } else {
        chat.send(.realtime("conv-1", .messageCreated(copy)))
      }
    default:
      let history = chat.nextRequestID
      chat.send(.loadHistory(pageSize: 20))
      chat.send(.historyLoaded(history, HistoryPage(messages: [copy], nextCursor: nil, hasMore: false)))
    }
    #expect(chat.state.messages.count == 2, "the copy and the pending send, until the response")

    chat.send(
      .sendAccepted(
        request, confirmed: .confirmed("Where is my order?", clientID: "c1", serverID: "s1", at: 1),
        conversationID: "conv-1"))

    #expect(chat.state.messages.count == 1)
    #expect(chat.state.messages[clientID: "c1"]?.serverID == "s1", "the entry the UI knows by client ID stays")
    #expect(chat.state.messages[clientID: "srv-s1"] == nil)
  }

  @Test("a server that names the user's message only beside the finished answer confirms it there")
  func userMessageIDOnFinish() {
    let chat = Chat.existing()
    let request = chat.userSends("Hi", id: "c1")
    chat.send(.replyDelta(request, "Hello!"))  // no start frame, no accepted event
    #expect(chat.state.streamingReply?.text.string == "Hello!")
    chat.send(
      .replyFinished(request, message: .server("Hello!", id: "s2", at: 2), userMessageID: "s1"))
    #expect(chat.state.messages.map(\.text) == ["Hi", "Hello!"])
    #expect(chat.state.messages[clientID: "c1"]?.serverID == "s1")
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .sent)
  }

  @Test("a server that never returns the ID: its first copy from the same author with the same text is matched")
  func reconciledByAuthorAndText() {
    let chat = Chat.existing()
    let request = chat.userSends("Is it shipped?", id: "c1", at: 10)
    var noID = Message.confirmed("Is it shipped?", clientID: "whatever", serverID: "x", at: 10)
    noID.serverID = nil
    chat.send(.sendAccepted(request, confirmed: noID, conversationID: "conv-1"))
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .sent)
    #expect(chat.state.messages[clientID: "c1"]?.serverID == nil)

    // Reopening the conversation: history has the server's copy, 40 s apart on the server's clock.
    let history = chat.nextRequestID
    chat.send(.loadHistory(pageSize: 20))
    let copy = Message.server("Is it shipped?", id: "s7", role: .user, at: 50)
    chat.send(.historyLoaded(history, HistoryPage(messages: [copy], nextCursor: nil, hasMore: false)))

    #expect(chat.state.messages.count == 1, "the question is never shown twice")
    #expect(chat.state.messages[clientID: "c1"]?.serverID == "s7")
  }

  @Test("a copy with the same text outside the match window is a different message")
  func outsideTheWindow() {
    let chat = Chat(.existing(), policy: ChatPolicy(echoMatchWindow: 60))
    let request = chat.userSends("ok", id: "c1", at: 0)
    var noID = Message.confirmed("ok", clientID: "c1", serverID: "x", at: 0)
    noID.serverID = nil
    chat.send(.sendAccepted(request, confirmed: noID, conversationID: "conv-1"))
    chat.send(.realtime("conv-1", .messageCreated(.server("ok", id: "s9", role: .user, at: 600))))
    #expect(chat.state.messages.count == 2)
  }

  @Test("accepted is not delivered: a queued message waits, survives its request's end, and its copy confirms it")
  func queuedThenDelivered() {
    let chat = Chat.existing()
    let request = chat.userSends("Call me back", id: "c1", at: 5)
    chat.send(.sendQueued(request))
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .queued)
    chat.send(.replyEnded(request))
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .queued, "the end of its request does not fail it")
    #expect(chat.state.requests.isEmpty)

    chat.send(.realtime("conv-1", .messageCreated(.server("Call me back", id: "s3", role: .user, at: 6))))
    #expect(chat.state.messages.count == 1)
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .sent)
    #expect(chat.state.messages[clientID: "c1"]?.serverID == "s3")
  }

  @Test("deltas that arrive before any start frame start the reply")
  func deltaWithoutStart() {
    let chat = Chat.existing([.server("Earlier", id: "s0", at: 100)])
    let request = chat.userSends("Hi", id: "c1")
    chat.send(
      .sendAccepted(
        request, confirmed: .confirmed("Hi", clientID: "c1", serverID: "s1", at: 101), conversationID: "conv-1"))
    chat.send([.replyDelta(request, "Hel"), .replyDelta(request, "lo")])
    #expect(chat.state.streamingReply?.text.string == "Hello")
    #expect(chat.state.rowIndex(of: chat.state.streamingReply!.clientID) == 2, "after its question")
    #expect(chat.send(.replyDelta(RequestID(epoch: IdentityEpoch(), sequence: 99), "stale")) == [])
  }
}

@Suite("Overlapping replies")
struct OverlappingReplyTests {
  @Test("two replies streaming at once end as exactly two answers, each in the row it was shown in")
  func twoRepliesAtOnce() {
    let chat = Chat.existing(policy: .overlapping)
    let first = chat.userSends("one", id: "c1")
    let second = chat.userSends("two", id: "c2")
    chat.send(.replyDelta(first, "Let"))
    chat.send(.replyDelta(second, "Sure"))  // the second reply takes the stream; the first is kept as it was
    chat.send(.replyDelta(first, " me check"))
    chat.send(.replyFinished(second, message: .server("Sure thing.", id: "a2", at: 20)))
    chat.send(.replyFinished(first, message: .server("Let me check: shipped.", id: "a1", at: 10)))

    let answers = chat.state.messages.filter { $0.role == .assistant }
    #expect(answers.map(\.text) == ["Let me check: shipped.", "Sure thing."])
    #expect(answers.allSatisfy { $0.reply == .completed })
    #expect(answers.map(\.clientID) == ["reply-\(first)", "reply-\(second)"], "stable row IDs")
    #expect(chat.state.requests.isEmpty)
  }
}
