import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// `CONVERSATION_NOT_ONGOING` is said both when a conversation ended and when a person took it over (and
/// then messages go to them): the status follows what the server names, never a guess.
@Suite("Conversation status from errors, without guessing")
struct StatusFromErrorsTests {
  /// A refusal of the send `request`, naming the status when `named` is given.
  private static func notOngoing(naming named: ConversationStatus?) -> ChatError {
    var error = ChatError(.conversationNotOngoing, "The conversation is not with the AI agent.", status: 409)
    error.conversationStatus = named
    return error
  }

  @Test("a refusal that names a teammate's takeover moves the status there; the failed message goes to them")
  func namedTakeover() {
    // Given a conversation the AI agent had, and a message on its way
    let chat = Chat.existing()
    let send = chat.userSends("Can I change the address?", id: "c1")

    // When the server refuses it, saying a person has the conversation now
    let effects = chat.send(.requestFailed(send, Self.notOngoing(naming: .takenOver)))

    // Then the status is taken over, not ended, nothing is reloaded, and retrying sends to the teammate
    #expect(chat.state.status == .takenOver)
    #expect(!effects.contains { if case .fetchHistory = $0 { true } else { false } })
    let retried = chat.send(.retry("c1"))
    #expect(retried.contains { if case .sendMessage(_, let payload) = $0 { payload.clientID == "c1" } else { false } })
  }

  @Test(
    "an unnamed refusal guesses nothing: the status stays, the newest page is asked for, and what it says wins",
    arguments: [ConversationStatus?.some(.takenOver), .some(.ended), nil])
  func unnamedAsksTheNewestPage(pageSays: ConversationStatus?) {
    // Given a conversation the AI agent had, and a message on its way
    let chat = Chat.existing([.server("Hello!", id: "s1", at: 0)])
    let send = chat.userSends("Anyone there?", id: "c1", at: 1)

    // When the server refuses it without saying why
    let page = chat.nextRequestID
    let effects = chat.send(.requestFailed(send, Self.notOngoing(naming: nil)))

    // Then the status is not guessed: it stays, the newest page is asked for, and sends keep working
    #expect(chat.state.status == .ongoing)
    #expect(effects.contains(.fetchHistory(page, "conv-1", cursor: nil, limit: HistoryPaging.defaultPageSize)))
    #expect(chat.state.userError?.code == .conversationNotOngoing)
    let next = chat.nextRequestID
    let meanwhile = chat.send(.send(OutgoingMessage(clientID: "c2", text: "Hello?", createdAt: time(2))))
    #expect(meanwhile.contains { if case .sendMessage(next, _) = $0 { true } else { false } })

    // When the page comes, with the status the server keeps
    chat.send(
      .historyLoaded(
        page,
        HistoryPage(messages: [.server("Hello!", id: "s1", at: 0)], nextCursor: nil, hasMore: false, status: pageSays)))

    // Then the status is what the page says, and nothing else
    #expect(chat.state.status == pageSays ?? .ongoing)
    if pageSays == .ended {
      #expect(chat.send(.retry("c1")) == [], "an ended conversation takes no more messages")
    } else {
      chat.send(.retry("c1"))
      #expect(chat.state.messages[clientID: "c1"]?.delivery == .pending, "sent again once the one on its way is taken")
    }
  }

  @Test("a status event that follows an unnamed refusal decides it")
  func followingEventDecides() {
    let chat = Chat.existing()
    chat.connected()
    let send = chat.userSends("Hi", id: "c1")
    chat.send(.requestFailed(send, Self.notOngoing(naming: nil)))
    #expect(chat.state.status == .ongoing)

    chat.send(.realtime("conv-1", .statusChanged(.takenOver)))

    #expect(chat.state.status == .takenOver)
  }

  @Test("an unnamed refusal while a history page is loading asks for nothing more: that page tells")
  func unnamedDuringLoad() {
    // Given a history load in flight
    let chat = Chat.existing()
    let load = chat.nextRequestID
    chat.send(.loadHistory(pageSize: 20))
    let send = chat.userSends("Hi", id: "c1")

    // When the send is refused without a status
    let effects = chat.send(.requestFailed(send, Self.notOngoing(naming: nil)))

    // Then no second page is asked for; the one loading brings the status
    #expect(!effects.contains { if case .fetchHistory = $0 { true } else { false } })
    chat.send(.historyLoaded(load, HistoryPage(messages: [], nextCursor: nil, hasMore: false, status: .ended)))
    #expect(chat.state.status == .ended)
  }

  @Test("an outbox refusal follows the same rule: unnamed, the status stays and the newest page is asked for")
  func outboxRefusalAsks() {
    let chat = Chat.existing()
    let outgoing = OutgoingMessage(clientID: "c1", text: "Written offline", createdAt: time(1))
    let page = chat.nextRequestID

    let effects = chat.send(
      .outboxRejected(.send(outgoing), OutboxRejection(operationID: "send-c1", reason: .conversationNotOngoing).error))

    #expect(chat.state.status == .ongoing)
    #expect(effects.contains(.fetchHistory(page, "conv-1", cursor: nil, limit: HistoryPaging.defaultPageSize)))
  }
}
