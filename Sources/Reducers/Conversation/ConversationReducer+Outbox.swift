import ConversationState
import Foundation

extension ConversationReducer {
  /// With `offlineDelivery == .outbox`, messages written offline in a conversation the server has created go
  /// to the durable outbox instead of waiting here: each is handed over once, and stays `pending` until the
  /// runtime reports it stored. A message with attachments still to upload waits for the connection (the
  /// outbox carries no bytes), as does the first message of a new conversation (which the send creates).
  func handToOutbox(_ state: inout ConversationState) -> [ConversationEffect] {
    guard policy.offlineDelivery == .outbox, let conversationID = state.conversationID else { return [] }
    var effects: [ConversationEffect] = []
    for message in state.messages.outgoing
    where message.delivery == .pending && !state.outboxRecording.contains(message.clientID)
      && attachmentsToUpload(message).isEmpty
    {
      state.outboxRecording.insert(message.clientID)
      var outgoing = OutgoingMessage(
        clientID: message.clientID, text: message.text, attachments: message.attachments,
        createdAt: message.createdAt)
      outgoing.placement = sendPlacement(of: message.clientID, state)
      effects.append(
        .enqueueOutbox(
          OutboxOperation(
            id: OutboxOperationID(rawValue: "send-\(message.clientID.rawValue)"), conversationID: conversationID,
            kind: .send(outgoing), enqueuedAt: message.createdAt)))
    }
    return effects
  }

  /// The outbox has the message on disk: it is `queued` until the server's copy of it arrives.
  func outboxRecorded(_ clientID: ClientMessageID, _ state: inout ConversationState) -> [ConversationEffect] {
    guard state.outboxRecording.remove(clientID) != nil else { return [] }
    state.messages.update(clientID) { message in
      if message.delivery == .pending { message.delivery = .queued }
    }
    return []
  }

  /// Where what the user does now goes to the durable outbox instead of a request: offline, with
  /// `offlineDelivery == .outbox`, in a conversation the server has created. nil: it goes out as a request.
  func outboxConversation(_ state: ConversationState) -> ConversationID? {
    guard policy.offlineDelivery == .outbox, state.connection.isOffline else { return nil }
    return state.conversationID
  }

  /// A rating made offline: shown at once and queued. The ID names the content, so the same operation made
  /// again under a reused sequence number (after a crash lost the last one) is a harmless duplicate.
  func queueRating(
    of answer: Message, _ serverID: ServerMessageID, _ rating: Rating, in conversationID: ConversationID,
    _ state: inout ConversationState
  ) -> [ConversationEffect] {
    state.requestSequence += 1
    if state.acceptedRatings[answer.clientID] != nil {
      // A rating request still in flight that fails must roll back to this one, not past it.
      state.acceptedRatings[answer.clientID] = AcceptedRating(rating: rating, requestSequence: state.requestSequence)
    }
    state.messages.update(answer.clientID) { $0.rating = rating }
    let id = "rate-\(conversationID)-\(serverID)-\(rating)-\(state.epoch.rawValue)-\(state.requestSequence)"
    return [
      .enqueueOutbox(
        OutboxOperation(
          id: OutboxOperationID(rawValue: id), conversationID: conversationID,
          kind: .rateAnswer(serverID, rating, replacing: answer.rating), enqueuedAt: answer.createdAt))
    ]
  }

  /// The answer to the feedback question, given offline: shown rated at once and queued.
  func queueFeedback(
    _ rating: Rating, _ comment: String?, in conversationID: ConversationID, _ state: inout ConversationState
  ) -> [ConversationEffect] {
    state.requestSequence += 1
    let time = state.messages.lastCommitted?.createdAt ?? Date(timeIntervalSinceReferenceDate: 0)
    state.feedbackMoment?.phase = .rated(rating, comment: comment)
    let id = "feedback-\(conversationID)-\(state.epoch.rawValue)-\(state.requestSequence)"
    return [
      .enqueueOutbox(
        OutboxOperation(
          id: OutboxOperationID(rawValue: id), conversationID: conversationID,
          kind: .rateConversation(rating, comment: comment), enqueuedAt: time))
    ]
  }

  /// The read cursor, moved offline: the outbox now owns sending it.
  func queueReadCursor(_ state: inout ConversationState) -> [ConversationEffect] {
    guard let conversationID = state.conversationID, let cursor = state.readCursor,
      cursor.messageID != state.savedReadCursor
    else { return [] }
    state.savedReadCursor = cursor.messageID
    let time = state.messages[serverID: cursor.messageID]?.createdAt ?? Date(timeIntervalSinceReferenceDate: 0)
    return [
      .enqueueOutbox(
        OutboxOperation(
          id: OutboxOperationID(rawValue: "read-\(conversationID)-\(cursor.messageID)"),
          conversationID: conversationID, kind: .markRead(upTo: cursor.messageID), enqueuedAt: time))
    ]
  }

  /// The outbox could not keep an operation, or the server refused it: what it showed is undone, with the
  /// reason.
  func outboxRejected(_ kind: OutboxOperation.Kind, _ error: ChatError, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    switch kind {
    case .send(let outgoing):
      let clientID = outgoing.clientID
      state.outboxRecording.remove(clientID)
      state.messages.update(clientID) { message in
        if message.delivery == .pending || message.delivery == .queued { message.delivery = .failed(error) }
      }
    case .rateAnswer(let serverID, let rating, let replaced):
      if let answer = state.messages[serverID: serverID] {
        // A later rating the user made since stays; only the refused one is undone.
        if answer.rating == rating { state.messages.update(answer.clientID) { $0.rating = replaced } }
        if state.acceptedRatings[answer.clientID]?.rating == rating {
          state.acceptedRatings[answer.clientID]?.rating = replaced
        }
      }
      state.userError = error
    case .rateConversation(let rating, let comment):
      if state.feedbackMoment?.phase == .rated(rating, comment: comment) { state.feedbackMoment?.phase = .open }
      state.userError = error
    case .markRead(let upTo):
      if state.savedReadCursor == upTo { state.savedReadCursor = nil }
      state.backgroundError = error
    case .host:
      // The host hears of its own operations (`ChatClientOptions.onHostOperation`); the chat shows nothing.
      return []
    }
    return followServerStatus(error, &state)
  }
}
