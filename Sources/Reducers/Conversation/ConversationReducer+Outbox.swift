import ConversationState

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
      let outgoing = OutgoingMessage(
        clientID: message.clientID, text: message.text, attachments: message.attachments,
        createdAt: message.createdAt)
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

  /// The outbox could not keep the message, or the server refused it: it fails with the reason, for retry.
  func outboxRejected(_ clientID: ClientMessageID, _ error: ChatError, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    state.outboxRecording.remove(clientID)
    state.messages.update(clientID) { message in
      if message.delivery == .pending || message.delivery == .queued { message.delivery = .failed(error) }
    }
    return []
  }
}
