import ConversationState
import Foundation

extension ConversationReducer {
  /// Sends `outgoing` now; `clearingDraft` false for a message that did not come from the draft just now (a
  /// queued turn).
  func send(_ outgoing: OutgoingMessage, clearingDraft: Bool = true, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    if let refusal = sendRefusal(outgoing, state) { return refuse(refusal.code, refusal.message, &state) }
    let author = state.identity.map { ParticipantID($0.userID) }
    let message = Message(
      clientID: outgoing.clientID, role: .user, author: author, text: outgoing.text, createdAt: outgoing.createdAt,
      delivery: .pending, attachments: outgoing.attachments)
    // Writing instead of answering leaves the waiting answer behind.
    var effects = abandonAwaiting(&state)
    state.messages.appendNewOutgoing(message)  // `sendRefusal` found no message with its client ID
    if clearingDraft { state.draft = "" }
    state.userError = nil
    closeFeedbackMomentBecauseUserWrote(&state)
    if state.isUserTyping, let conversationID = state.conversationID {
      state.isUserTyping = false
      effects.append(.sendTypingSignal(conversationID, isTyping: false, epoch: state.epoch))
    }
    return effects + dispatchPendingMessages(&state)
  }

  /// Why `outgoing` cannot be sent as a new message, if it cannot: the conversation's status, its text and
  /// attachments against the policy, a client ID already used.
  func sendRefusal(_ outgoing: OutgoingMessage, _ state: ConversationState) -> (code: ChatError.Code, message: String)?
  {
    if let refusal = statusRefusal(state) ?? contentRefusal(outgoing) { return refusal }
    if state.messages.contains(outgoing.clientID) || state.branches.hides(outgoing.clientID) {
      return (.invalidAction, "A message with client ID \(outgoing.clientID) was already sent.")
    }
    return nil
  }

  /// Why `outgoing`'s text and attachments cannot be sent, if they cannot: against the policy's limits.
  func contentRefusal(_ outgoing: OutgoingMessage) -> (code: ChatError.Code, message: String)? {
    if outgoing.text.allSatisfy(\.isWhitespace) && outgoing.attachments.isEmpty {
      return (.emptyMessage, "Write a message or attach a file.")
    }
    // No text has more characters than UTF-8 bytes: most are counted without walking their graphemes.
    if outgoing.text.utf8.count > policy.maximumTextLength && outgoing.text.count > policy.maximumTextLength {
      return (.messageTooLong, "A message holds at most \(policy.maximumTextLength) characters.")
    }
    if outgoing.attachments.count > policy.maximumAttachments {
      return (.tooManyAttachments, "A message can carry at most \(policy.maximumAttachments) attachments.")
    }
    if let tooLarge = outgoing.attachments.first(where: {
      !(0...policy.maximumAttachmentBytes).contains($0.byteSize)
    }) {
      return (.attachmentTooLarge, "\(tooLarge.filename) is larger than \(byteCount(policy.maximumAttachmentBytes)).")
    }
    if let refused = outgoing.attachments.first(where: { !policy.allowsAttachmentType($0.contentType) }) {
      return (.attachmentTypeNotAllowed, "\(refused.filename) (\(refused.contentType)) cannot be attached here.")
    }
    return nil
  }

  /// Why the conversation's status refuses sends, if it does.
  func statusRefusal(_ state: ConversationState) -> (code: ChatError.Code, message: String)? {
    switch state.status {
    case .ongoing, .takenOver: return nil
    case .ended: return (.conversationNotOngoing, "This conversation has ended.")
    case .notFound: return (.conversationNotFound, "This conversation no longer exists.")
    case .unavailable: return (.chatUnavailable, "Chat is not available right now.")
    }
  }

  func retry(_ clientID: ClientMessageID, _ state: inout ConversationState) -> [ConversationEffect] {
    guard let message = state.messages[clientID: clientID] else {
      return refuse(.unknownMessage, "There is no message \(clientID) to retry.", &state)
    }
    guard case .failed = message.delivery else {
      return refuse(.invalidAction, "Only a failed message can be retried.", &state)
    }
    if let refusal = statusRefusal(state) { return refuse(refusal.code, refusal.message, &state) }
    state.messages.update(clientID) { $0.delivery = .pending }
    state.userError = nil
    return dispatchPendingMessages(&state)
  }

  /// Removes a failed or waiting message the user gave up on, optionally putting its text back into the
  /// draft. A message on its way (sending, queued) or confirmed cannot be taken back.
  func discard(_ clientID: ClientMessageID, intoDraft: Bool, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard let message = state.messages[clientID: clientID] else {
      return refuse(.unknownMessage, "There is no message \(clientID) to remove.", &state)
    }
    switch message.delivery {
    case .failed,
      .pending where !state.outboxRecording.contains(clientID):
      break
    case .pending, .sending, .queued, .sent:
      return refuse(.invalidAction, "Only a failed or waiting message can be removed.", &state)
    }
    remove(clientID, &state)
    state.resentAfterReload.remove(clientID)
    if intoDraft { state.draft = message.text }
    state.userError = nil
    return cancelUploads(of: clientID, &state)
  }

  /// Sends waiting messages in order, while the connection, the credential, a rate limit and the
  /// conversation's status allow.
  ///
  /// Before the conversation exists only one send may be in flight: the first send creates it, and a
  /// second one sent alongside would create another.
  func dispatchPendingMessages(_ state: inout ConversationState) -> [ConversationEffect] {
    if state.connection.isOffline { return handToOutbox(&state) }
    guard state.status.acceptsMessages, state.retryableAt == nil else { return [] }
    switch state.credentials {
    case .valid, .refreshed: break
    case .refreshing, .needed: return []
    }
    var effects: [ConversationEffect] = []
    // One at a time, in the order they were written: the next goes once the one before it is accepted (or
    // fails), so the server receives them in that order whatever the network does with requests side by
    // side. Uploads of later messages' attachments start meanwhile.
    var isBlocked = state.messages.outgoing.contains { $0.delivery == .sending }
    for message in state.messages.outgoing
    where message.delivery == .pending && !state.outboxRecording.contains(message.clientID) {
      // Attachments first: the message goes out once every one is stored.
      if !attachmentsToUpload(message).isEmpty {
        effects += startUploads(message, &state)
        isBlocked = true
        continue
      }
      if isBlocked { continue }
      if state.conversationID == nil && state.requests.values.contains(where: \.isSend) { break }
      // Sent again after CONVERSATION_CHANGED: only once the reloaded history is in.
      if state.history.isLoadingHistory && state.resentAfterReload.contains(message.clientID) {
        isBlocked = true
        continue
      }
      isBlocked = true
      let requestID = state.beginRequest(.send(message.clientID))
      state.messages.update(message.clientID) { $0.delivery = .sending }
      effects.append(
        .sendMessage(
          requestID,
          SendPayload(
            conversationID: state.conversationID, clientID: message.clientID, text: message.text,
            attachments: message.attachments, placement: sendPlacement(of: message.clientID, state))))
    }
    return effects
  }

  func sendAccepted(
    _ requestID: RequestID, _ confirmed: Message, _ conversationID: ConversationID, _ state: inout ConversationState
  ) -> [ConversationEffect] {
    guard case .send(let clientID) = state.requests[requestID] else { return [] }
    var effects: [ConversationEffect] = []
    if state.conversationID == nil {
      state.conversationID = conversationID
      // This send created the conversation: nothing on the server is older than it. (So no "load older"
      // control on a new chat, and an edit of its first message goes first: `MessagePlacement.first`.)
      state.history.hasMoreHistory = false
      effects += retargetConnection(&state)
    }
    var message = confirmed
    message.clientID = clientID
    message.delivery = .sent
    // Read where the list keeps it: a copy of the whole local message would cost more than both fields.
    if message.attachments.isEmpty, let attachments = state.messages.read(clientID: clientID, \.attachments) {
      message.attachments = attachments
    }
    // Servers that never return the message's ID confirm without one: it is committed as it is, and the
    // first server copy of it (same author and text, close in time) later gives it its ID.
    if message.serverID == nil, message.author == nil {
      message.author = state.messages.read(clientID: clientID, \.author) ?? nil
    }
    commitIncoming(message, &state)
    state.resentAfterReload.remove(clientID)
    credentialsProven(&state)
    // The AI thinks about an answer only while it has the conversation: under a human agent (`takenOver`) the
    // answer comes as a message, and "thinking" would promise an AI reply that is not coming.
    if state.status == .ongoing && state.streamingReply == nil { state.agentActivity = .thinking }
    return effects + dispatchPendingMessages(&state)
  }

  /// The server took the message for later delivery: it waits as `queued`, and no end of its request can
  /// fail it any more.
  func sendQueued(_ requestID: RequestID, _ state: inout ConversationState) -> [ConversationEffect] {
    guard case .send(let clientID) = state.requests[requestID],
      state.messages[clientID: clientID]?.delivery == .sending
    else { return [] }
    state.messages.update(clientID) { $0.delivery = .queued }
    credentialsProven(&state)
    return dispatchPendingMessages(&state)
  }

  /// Marks an outgoing message failed, keeping it in the list for retry. A queued one is the server's
  /// now and is not failed by its request's end.
  func failOutgoing(_ clientID: ClientMessageID, _ error: ChatError, _ state: inout ConversationState) {
    // One being handed to the outbox is on its way too: the outbox answers for it. A committed one has
    // nothing to fail.
    guard !state.outboxRecording.contains(clientID), state.messages.containsOutgoing(clientID) else { return }
    state.messages.update(clientID) { message in
      if !message.isCommitted && message.delivery != .queued { message.delivery = .failed(error) }
    }
  }

  func closeFeedbackMomentBecauseUserWrote(_ state: inout ConversationState) {
    if state.feedbackMoment?.phase == .open { state.feedbackMoment = nil }
  }
}

/// A size as people read it: whole MiB or KiB when it is one, bytes otherwise.
func byteCount(_ bytes: Int) -> String {
  let mebibyte = 1024 * 1024
  if bytes >= mebibyte && bytes % mebibyte == 0 { return "\(bytes / mebibyte) MiB" }
  if bytes >= 1024 && bytes % 1024 == 0 { return "\(bytes / 1024) KiB" }
  return "\(bytes) bytes"
}

extension PendingRequest {
  var isSend: Bool {
    if case .send = self { return true }
    return false
  }
}
