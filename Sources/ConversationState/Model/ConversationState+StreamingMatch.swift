extension ConversationState {
  /// Whether the reply being streamed is the one `requestID` streams.
  ///
  /// The delta hot path asks this on every delta. Asked here, where the fields are stored, it reads one
  /// field; asked from another module, `streamingReply?.requestID` copies the whole reply (and retains each
  /// of its references) first.
  public func isStreamingReply(of requestID: RequestID) -> Bool {
    streamingReply?.requestID == requestID
  }

  /// Whether the reply being streamed is the server's `serverID` in `conversationID`, streaming over the
  /// connection `connection` (which, while a reply streams over it, is the live one).
  public func isStreamingReply(
    _ serverID: ServerMessageID, over connection: RequestID?, in conversationID: ConversationID
  ) -> Bool {
    connection != nil && streamingReply?.connection == connection && streamingReply?.serverID == serverID
      && self.conversationID == conversationID
  }
}
