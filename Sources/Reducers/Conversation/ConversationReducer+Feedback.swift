import ConversationState

extension ConversationReducer {
  func rateAnswer(_ clientID: ClientMessageID, _ rating: Rating, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard let answer = state.messages[clientID: clientID], answer.role == .assistant || answer.role == .humanAgent
    else {
      return refuse(.unknownMessage, "There is no answer \(clientID) to rate.", &state)
    }
    guard let serverID = answer.serverID, let conversationID = state.conversationID else {
      return refuse(.invalidAction, "Only answers the server confirmed can be rated.", &state)
    }
    guard answer.rating != rating else { return [] }
    if let queueIn = outboxConversation(state) { return queueRating(of: answer, serverID, rating, in: queueIn, &state) }
    if state.acceptedRatings[clientID] == nil {
      state.acceptedRatings[clientID] = AcceptedRating(rating: answer.rating, requestSequence: 0)
    }
    let requestID = state.beginRequest(.rating(clientID, previous: answer.rating, requested: rating))
    state.messages.update(clientID) { $0.rating = rating }
    return [.submitRating(requestID, conversationID, serverID, rating)]
  }

  func rateConversation(_ rating: Rating, _ comment: String?, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard let moment = state.feedbackMoment, moment.phase == .open, let conversationID = state.conversationID else {
      return refuse(.invalidAction, "There is no open feedback question to answer.", &state)
    }
    guard rating != .none else { return refuse(.invalidAction, "Choose a rating.", &state) }
    if let queueIn = outboxConversation(state) { return queueFeedback(rating, comment, in: queueIn, &state) }
    let requestID = state.beginRequest(.feedback(previous: moment))
    state.feedbackMoment?.phase = .rated(rating, comment: comment)
    return [.submitFeedback(requestID, conversationID, rating, comment: comment)]
  }

  func escalate(_ draft: TicketDraft, _ state: inout ConversationState) -> [ConversationEffect] {
    if case .creating = state.escalation {
      return refuse(.invalidAction, "A ticket is already being created.", &state)
    }
    if draft.subject.allSatisfy(\.isWhitespace) || draft.body.allSatisfy(\.isWhitespace) {
      return refuse(.emptyMessage, "A ticket needs a subject and a description.", &state)
    }
    let requestID = state.beginRequest(.ticket)
    state.escalation = .creating(draft, requestID)
    return [.createTicket(requestID, state.conversationID, draft)]
  }
}
