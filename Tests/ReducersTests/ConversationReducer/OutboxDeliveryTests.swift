import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

@Suite("Offline messages through the durable outbox")
struct OutboxDeliveryTests {
  static let policy = ChatPolicy(offlineDelivery: .outbox)

  /// A created conversation whose connection dropped.
  static func offline() -> Chat {
    let chat = Chat(.existing([.server("Hi", id: "s1", at: 1)]), policy: policy)
    let connection = chat.connected()
    chat.send(.connectionLost(connection, ChatError(.network, "tunnel"), at: time(5), jitter: 0.5))
    return chat
  }

  @Test("a message written offline is handed to the outbox, and shows queued once it is on disk")
  func handedOver() {
    // Given a conversation that is offline
    let chat = Self.offline()

    // When the user writes
    let effects = chat.send(.send(OutgoingMessage(clientID: "c1", text: "In the tunnel", createdAt: time(6))))

    // Then the message waits, handed to the outbox once
    let operation = OutboxOperation(
      id: "send-c1", conversationID: "conv-1",
      kind: .send(OutgoingMessage(clientID: "c1", text: "In the tunnel", createdAt: time(6))), enqueuedAt: time(6))
    #expect(effects.contains(.enqueueOutbox(operation)))
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .pending)
    #expect(chat.state.outboxRecording == ["c1"])
    #expect(!chat.send(.setDraft("x")).contains { if case .enqueueOutbox = $0 { true } else { false } })

    // When the outbox reports it stored
    chat.send(.outboxRecorded("c1"))

    // Then it shows queued
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .queued)
    #expect(chat.state.outboxRecording.isEmpty)
  }

  @Test("back online, the conversation does not send what the outbox owns; the server's copy confirms it")
  func outboxOwnsIt() {
    // Given a queued message in the outbox
    let chat = Self.offline()
    chat.send(.send(OutgoingMessage(clientID: "c1", text: "In the tunnel", createdAt: time(6))))
    chat.send(.outboxRecorded("c1"))

    // When the connection comes back
    let connect = chat.nextRequestID
    let reconnect = chat.send(.timerFired(.reconnect, at: time(6)))
    let sync = chat.nextRequestID
    let opened = chat.send(.connectionOpened(connect))
    let synced = chat.send(.syncLoaded(sync, []))

    // Then nothing sends it from here
    let all = reconnect + opened + synced
    #expect(!all.contains { if case .sendMessage = $0 { true } else { false } })

    // When the outbox's batch reached the server and its copy arrives
    let copy = Message.server("In the tunnel", id: "s2", role: .user, at: 7, clientID: "c1")
    chat.send(.realtime("conv-1", .messageCreated(copy), connection: connect, receivedAt: time(7)))

    // Then the message is sent, once
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .sent)
    #expect(chat.texts == ["Hi", "In the tunnel"])
  }

  @Test(
    "a message the outbox could not keep, or the server refused, fails with the reason and can be retried",
    arguments: [
      ChatError(.storageFailed, "disk full"),
      OutboxRejection(operationID: "send-c1", reason: .conversationNotOngoing).error,
    ])
  func rejected(error: ChatError) {
    let chat = Self.offline()
    chat.send(.send(OutgoingMessage(clientID: "c1", text: "In the tunnel", createdAt: time(6))))

    chat.send(
      .outboxRejected(.send(OutgoingMessage(clientID: "c1", text: "In the tunnel", createdAt: time(6))), error))

    #expect(chat.state.messages[clientID: "c1"]?.delivery == .failed(error))
    #expect(chat.state.outboxRecording.isEmpty)
    let retried = chat.send(.retry("c1"))
    #expect(retried.contains { if case .enqueueOutbox = $0 { true } else { false } }, "still offline: to the outbox")
  }

  @Test("a message being handed to the outbox cannot be discarded: it may already be on its way")
  func notDiscardedWhileRecording() {
    let chat = Self.offline()
    chat.send(.send(OutgoingMessage(clientID: "c1", text: "In the tunnel", createdAt: time(6))))

    chat.send(.discard("c1"))

    #expect(chat.state.userError?.code == .invalidAction)
    #expect(chat.state.messages.contains("c1"))
  }

  @Test("after a relaunch a hand-over that was never confirmed waits again, and is handed over again")
  func relaunchForgetsTheHandOver() {
    let chat = Self.offline()
    chat.send(.send(OutgoingMessage(clientID: "c1", text: "In the tunnel", createdAt: time(6))))

    chat.send(.relaunched)

    #expect(chat.state.outboxRecording.isEmpty)
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .pending)
  }

  @Test("the first message of a new conversation waits in the conversation: the send creates it")
  func newConversationWaitsHere() {
    let chat = Chat(policy: Self.policy)
    let connection = chat.connected()
    chat.send(.connectionLost(connection, ChatError(.network, "tunnel"), at: time(5), jitter: 0.5))

    let effects = chat.send(.send(OutgoingMessage(clientID: "c1", text: "Hello?", createdAt: time(6))))

    #expect(!effects.contains { if case .enqueueOutbox = $0 { true } else { false } })
    #expect(chat.state.messages[clientID: "c1"]?.delivery == .pending)
  }
}
