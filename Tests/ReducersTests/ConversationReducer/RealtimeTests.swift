import ConversationState
import Foundation
import Reducers
import Testing

@Suite("Realtime events and typing")
struct RealtimeTests {
  @Test("a typing indicator expires on its timer")
  func typingExpires() {
    let chat = Chat.existing()
    let effects = chat.send(.realtime("conv-1", .typingStarted("agent-ana", at: time(0))))
    #expect(effects == [.startTimer(.typingExpiry("agent-ana"), seconds: ConversationReducer.typingLifetime)])
    #expect(chat.state.typing["agent-ana"] == time(6))

    chat.send(.timerFired(.typingExpiry("agent-ana"), at: time(6)))
    #expect(chat.state.typing.isEmpty)
  }

  @Test("a refreshed typing indicator outlives the first timer")
  func typingRefreshed() {
    let chat = Chat.existing()
    chat.send(.realtime("conv-1", .typingStarted("agent-ana", at: time(0))))
    chat.send(.realtime("conv-1", .typingStarted("agent-ana", at: time(4))))
    chat.send(.timerFired(.typingExpiry("agent-ana"), at: time(6)))
    #expect(chat.state.typing["agent-ana"] == time(10))
  }

  @Test("an indicator from a sender whose clock runs 2 s ahead waits out the rest after its timer, then goes")
  func typingFromAFastClock() {
    // Given a typing event routed without `receivedAt`, stamped by a clock 2 s ahead of this device's
    let chat = Chat.existing()
    chat.send(.realtime("conv-1", .typingStarted("agent-ana", at: time(2))))

    // When its timer fires at local time 6, before the sender-clock expiry of 8
    let effects = chat.send(.timerFired(.typingExpiry("agent-ana"), at: time(6)))

    // Then it is re-armed for the 2 s left, and goes when that fires
    #expect(effects == [.startTimer(.typingExpiry("agent-ana"), seconds: 2)])
    #expect(chat.state.typing["agent-ana"] == time(8))
    chat.send(.timerFired(.typingExpiry("agent-ana"), at: time(8)))
    #expect(chat.state.typing.isEmpty)
  }

  @Test("an indicator whose sender clock is more than a lifetime ahead goes when its timer fires")
  func typingFromAFarFastClock() {
    let chat = Chat.existing()
    chat.send(.realtime("conv-1", .typingStarted("agent-ana", at: time(3600))))
    #expect(chat.send(.timerFired(.typingExpiry("agent-ana"), at: time(6))).isEmpty)
    #expect(chat.state.typing.isEmpty)
  }

  @Test("typing is per participant and cleared by that participant's message")
  func typingClearedByMessage() {
    let chat = Chat.existing()
    chat.send(.realtime("conv-1", .typingStarted("agent-ana", at: time(0))))
    chat.send(.realtime("conv-1", .typingStarted("agent-bo", at: time(0))))
    chat.send(
      .realtime("conv-1", .messageCreated(.server("Hi", id: "s1", role: .humanAgent, at: 1, author: "agent-ana"))))
    #expect(Array(chat.state.typing.keys) == ["agent-bo"])
  }

  @Test("typing is cleared when the connection drops or is closed")
  func typingClearedOnDisconnect() {
    let chat = Chat.existing()
    let connection = chat.connected()
    chat.send(.realtime("conv-1", .typingStarted("agent-ana", at: time(0))))
    let effects = chat.send(.connectionLost(connection, ChatError(.network, "reset"), at: time(1), jitter: 0.5))
    #expect(chat.state.typing.isEmpty)
    #expect(effects.contains(.cancelTimer(.typingExpiry("agent-ana"))))

    let closing = Chat.existing()
    closing.connected()
    closing.send(.realtime("conv-1", .typingStarted("agent-ana", at: time(0))))
    closing.send(.disconnect)
    #expect(closing.state.typing.isEmpty)
  }

  @Test("typingStopped removes the indicator and its timer; the user's own typing is not shown")
  func typingStopped() {
    let chat = Chat.existing()
    chat.state.identity = UserIdentity(userID: "me")
    #expect(chat.send(.realtime("conv-1", .typingStarted("me", at: time(0)))) == [])
    chat.send(.realtime("conv-1", .typingStarted("agent-ana", at: time(0))))
    #expect(chat.send(.realtime("conv-1", .typingStopped("agent-ana"))) == [.cancelTimer(.typingExpiry("agent-ana"))])
    #expect(chat.state.typing.isEmpty)
  }

  @Test("the user's typing signal is sent only when it changes")
  func userTypingSignal() {
    let chat = Chat.existing()
    #expect(chat.send(.setTyping(true)) == [.sendTypingSignal("conv-1", isTyping: true, epoch: chat.state.epoch)])
    #expect(chat.send(.setTyping(true)) == [])
    let effects = chat.send(.send(OutgoingMessage(clientID: "c1", text: "done", createdAt: time(0))))
    #expect(
      effects.first == .sendTypingSignal("conv-1", isTyping: false, epoch: chat.state.epoch), "sending stops typing")
  }

  @Test("an event for another conversation is ignored with a typed background error")
  func eventForAnotherConversation() {
    let chat = Chat.existing()
    let before = chat.state.messages
    chat.send(.realtime("conv-other", .messageCreated(.server("wrong room", id: "s1", at: 1))))
    #expect(chat.state.messages == before)
    #expect(chat.state.backgroundError?.code == .eventForOtherConversation)
  }

  @Test("a realtime message without an ID is ignored with a typed background error")
  func messageWithoutID() {
    let chat = Chat.existing()
    var message = Message.server("?", id: "s1", at: 1)
    message.serverID = nil
    chat.send(.realtime("conv-1", .messageCreated(message)))
    #expect(chat.state.messages.isEmpty)
    #expect(chat.state.backgroundError?.code == .invalidEvent)
  }

  @Test("edits and deletes apply by server ID; ones for unknown messages are ignored")
  func editsAndDeletes() {
    let chat = Chat.existing([.server("Hello", id: "s1", at: 1), .server("Bye", id: "s2", at: 2)])
    var edited = Message.server("Hello!", id: "s1", at: 1)
    edited.editedAt = time(3)
    chat.send(.realtime("conv-1", .messageEdited(edited)))
    chat.send(.realtime("conv-1", .messageDeleted("s2")))
    #expect(chat.texts == ["Hello!"])
    #expect(chat.state.messages.first?.editedAt == time(3))
    #expect(chat.state.unreadCount == 1)

    // An edit or delete outside the loaded window: ignored, by design, with no error.
    let before = chat.state
    chat.send(.realtime("conv-1", .messageEdited(.server("old", id: "s-unloaded", at: 0))))
    chat.send(.realtime("conv-1", .messageDeleted("s-unloaded")))
    #expect(chat.state == before)
  }

  @Test("a transcript replaces an attachment's stand-in text in place")
  func transcriptReplacesPlaceholder() {
    var voice = Message.server("Audio", id: "s1", role: .user, at: 1)
    voice.isPlaceholderText = true
    let chat = Chat.existing([voice, .server("Got it", id: "s2", at: 2)])
    chat.send(.realtime("conv-1", .transcript("s1", text: "Where is my order?")))
    #expect(chat.texts == ["Where is my order?", "Got it"])
    #expect(chat.state.messages.first?.isPlaceholderText == false)
  }

  @Test("the title and status follow the server")
  func titleAndStatus() {
    let chat = Chat.existing()
    chat.send(.realtime("conv-1", .titleChanged("Order 42")))
    chat.send(.realtime("conv-1", .statusChanged(.takenOver)))
    #expect(chat.state.title == "Order 42")
    #expect(chat.state.status == .takenOver)
  }

  @Test("a late realtime message from an agent lands in server order, before newer ones")
  func lateMessageOrdered() {
    let chat = Chat.existing([.server("one", id: "s1", at: 1), .server("three", id: "s3", at: 3)])
    chat.send(.realtime("conv-1", .messageCreated(.server("two", id: "s2", at: 2))))
    #expect(chat.texts == ["one", "two", "three"])
  }
}
