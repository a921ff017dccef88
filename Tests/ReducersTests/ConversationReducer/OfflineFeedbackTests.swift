import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

@Suite("Ratings, feedback and read moves made offline go through the outbox")
struct OfflineFeedbackTests {
  /// An answered conversation, with the outbox, whose connection dropped.
  static func offline() -> Chat {
    let chat = Chat(
      .existing([.server("Where is my order?", id: "s1", role: .user, at: 1), .server("On its way", id: "s2", at: 2)]),
      policy: ChatPolicy(offlineDelivery: .outbox))
    let connection = chat.connected()
    chat.send(.connectionLost(connection, ChatError(.network, "tunnel"), at: time(5), jitter: 0.5))
    return chat
  }

  static func queued(_ effects: [ConversationEffect]) -> [OutboxOperation] {
    effects.compactMap { if case .enqueueOutbox(let operation) = $0 { operation } else { nil } }
  }

  @Test("a rating made offline shows at once and is queued, not requested")
  func ratingQueued() throws {
    // Given an offline conversation with an answer
    let chat = Self.offline()

    // When the user rates it
    let effects = chat.send(.rateAnswer("srv-s2", .up))

    // Then it shows, and the outbox gets it (no request that would fail offline)
    #expect(chat.state.messages[serverID: "s2"]?.rating == .up)
    let operation = try #require(Self.queued(effects).first)
    #expect(effects.count == 1)
    #expect(operation.kind == .rateAnswer("s2", .up, replacing: .none))
    #expect(operation.conversationID == "conv-1")
    #expect(chat.state.requests.isEmpty)
  }

  @Test("two offline ratings of one answer are two operations with different IDs, in order")
  func ratingsInOrder() {
    let chat = Self.offline()

    let first = Self.queued(chat.send(.rateAnswer("srv-s2", .up)))
    let second = Self.queued(chat.send(.rateAnswer("srv-s2", .down)))

    #expect(first.map(\.kind) == [.rateAnswer("s2", .up, replacing: .none)])
    #expect(second.map(\.kind) == [.rateAnswer("s2", .down, replacing: .up)])
    #expect(first.first?.id != second.first?.id)
  }

  @Test(
    "a queued rating the server refuses goes back to the one it replaced, with the typed error",
    arguments: OutboxRejection.Reason.allCases)
  func ratingRefused(reason: OutboxRejection.Reason) {
    // Given a rating queued offline
    let chat = Self.offline()
    let operation = Self.queued(chat.send(.rateAnswer("srv-s2", .down)))[0]

    // When the server refuses it
    let error = OutboxRejection(operationID: operation.id, reason: reason).error
    chat.send(.outboxRejected(operation.kind, error))

    // Then the answer shows what it had, and the user sees why
    #expect(chat.state.messages[serverID: "s2"]?.rating == Rating.none)
    #expect(chat.state.userError == error)
    #expect(chat.state.userError?.retryable == false)
  }

  @Test("a refusal of an older rating leaves a newer one the user made since")
  func newerRatingStays() {
    let chat = Self.offline()
    let up = Self.queued(chat.send(.rateAnswer("srv-s2", .up)))[0]
    chat.send(.rateAnswer("srv-s2", .down))

    chat.send(.outboxRejected(up.kind, OutboxRejection(operationID: up.id, reason: .invalid).error))

    #expect(chat.state.messages[serverID: "s2"]?.rating == .down)
  }

  @Test("an online rating still in flight when the connection drops rolls back to the queued one, not past it")
  func inFlightFailureKeepsQueued() {
    // Given a rating request in flight
    let chat = Chat(
      .existing([.server("Q", id: "s1", role: .user, at: 1), .server("A", id: "s2", at: 2)]),
      policy: ChatPolicy(offlineDelivery: .outbox))
    let connection = chat.connected()
    let request = chat.nextRequestID
    chat.send(.rateAnswer("srv-s2", .up))

    // When the connection drops, the user rates again (queued), and the old request fails
    chat.send(.connectionLost(connection, ChatError(.network, "tunnel"), at: time(5), jitter: 0.5))
    chat.send(.rateAnswer("srv-s2", .down))
    chat.send(.requestFailed(request, ChatError(.network, "tunnel")))

    // Then the answer keeps the queued rating
    #expect(chat.state.messages[serverID: "s2"]?.rating == .down)
  }

  @Test("the feedback answer given offline is queued; refused, the question opens again")
  func feedbackQueuedThenRefused() throws {
    // Given the feedback question, offline
    let chat = Self.offline()
    chat.send(.realtime("conv-1", .feedbackOffered(FeedbackPrompt(question: "How did we do?"))))

    // When the user answers it
    let operation = try #require(Self.queued(chat.send(.rateConversation(.up, comment: "quick"))).first)

    // Then it shows rated and is queued
    #expect(operation.kind == .rateConversation(.up, comment: "quick"))
    #expect(chat.state.feedbackMoment?.phase == .rated(.up, comment: "quick"))

    // When the server refuses it
    let error = OutboxRejection(operationID: operation.id, reason: .conversationNotFound).error
    chat.send(.outboxRejected(operation.kind, error))

    // Then it can be answered again, and says why
    #expect(chat.state.feedbackMoment?.phase == .open)
    #expect(chat.state.userError?.code == .conversationNotFound)
  }

  @Test("a read move made offline is queued once; refused, it goes with the next move")
  func readMoveQueued() {
    // Given an unread answer, offline
    let chat = Self.offline()

    // When the user reads it
    let operations = Self.queued(chat.send(.markRead(upTo: "s2")))

    // Then the move is queued, and the outbox now owns it
    #expect(operations.map(\.kind) == [.markRead(upTo: "s2")])
    #expect(chat.state.unreadCount == 0)
    #expect(chat.state.savedReadCursor == "s2")
    #expect(Self.queued(chat.send(.markRead(upTo: "s2"))).isEmpty, "no second operation for the same move")

    // When the server refuses it
    chat.send(.outboxRejected(operations[0].kind, ChatError(.unknownMessage, "gone")))

    // Then the cursor stays where the user read, and will be sent again
    #expect(chat.state.readCursor?.messageID == "s2")
    #expect(chat.state.savedReadCursor == nil)
    #expect(chat.state.backgroundError?.code == .unknownMessage)
    #expect(chat.state.userError == nil, "a read move is not the user's business")
  }

  @Test("online, ratings go out as requests as before")
  func onlineUnchanged() {
    let chat = Chat(
      .existing([.server("Q", id: "s1", role: .user, at: 1), .server("A", id: "s2", at: 2)]),
      policy: ChatPolicy(offlineDelivery: .outbox))
    _ = chat.connected()
    let request = chat.nextRequestID

    #expect(chat.send(.rateAnswer("srv-s2", .up)) == [.submitRating(request, "conv-1", "s2", .up)])
  }
}
