import ConversationState
import Foundation
import Reducers
import Testing

@Suite("Identity and the read cursor")
struct IdentityAndReadTests {
  @Test("opening a conversation by an empty ID is refused and changes nothing else")
  func openEmptyID() {
    let chat = Chat.existing([.server("Hi", id: "s1", at: 1)])
    var expected = chat.state
    let effects = chat.send(.open(""))
    #expect(effects.isEmpty)
    #expect(chat.state.userError?.code == .invalidAction)
    expected.userError = chat.state.userError
    #expect(chat.state == expected)
  }

  @Test("a response from before sign-out that arrives after it is ignored")
  func lateResponseAfterSignOut() {
    let chat = Chat.existing()
    let request = chat.userSends("secret", id: "c1")
    let effects = chat.send(.signOut)
    #expect(effects.contains(.cancel(request)))
    #expect(chat.state.messages.isEmpty)
    #expect(chat.state.epoch == IdentityEpoch(1))
    let signedOut = chat.state

    chat.send(
      .sendAccepted(
        request, confirmed: .confirmed("secret", clientID: "c1", serverID: "s1", at: 1), conversationID: "conv-1"))
    chat.send(.replyStarted(request, agent: nil, at: time(2)))
    chat.send(.replyDelta(request, "leak"))
    chat.send(.requestFailed(request, ChatError(.network, "x")))

    #expect(chat.state == signedOut)
  }

  @Test("signing out mid-stream cancels the stream and drops queued work")
  func signOutMidStream() {
    let (chat, request) = StreamingTests.replying()
    chat.send(.replyDelta(request, "half"))
    let connection = chat.connected()
    let effects = chat.send(.identify(UserIdentity(userID: "someone-else")))
    #expect(effects.contains(.cancel(request)))
    #expect(effects.contains(.cancel(connection)), "the connection of the old identity is closed")
    #expect(chat.state.streamingReply == nil)
    #expect(chat.state.messages.isEmpty)
    #expect(chat.state.requests.isEmpty)
    #expect(chat.state.identity?.userID == "someone-else")
  }

  @Test("identifying as the same user again changes nothing")
  func sameIdentity() {
    let chat = Chat.existing([.server("keep", id: "s1", at: 1)])
    chat.send(.identify(UserIdentity(userID: "u1")))
    let before = chat.state
    #expect(chat.send(.identify(UserIdentity(userID: "u1"))) == [])
    #expect(chat.state == before)
  }

  @Test("identifying the same person with a new display name takes the name and keeps the conversation")
  func samePersonNewName() {
    let chat = Chat.existing([.server("keep", id: "s1", at: 1)])
    chat.send(.identify(UserIdentity(userID: "u1")))
    chat.send(.setDraft("half a thought"))
    let epoch = chat.state.epoch

    #expect(chat.send(.identify(UserIdentity(userID: "u1", displayName: "Ana"))) == [])

    #expect(chat.state.identity?.displayName == "Ana")
    #expect(chat.state.epoch == epoch)
    #expect(chat.state.draft == "half a thought")
  }

  @Test("the same user ID in another workspace is another person: the conversation clears")
  func otherWorkspace() {
    let chat = Chat.existing([.server("keep", id: "s1", at: 1)])
    chat.send(.identify(UserIdentity(userID: "u1", workspaceID: "w1")))
    let epoch = chat.state.epoch

    chat.send(.identify(UserIdentity(userID: "u1", workspaceID: "w2")))

    #expect(chat.state.epoch != epoch)
    #expect(chat.state.messages.isEmpty)
  }

  @Test("clear starts a new conversation for the same identity and cancels its work")
  func clearConversation() {
    let chat = Chat.existing([.server("old", id: "s1", at: 1)])
    let history = chat.nextRequestID
    chat.send(.loadMoreHistory(pageSize: 10))
    let effects = chat.send(.clear)
    #expect(effects.contains(.cancel(history)))
    #expect(chat.state.messages.isEmpty)
    #expect(chat.state.conversationID == nil)
    #expect(chat.state.epoch == IdentityEpoch(0))
  }

  @Test("the read cursor only moves forward and the unread count follows it")
  func readCursorMonotonic() {
    let chat = Chat.existing([
      .server("a", id: "s1", at: 1), .server("me", id: "s2", role: .user, at: 2), .server("b", id: "s3", at: 3),
      .server("c", id: "s4", at: 4),
    ])
    #expect(chat.state.unreadCount == 3, "the user's own message is never unread")

    chat.send(.markRead(upTo: "s3"))
    #expect(chat.state.unreadCount == 1)
    chat.send(.markRead(upTo: "s1"))
    #expect(chat.state.readCursor?.messageID == "s3", "never backward")
    #expect(chat.state.unreadCount == 1)

    chat.send(.realtime("conv-1", .messageCreated(.server("d", id: "s5", at: 5))))
    #expect(chat.state.unreadCount == 2)
    chat.send(.realtime("conv-1", .messageCreated(.server("mine", id: "s6", role: .user, at: 6))))
    #expect(chat.state.unreadCount == 2)

    chat.send(.markRead(upTo: "s5"))
    #expect(chat.state.unreadCount == 0)
  }

  @Test("older history merged behind the read cursor is not unread")
  func historyBehindCursor() {
    let chat = Chat.existing([.server("new", id: "s10", at: 10)])
    chat.send(.markRead(upTo: "s10"))
    let request = chat.nextRequestID
    chat.send(.loadHistory(pageSize: 10))
    chat.send(
      .historyLoaded(request, HistoryPage(messages: [.server("old", id: "s1", at: 1)], nextCursor: nil, hasMore: false))
    )
    #expect(chat.state.unreadCount == 0)
  }

  @Test("marking an unknown message read is a typed background error that moves nothing")
  func markUnknownRead() {
    let chat = Chat.existing([.server("a", id: "s1", at: 1)])
    chat.send(.markRead(upTo: "nope"))
    #expect(chat.state.readCursor == nil)
    #expect(chat.state.backgroundError?.code == .unknownMessage)
  }

  @Test("clearError clears the user-action error and leaves the background one")
  func clearError() {
    let chat = Chat.existing()
    chat.send(.send(OutgoingMessage(clientID: "c1", text: "", createdAt: time(0))))
    chat.send(.realtime("conv-x", .titleChanged("?")))
    chat.send(.clearError)
    #expect(chat.state.userError == nil)
    #expect(chat.state.backgroundError?.code == .eventForOtherConversation)
  }
}

@Suite("Relaunch")
struct RelaunchTests {
  @Test("after a relaunch nothing is stuck: sending fails retryably, queued stays queued, the reply is kept")
  func restoredStateIsSettled() throws {
    // Given a conversation saved mid-flight: one message sending, one queued, a reply streaming, a page loading.
    let chat = Chat.existing([.server("Earlier", id: "s1", at: 1)], policy: .overlapping)
    let sending = chat.userSends("sent when the app died", id: "c1", at: 2)
    chat.send(
      .sendAccepted(
        sending, confirmed: .confirmed("sent when the app died", clientID: "c1", serverID: "s2", at: 2),
        conversationID: "conv-1"))
    chat.send([.replyStarted(sending, agent: nil, at: time(3)), .replyDelta(sending, "Half an")])
    chat.userSends("also sending", id: "c2", at: 4)
    chat.state.connection = .closed
    chat.userSends("queued offline", id: "c3", at: 5)
    chat.send(.loadMoreHistory(pageSize: 20))
    let saved = try JSONDecoder().decode(ConversationState.self, from: JSONEncoder().encode(chat.state))

    // When the app starts again with that state.
    let relaunched = Chat(saved, policy: .overlapping)
    #expect(relaunched.send(.relaunched) == [])

    // Then nothing waits for a request of the previous run, and nothing the user wrote is lost.
    let state = relaunched.state
    #expect(state.requests.isEmpty)
    #expect(!state.history.isLoadingHistory)
    #expect(state.streamingReply == nil)
    #expect(
      state.messages.map(\.text) == ["Earlier", "sent when the app died", "Half an", "also sending", "queued offline"])
    guard case .failed(let error) = state.messages[clientID: "c2"]?.delivery else {
      Issue.record("a message that was sending must come back failed")
      return
    }
    #expect(error.retryable)
    #expect(state.messages[clientID: "c3"]?.delivery == .pending, "the outbox still owns the queued message")
    #expect(state.connection == .idle)

    // And the outbox goes out on the next connection, with the failed one retryable by hand.
    let connect = relaunched.nextRequestID
    relaunched.send(.connect)
    let effects = relaunched.send(.connectionOpened(connect))
    #expect(effects.contains { if case .sendMessage(_, let payload) = $0 { payload.clientID == "c3" } else { false } })
    #expect(relaunched.send(.retry("c2")) == [], "it waits behind the one on its way")
    #expect(relaunched.state.messages[clientID: "c2"]?.delivery == .pending)
  }
}
