extension ConversationListEvent {
  /// What a conversation's realtime event means for the list, or nil when the list does not show it
  /// (typing, streamed pieces, feedback prompts).
  ///
  /// A client with one realtime connection for all of a user's conversations feeds each event both to the
  /// open conversation it belongs to and, through this, to the list.
  public init?(_ event: RealtimeEvent, in conversation: ConversationID) {
    switch event {
    case .messageCreated(let message), .replyFinished(_, let message):
      self = .messageCreated(message, in: conversation)
    case .statusChanged(let status): self = .statusChanged(conversation, status)
    case .titleChanged(let title): self = .titleChanged(conversation, title)
    case .messageEdited, .messageDeleted, .transcript, .typingStarted, .typingStopped, .feedbackOffered,
      .replyStarted, .replyDelta:
      return nil
    }
  }
}
