import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// A client opens a store at once and reads its file on its worker: the stored copy lands later, under
/// whatever the user did in between.
@Suite("A stored copy that lands after the store opened")
struct RestoredCopyTests {
  /// A store of `conv-1` opened before its file was read.
  static func restoring() -> Chat {
    var state = ConversationState(conversationID: "conv-1", identity: UserIdentity(userID: "u1"))
    state.isRestoring = true
    return Chat(state)
  }

  /// What the last run left of `conv-1`: two messages, a draft, a title, a message waiting in the outbox.
  static func stored() -> ConversationState {
    var stored = ConversationState.existing([
      .server("Hi, how can I help?", id: "s1", at: 1), .confirmed("My order", clientID: "u-1", serverID: "s2", at: 2),
    ])
    stored.title = "Order 1042"
    stored.draft = "stored draft"
    stored.messages.appendOutgoing(
      Message(clientID: "q-1", role: .user, text: "written offline", createdAt: .story(3), delivery: .queued))
    return stored
  }

  @Test("nothing happened meanwhile: the stored copy becomes the state, with this run's identity")
  func pristine() {
    // Given a store still reading its file
    let chat = Self.restoring()

    // When the stored copy arrives
    let effects = chat.send(.restored(Self.stored()))

    // Then it shows what was stored, no longer restoring, and asks for nothing
    #expect(effects == [])
    #expect(!chat.state.isRestoring)
    #expect(chat.state.messages.map(\.text) == ["Hi, how can I help?", "My order", "written offline"])
    #expect(chat.state.title == "Order 1042")
    #expect(chat.state.draft == "stored draft")
    #expect(chat.state.unreadCount == 1)
    #expect(chat.state.identity == UserIdentity(userID: "u1"))
  }

  @Test("a message sent and a draft typed while the file was read land after what was stored, and the send goes on")
  func userActedMeanwhile() {
    // Given the user sent a message and typed before the file was read
    let chat = Self.restoring()
    let send = chat.userSends("Any news?", id: "c-new", at: 10)
    chat.send(.setDraft("and also"))

    // When the stored copy arrives
    chat.send(.restored(Self.stored()))

    // Then the stored messages come first, the new one after them, still sending; the typed draft wins
    #expect(chat.state.messages.map(\.text) == ["Hi, how can I help?", "My order", "written offline", "Any news?"])
    #expect(chat.state.messages[clientID: "c-new"]?.delivery == .sending)
    #expect(chat.state.requests[send] == .send("c-new"))
    #expect(chat.state.draft == "and also")

    // And the server's answer to that send confirms it as usual
    chat.send(
      .sendAccepted(
        send, confirmed: .confirmed("Any news?", clientID: "c-new", serverID: "s3", at: 10), conversationID: "conv-1"))
    #expect(chat.state.messages[clientID: "c-new"]?.delivery == .sent)
    #expect(chat.state.messages.outgoing.map(\.clientID) == ["q-1"])
  }

  @Test("a history page that came first merges with the stored copy: no message twice, unread counted once")
  func historyFirst() {
    // Given a history page answered before the file was read, holding a message the file has too
    let chat = Self.restoring()
    let load = chat.nextRequestID
    chat.send(.loadHistory(pageSize: 20))
    chat.send(
      .historyLoaded(
        load,
        HistoryPage(
          messages: [.server("Hi, how can I help?", id: "s1", at: 1), .server("Shipped today", id: "s4", at: 20)],
          nextCursor: nil, hasMore: false)))

    // When the stored copy arrives
    chat.send(.restored(Self.stored()))

    // Then every message shows once, in server order, and both of the agent's count as unread once each
    #expect(
      chat.state.messages.map(\.text) == ["Hi, how can I help?", "My order", "Shipped today", "written offline"])
    #expect(chat.state.unreadCount == 2)
  }

  @Test(
    "a copy that no longer fits is ignored: the store is not restoring, or now shows another conversation",
    arguments: ["not restoring", "cleared", "opened another"])
  func ignored(story: String) {
    // Given a store that stopped waiting for this copy
    let chat = story == "not restoring" ? Chat.existing([.server("live", id: "s9", at: 9)]) : Self.restoring()
    if story == "cleared" { chat.send(.clear) }
    if story == "opened another" { chat.send(.open("conv-2")) }
    let before = chat.state

    // When the copy of conv-1 arrives
    let effects = chat.send(.restored(Self.stored()))

    // Then nothing changes
    #expect(effects == [])
    #expect(chat.state == before)
  }

  @Test("the new conversation's file read after the server created it: the copy lands, the ID is the server's")
  func newConversationCreatedMeanwhile() {
    // Given a new conversation's store still reading its file, the user's first message accepted meanwhile
    var state = ConversationState(conversationID: nil, identity: UserIdentity(userID: "u1"))
    state.isRestoring = true
    let chat = Chat(state)
    let send = chat.userSends("Where is my order?", id: "c-1", at: 1)
    chat.send(
      .sendAccepted(
        send, confirmed: .confirmed("Where is my order?", clientID: "c-1", serverID: "s1", at: 1),
        conversationID: "conv-9"))
    #expect(chat.state.conversationID == "conv-9")

    // When the new conversation's stored copy arrives (a draft the last run left there)
    var stored = ConversationState(conversationID: nil)
    stored.draft = "left unsent"
    chat.send(.restored(stored))

    // Then the store stops restoring (so it is written from now on), keeps the server's ID and its message
    #expect(!chat.state.isRestoring)
    #expect(chat.state.conversationID == "conv-9")
    #expect(chat.texts == ["Where is my order?"])
    #expect(chat.state.draft == "left unsent")
  }
}
