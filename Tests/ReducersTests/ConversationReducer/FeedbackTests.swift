import ConversationState
import Foundation
import Reducers
import Testing

@Suite("Ratings and the feedback moment")
struct FeedbackTests {
  static func answered() -> Chat {
    Chat.existing([.server("Q", id: "s1", role: .user, at: 1), .server("A", id: "s2", at: 2)])
  }

  @Test("rating an answer is optimistic and rolled back when the server refuses")
  func ratingRolledBack() {
    let chat = Self.answered()
    let request = chat.nextRequestID
    #expect(chat.send(.rateAnswer("srv-s2", .up)) == [.submitRating(request, "conv-1", "s2", .up)])
    #expect(chat.state.messages[serverID: "s2"]?.rating == .up)

    chat.send(.requestFailed(request, ChatError(.network, "offline")))
    #expect(chat.state.messages[serverID: "s2"]?.rating == Rating.none)
    #expect(chat.state.userError?.code == .network)
  }

  @Test("a later rating is not undone by an earlier one failing")
  func laterRatingWins() {
    let chat = Self.answered()
    let up = chat.nextRequestID
    chat.send(.rateAnswer("srv-s2", .up))
    chat.send(.rateAnswer("srv-s2", .down))
    chat.send(.requestFailed(up, ChatError(.network, "offline")))
    #expect(chat.state.messages[serverID: "s2"]?.rating == .down)
  }

  @Test("a rating can be cleared, and rating the same way twice asks nothing")
  func clearRating() {
    let chat = Self.answered()
    let up = chat.nextRequestID
    chat.send(.rateAnswer("srv-s2", .up))
    chat.send(.requestSucceeded(up))
    #expect(chat.send(.rateAnswer("srv-s2", .up)) == [])
    let clear = chat.nextRequestID
    #expect(chat.send(.rateAnswer("srv-s2", .none)) == [.submitRating(clear, "conv-1", "s2", .none)])
  }

  @Test("only answers can be rated", arguments: ["srv-s1", "missing"] as [ClientMessageID])
  func ratingRefused(_ target: ClientMessageID) {
    let chat = Self.answered()
    #expect(chat.send(.rateAnswer(target, .up)) == [])
    #expect(chat.state.userError?.code == .unknownMessage)
  }

  @Test("the feedback moment is offered at most once per conversation")
  func offeredOnce() {
    let chat = Self.answered()
    chat.send(.realtime("conv-1", .feedbackOffered(FeedbackPrompt(question: "How did we do?", agentName: "Fin"))))
    #expect(chat.state.feedbackMoment == FeedbackMoment(question: "How did we do?", agentName: "Fin"))
    chat.send(.dismissFeedback)
    #expect(chat.state.feedbackMoment?.phase == .dismissed)

    chat.send(.realtime("conv-1", .feedbackOffered(FeedbackPrompt(question: "Again?"))))
    #expect(chat.state.feedbackMoment?.phase == .dismissed)
  }

  @Test("the feedback moment goes away when the user writes again")
  func closesWhenUserWrites() {
    let chat = Self.answered()
    chat.send(.realtime("conv-1", .feedbackOffered(FeedbackPrompt(question: "How did we do?"))))
    chat.userSends("one more thing", id: "c9")
    #expect(chat.state.feedbackMoment == nil)
    chat.send(.realtime("conv-1", .feedbackOffered(FeedbackPrompt(question: "How did we do?"))))
    #expect(chat.state.feedbackMoment == nil, "and is not offered again")
  }

  @Test("rating the conversation is optimistic and returns to open on failure")
  func conversationRatingRolledBack() {
    let chat = Self.answered()
    chat.send(.realtime("conv-1", .feedbackOffered(FeedbackPrompt(question: "How did we do?"))))
    let request = chat.nextRequestID
    #expect(
      chat.send(.rateConversation(.up, comment: "quick")) == [.submitFeedback(request, "conv-1", .up, comment: "quick")]
    )
    #expect(chat.state.feedbackMoment?.phase == .rated(.up, comment: "quick"))
    chat.send(.requestFailed(request, ChatError(.network, "offline")))
    #expect(chat.state.feedbackMoment?.phase == .open)
  }

  @Test("rating the conversation with no open moment is refused")
  func conversationRatingRefused() {
    let chat = Self.answered()
    #expect(chat.send(.rateConversation(.down, comment: nil)) == [])
    #expect(chat.state.userError?.code == .invalidAction)
  }

  @Test("escalating creates a ticket; a failure keeps the draft")
  func escalation() {
    let chat = Self.answered()
    let draft = TicketDraft(subject: "Refund", category: "billing", priority: .high, body: "Charged twice")
    let request = chat.nextRequestID
    #expect(chat.send(.escalate(draft)) == [.createTicket(request, "conv-1", draft)])
    #expect(chat.send(.escalate(draft)) == [], "one ticket at a time")
    chat.send(.requestFailed(request, ChatError(.network, "offline")))
    #expect(chat.state.escalation == .failed(draft, ChatError(.network, "offline")))

    let retry = chat.nextRequestID
    chat.send(.escalate(draft))
    chat.send(.ticketCreated(retry, TicketReceipt(ticketID: "T-1")))
    #expect(chat.state.escalation == .created(TicketReceipt(ticketID: "T-1")))

    #expect(chat.send(.escalate(TicketDraft(subject: " ", body: "x"))) == [])
    #expect(chat.state.userError?.code == .emptyMessage)
  }
}
