import ConversationState
import Foundation

/// Attachments are uploaded by the runtime before their message is sent: one upload effect per attachment
/// with a source and no URL; the message goes out once every one is stored; a failed upload fails the
/// message (retryable), and a retry uploads only what is not stored yet.
extension ConversationReducer {
  /// The attachments of `message` still to be uploaded.
  func attachmentsToUpload(_ message: Message) -> [MessageAttachment] {
    message.attachments.filter { $0.source != nil && $0.url == nil }
  }

  /// Upload effects for the attachments of `message` that need one and have none in flight.
  func startUploads(_ message: Message, _ state: inout ConversationState) -> [ConversationEffect] {
    let inFlight = Set(
      state.requests.values.compactMap { request -> AttachmentID? in
        if case .upload(message.clientID, let attachmentID) = request { return attachmentID }
        return nil
      })
    var effects: [ConversationEffect] = []
    for attachment in attachmentsToUpload(message) where !inFlight.contains(attachment.id) {
      let requestID = state.beginRequest(.upload(message.clientID, attachment.id))
      effects.append(.uploadAttachment(requestID, message.clientID, attachment))
    }
    return effects
  }

  func uploadProgressed(_ requestID: RequestID, _ fraction: Double, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard case .upload(let clientID, let attachmentID) = state.requests[requestID] else { return [] }
    guard (0...1).contains(fraction) else {
      state.backgroundError = ChatError(.invalidEvent, "Upload progress \(fraction) is outside 0…1; ignored.")
      return []
    }
    state.messages.update(clientID) { message in
      guard let index = message.attachments.firstIndex(where: { $0.id == attachmentID }) else { return }
      message.attachments[index].uploadProgress = max(message.attachments[index].uploadProgress, fraction)
    }
    return []
  }

  func uploadFinished(_ requestID: RequestID, _ url: URL, _ state: inout ConversationState) -> [ConversationEffect] {
    guard case .upload(let clientID, let attachmentID) = state.requests[requestID] else { return [] }
    state.requests[requestID] = nil
    state.messages.update(clientID) { message in
      guard let index = message.attachments.firstIndex(where: { $0.id == attachmentID }) else { return }
      message.attachments[index].uploadProgress = 1
      message.attachments[index].url = url
    }
    credentialsProven(&state)
    return dispatchPendingMessages(&state)
  }

  /// The uploads still running for `clientID`, cancelled (the message was discarded).
  func cancelUploads(of clientID: ClientMessageID, _ state: inout ConversationState) -> [ConversationEffect] {
    cancelRequests(&state) { if case .upload(clientID, _) = $0 { true } else { false } }
  }
}
