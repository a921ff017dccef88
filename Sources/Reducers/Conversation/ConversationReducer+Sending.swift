import ConversationState
import Foundation

extension ConversationReducer {
  func send(_ outgoing: OutgoingMessage, _ state: inout ConversationState) -> [ConversationEffect] {
    if state.status == .ended {
      return refuse(.conversationNotOngoing, "This conversation has ended.", &state)
    }
    if outgoing.text.allSatisfy(\.isWhitespace) && outgoing.attachments.isEmpty {
      return refuse(.emptyMessage, "Write a message or attach a file.", &state)
    }
    if outgoing.attachments.count > MessageAttachment.maximumPerMessage {
      return refuse(
        .tooManyAttachments, "A message can carry at most \(MessageAttachment.maximumPerMessage) attachments.", &state)
    }
    if let tooLarge = outgoing.attachments.first(where: {
      !(0...MessageAttachment.maximumByteSize).contains($0.byteSize)
    }) {
      return refuse(.attachmentTooLarge, "\(tooLarge.filename) is larger than 8 MiB.", &state)
    }
    if state.messages.contains(outgoing.clientID) {
      return refuse(.invalidAction, "A message with client ID \(outgoing.clientID) was already sent.", &state)
    }
    let author = state.identity.map { ParticipantID($0.userID) }
    let message = Message(
      clientID: outgoing.clientID, role: .user, author: author, text: outgoing.text, createdAt: outgoing.createdAt,
      delivery: .pending, attachments: outgoing.attachments)
    state.messages.appendOutgoing(message)
    state.draft = ""
    state.userError = nil
    closeFeedbackMomentBecauseUserWrote(&state)
    var effects: [ConversationEffect] = []
    if state.isUserTyping, let conversationID = state.conversationID {
      state.isUserTyping = false
      effects.append(.sendTypingSignal(conversationID, isTyping: false, epoch: state.epoch))
    }
    return effects + dispatchPendingMessages(&state)
  }

  func retry(_ clientID: ClientMessageID, _ state: inout ConversationState) -> [ConversationEffect] {
    guard let message = state.messages[clientID: clientID] else {
      return refuse(.unknownMessage, "There is no message \(clientID) to retry.", &state)
    }
    guard case .failed = message.delivery else {
      return refuse(.invalidAction, "Only a failed message can be retried.", &state)
    }
    if state.status == .ended {
      return refuse(.conversationNotOngoing, "This conversation has ended.", &state)
    }
    state.messages.update(clientID) { $0.delivery = .pending }
    state.userError = nil
    return dispatchPendingMessages(&state)
  }

  /// Sends queued messages in order, while the connection allows and the conversation exists.
  ///
  /// Before the conversation exists only one send may be in flight: the first send creates it, and a
  /// second one sent alongside would create another.
  func dispatchPendingMessages(_ state: inout ConversationState) -> [ConversationEffect] {
    guard !state.connection.isOffline, state.status != .ended else { return [] }
    var effects: [ConversationEffect] = []
    for message in state.messages.outgoing where message.delivery == .pending {
      if state.conversationID == nil && state.requests.values.contains(where: \.isSend) { break }
      let requestID = state.beginRequest(.send(message.clientID))
      state.messages.update(message.clientID) { $0.delivery = .sending }
      effects.append(
        .sendMessage(
          requestID,
          SendPayload(
            conversationID: state.conversationID, clientID: message.clientID, text: message.text,
            attachments: message.attachments)))
    }
    return effects
  }

  func sendAccepted(
    _ requestID: RequestID, _ confirmed: Message, _ conversationID: ConversationID, _ state: inout ConversationState
  ) -> [ConversationEffect] {
    guard case .send(let clientID) = state.requests[requestID] else { return [] }
    guard confirmed.serverID != nil else {
      state.backgroundError = ChatError(.invalidEvent, "The server confirmed \(clientID) without a message ID.")
      return []
    }
    var effects: [ConversationEffect] = []
    if state.conversationID == nil {
      state.conversationID = conversationID
      effects += retargetConnection(&state)
    }
    var message = confirmed
    message.clientID = clientID
    message.delivery = .sent
    if let local = state.messages[clientID: clientID], message.attachments.isEmpty {
      message.attachments = local.attachments
    }
    commitIncoming(message, &state)
    if state.status == .ongoing && state.streamingReply == nil { state.agentActivity = .thinking }
    return effects + dispatchPendingMessages(&state)
  }

  /// Marks an outgoing message failed, keeping it in the list for retry.
  func failOutgoing(_ clientID: ClientMessageID, _ error: ChatError, _ state: inout ConversationState) {
    state.messages.update(clientID) { message in
      if !message.isCommitted { message.delivery = .failed(error) }
    }
  }

  func closeFeedbackMomentBecauseUserWrote(_ state: inout ConversationState) {
    if state.feedbackMoment?.phase == .open { state.feedbackMoment = nil }
  }
}

extension PendingRequest {
  var isSend: Bool {
    if case .send = self { return true }
    return false
  }
}
