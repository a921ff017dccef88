import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

@Suite("Catch-up racing live events")
struct CatchUpRaceTests {
  @Test("a message missed while offline still arrives when a live echo lands before the catch-up")
  func missedMessageSurvivesAnEarlierEcho() {
    // Given a conversation that lost its connection after s3, and missed s4 while offline
    let chat = Chat(.existing([.server("answer", id: "s3", at: 3)]), policy: ChatPolicy(offlineDelivery: .outbox))
    let first = chat.connected()
    chat.send(.connectionLost(first, ChatError(.network, "drop"), at: time(4), jitter: 0.5))
    chat.send(.send(OutgoingMessage(clientID: "c5", text: "Are you still there?", createdAt: time(4.5))))
    chat.send(.outboxRecorded("c5"))

    // When it reconnects, and the outbox's echo of c5 arrives before the catch-up answers
    let connect = chat.nextRequestID
    chat.send(.timerFired(.reconnect, at: time(5)))
    let sync = chat.nextRequestID
    chat.send(.connectionOpened(connect))
    let echo = Message.server("Are you still there?", id: "s5", role: .user, at: 6, clientID: "c5")
    chat.send(.realtime("conv-1", .messageCreated(echo), connection: connect, receivedAt: time(6)))
    chat.send(
      .syncLoaded(sync, [.server("missed while offline", id: "s4", role: .humanAgent, at: 4.2), echo]))

    // Then both are there, in order
    #expect(chat.texts == ["answer", "missed while offline", "Are you still there?"])
  }
}
