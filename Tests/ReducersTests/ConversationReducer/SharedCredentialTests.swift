import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// A conversation of a `ChatClient` shares the client's credential: when the client's fresh credential is
/// refused too, the conversation holds as if its own had been.
@Suite("A shared credential refused")
struct SharedCredentialTests {
  static let refused = ChatError(.unauthorized, "refused", status: 401)

  @Test("the client's credential refused: the connection closes, the send waits, nothing asks the provider")
  func heldUntilTheHostActs() {
    // Given a live conversation whose connection is reconnecting
    let chat = Chat.existing([.server("Hi", id: "s1", at: 1)])
    chat.connected()
    let reconnecting = chat.nextRequestID
    chat.send(
      .connectionLost(
        chat.state.requests.first { $0.value == .connect }!.key, ChatError(.network, "down"), at: time(2), jitter: 0.5))
    _ = reconnecting

    // When the client says its credential was refused and the provider cannot help
    let effects = chat.send(.credentialsNeeded(Self.refused))

    // Then the conversation shows it, closes its connection for good (no reconnect timer), asks no provider
    #expect(chat.state.needsCredentials)
    #expect(chat.state.connection == .closed)
    #expect(chat.state.backgroundError == Self.refused)
    #expect(effects.contains(.cancelTimer(.reconnect)))
    #expect(!effects.contains { if case .refreshCredentials = $0 { true } else { false } })

    // And a message written now waits
    chat.send(.send(OutgoingMessage(clientID: "q1", text: "Still there?", createdAt: time(3))))
    #expect(chat.state.messages[clientID: "q1"]?.delivery == .pending)

    // When the host has a fresh credential, the connection opens and the message goes
    let resumed = chat.send(.credentialsRefreshed)
    #expect(resumed.contains { if case .connectRealtime = $0 { true } else { false } })
    #expect(resumed.contains { if case .sendMessage = $0 { true } else { false } })
    #expect(chat.state.messages[clientID: "q1"]?.delivery == .sending)
  }

  @Test("a refresh the store started is overtaken: its late answer reopens nothing")
  func overtakesItsOwnRefresh() {
    // Given a store whose send was refused and whose own refresh runs
    let chat = Chat.existing([.server("Hi", id: "s1", at: 1)])
    chat.connected()
    let send = chat.userSends("Where is my order?", id: "q1", at: 2)
    let refresh = chat.nextRequestID
    let asked = chat.send(.requestFailed(send, Self.refused, at: time(3), jitter: 0.5))
    #expect(asked.contains(.refreshCredentials(refresh)))

    // When the client holds it
    let effects = chat.send(.credentialsNeeded(Self.refused))

    // Then the refresh is cancelled and forgotten
    #expect(effects.contains(.cancel(refresh)))
    #expect(chat.state.requests[refresh] == nil)
    #expect(chat.state.needsCredentials)
  }

  @Test("anything but an authorization failure is refused as an illegal action, and changes nothing else")
  func onlyAuthorizationFailures() {
    let chat = Chat.existing([.server("Hi", id: "s1", at: 1)])
    chat.connected()
    let before = chat.state
    let effects = chat.send(.credentialsNeeded(ChatError(.network, "down")))
    #expect(effects.isEmpty)
    #expect(chat.state.userError?.code == .invalidAction)
    var expected = before
    expected.userError = chat.state.userError
    #expect(chat.state == expected)
  }
}
