import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// Signing in keeps the guest's chat when the host asks; an expired credential is never a silent stall.
@Suite("Identity upgrade and credentials")
struct CredentialTests {
  static let expired = ChatError(.invalidIdentity, "token expired", status: 401)

  @Test("signing in from anonymous keeps the conversation, unsent and failed messages and the draft when asked")
  func upgradeKeepsGuestChat() {
    let chat = Chat.existing([.server("Welcome", id: "s0", at: 0)])
    let connection = chat.connected()
    let failedSend = chat.userSends("failed", id: "c2", at: 1)
    chat.send(.requestFailed(failedSend, ChatError(.network, "x")))
    let sending = chat.userSends("on its way", id: "c1", at: 2)
    chat.send(.setDraft("half-written"))
    let oldEpoch = chat.state.epoch

    let effects = chat.send(.identify(UserIdentity(userID: "ana"), keepingGuestConversation: true))

    #expect(chat.state.epoch > oldEpoch, "a new epoch fences the old requests")
    #expect(effects.contains(.cancel(sending)) && effects.contains(.cancel(connection)))
    #expect(chat.state.conversationID == "conv-1")
    #expect(chat.state.draft == "half-written")
    #expect(chat.state.messages.map(\.text) == ["Welcome", "failed", "on its way"])
    #expect(chat.state.messages[clientID: "c2"]?.delivery == .failed(ChatError(.network, "x")))
    #expect(chat.state.connection == .connecting, "the connection re-opens for the signed-in person")
    // The message that was on its way goes out again, under the new epoch, with the same client ID.
    let resend = effects.compactMap { if case .sendMessage(let id, let payload) = $0 { (id, payload) } else { nil } }
    #expect(resend.map(\.1.clientID) == ["c1"])
    #expect(resend.allSatisfy { $0.0.epoch == chat.state.epoch })
    let newConnection = chat.state.requests.first { $0.value == .connect }!.key
    #expect(newConnection.epoch == chat.state.epoch)
    let sync = chat.nextRequestID
    let opened = chat.send(.connectionOpened(newConnection))
    #expect(opened.contains(.fetchMessagesAfter(sync, "conv-1", after: "s0")))
    // A late answer of the old epoch lands nowhere.
    chat.send(
      .sendAccepted(
        sending, confirmed: .confirmed("on its way", clientID: "c1", serverID: "s1", at: 1), conversationID: "conv-1"))
    #expect(chat.state.messages[clientID: "c1"]?.serverID == nil)
  }

  @Test(
    "signing in fresh, or switching between two people, always clears",
    arguments: [(nil, true), ("bo", true), ("bo", false)] as [(String?, Bool)])
  func switchingClears(_ previous: String?, _ keep: Bool) {
    var state = ConversationState.existing([.server("private", id: "s1", at: 1)])
    state.identity = previous.map { UserIdentity(userID: $0) }
    let chat = Chat(state)
    chat.send(.setDraft("secret"))
    chat.send(.identify(UserIdentity(userID: "ana"), keepingGuestConversation: previous == nil ? !keep : keep))
    #expect(chat.state.messages.isEmpty && chat.state.draft == "" && chat.state.conversationID == nil)
  }

  @Test(
    "a request that carried the old credential and fails after the refresh is sent again, not held against the new one")
  func staleFailureAfterRefresh() {
    // Given a send in flight when the token expires, and the connection failing first
    let chat = Chat.existing()
    let connection = chat.connected()
    let send = chat.userSends("Hi", id: "c1")
    chat.send(.connectionLost(connection, Self.expired, at: time(1), jitter: 0.5))
    #expect(chat.state.credentials == .refreshing)

    // When the refresh completes, then the send's own 401 (made with the old token) arrives
    chat.send(.credentialsRefreshed)
    let resend = chat.nextRequestID
    let effects = chat.send(.requestFailed(send, Self.expired))

    // Then the fresh credential is not given up on, and the message goes out again
    #expect(chat.state.credentials == .refreshed)
    #expect(!chat.state.needsCredentials)
    #expect(effects.contains { if case .sendMessage(resend, _) = $0 { true } else { false } })
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .sending)

    // But a request made after the refresh failing the same way means the fresh credential is refused too
    chat.send(.requestFailed(resend, Self.expired))
    #expect(chat.state.needsCredentials)
  }

  @Test("an authorization failure asks for a fresh credential once; sends wait, visibly, then resume")
  func refreshThenResume() {
    let chat = Chat.existing()
    let connection = chat.connected()
    let send = chat.userSends("Hi", id: "c1")
    let refresh = chat.nextRequestID
    let effects = chat.send(.requestFailed(send, Self.expired))
    #expect(effects.contains(.refreshCredentials(refresh)))
    #expect(effects.contains(.cancel(connection)), "the connection closes until the credential is fixed")
    #expect(chat.state.credentials == .refreshing)
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .pending, "held, not failed")
    chat.userSends("another", id: "c2")
    #expect(chat.state.messages[clientID: "c2"]?.delivery == .pending)

    let reconnect = chat.nextRequestID
    let resumed = chat.send(.credentialsRefreshed)
    #expect(resumed.contains(.connectRealtime(reconnect, "conv-1")))
    #expect(chat.state.credentials == .refreshed)
    chat.send(.connectionOpened(reconnect))
    #expect(chat.state.credentials == .valid, "a success proves the fresh credential")
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .sending)
  }

  @Test("a failure right after a refresh is surfaced as needs-credentials, never refreshed in a loop")
  func neverLoops() {
    let chat = Chat.existing()
    let first = chat.userSends("Hi", id: "c1")
    chat.send(.requestFailed(first, Self.expired))
    chat.send(.credentialsRefreshed)
    let again = chat.state.requests.first { if case .send = $0.value { true } else { false } }!.key
    let effects = chat.send(.requestFailed(again, Self.expired))
    #expect(!effects.contains { if case .refreshCredentials = $0 { true } else { false } })
    #expect(chat.state.needsCredentials)
    #expect(chat.state.credentials == .needed(Self.expired))
    // The host signs the person in again: a quiet refresh, same epoch.
    let epoch = chat.state.epoch
    chat.send(.credentialsRefreshed)
    #expect(chat.state.epoch == epoch && !chat.state.needsCredentials)
  }

  @Test("when no fresh credential can be had, the state says so")
  func providerFails() {
    let chat = Chat.existing()
    let connection = chat.connected()
    let refresh = chat.nextRequestID
    chat.send(.connectionLost(connection, Self.expired, at: time(1), jitter: 0.5))
    chat.send(.requestFailed(refresh, ChatError(.unauthorized, "signed out elsewhere")))
    #expect(chat.state.needsCredentials)
    #expect(chat.state.connection == .closed)
    #expect(chat.send(.timerFired(.reconnect, at: time(60))) == [], "never retried")
  }
}
