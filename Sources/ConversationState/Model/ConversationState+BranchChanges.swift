extension ConversationState {
  /// Whether the path on screen may change now: a sibling picker's arrows (`showSibling`,
  /// `showBranch(containing:)`) and an Edit button (`edit`) are enabled when it is true. An action sent while
  /// it is false is refused with `INVALID_ACTION` and changes nothing.
  ///
  /// It is false while a reply streams or waits to be resumed; while a message of the user's is unsent
  /// (pending, sending, queued in the outbox, or failed: send or discard it first); while a request that
  /// changes messages is in flight (a send, a regeneration, a history page, a sync, a rating, an app tool's
  /// run or result); and while older history is shown without the newest (`history.newerGap`). Requests that
  /// change no message (the connection, a read cursor being saved, the conversation's feedback, a ticket, a
  /// credential) do not hold it.
  public var canChangeBranch: Bool { branchChangeRefusal == nil }

  /// Why the path on screen cannot change now, in words for `userError`; nil when it can.
  package var branchChangeRefusal: String? {
    if !liveReplies.isEmpty { return "Wait for the reply to finish before editing or switching branches." }
    if !messages.outgoing.isEmpty {
      return "Send or discard your unsent messages before editing or switching branches."
    }
    let changesMessages = requests.values.contains { request in
      switch request {
      case .connect, .readCursor, .feedback, .ticket, .credentials: false
      default: true
      }
    }
    if changesMessages { return "Wait for what is in flight to finish before editing or switching branches." }
    if history.newerGap != nil { return "Go back to the newest messages before editing or switching branches." }
    return nil
  }
}
