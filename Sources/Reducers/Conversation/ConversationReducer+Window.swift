import ConversationState

/// The window of a long conversation: what of its history is in memory. `trimHistory` drops the oldest end
/// (the user came back down), `trimNewerHistory` the newest (the user reads far back); storage keeps both,
/// and `loadMoreHistory` / `loadNewerHistory` page them back in from either side.
extension ConversationReducer {
  func trimHistory(keepingNewest: Int, _ state: inout ConversationState) -> [ConversationEffect] {
    guard keepingNewest >= 1 else {
      return refuse(
        .invalidPageSize, "A trimmed history keeps at least 1 message; \(keepingNewest) was asked for.", &state)
    }
    guard !state.history.isLoadingHistory else { return [] }
    var committed = 0
    for message in state.messages where message.isCommitted { committed += 1 }
    guard committed > keepingNewest else { return [] }
    let inUse = messagesInUse(state)
    var dropped: [ClientMessageID] = []
    for message in state.messages where message.isCommitted {
      // In use: kept, and so is everything after it (the window stays one run of messages).
      guard dropped.count < committed - keepingNewest, !inUse(message) else { break }
      dropped.append(message.clientID)
    }
    guard !dropped.isEmpty else { return [] }
    drop(dropped, &state)
    guard let oldestKept = state.messages.first(where: \.isCommitted)?.orderKey else { return [] }
    state.history.trimmedBefore = oldestKept
    state.history.hasStoredHistory = true
    if let gap = state.history.newerGap, oldestKept > gap.through {
      // Everything before the gap is gone too: what it held is now simply older than the window.
      state.history.newerGap = nil
    }
    return []
  }

  func trimNewerHistory(keepingOldest: Int, _ state: inout ConversationState) -> [ConversationEffect] {
    guard keepingOldest >= 1 else {
      return refuse(
        .invalidPageSize, "A trimmed history keeps at least 1 message; \(keepingOldest) was asked for.", &state)
    }
    guard state.conversationID != nil, !state.history.isLoadingHistory else { return [] }
    let gap = state.history.newerGap
    var committed: [Message] = []
    for message in state.messages where message.isCommitted { committed.append(message) }
    // With a gap open, what arrived after it goes first: the window stays one run, then one gap.
    let beforeGap = gap.map { gap in committed.prefix { $0.orderKey <= gap.after }.count } ?? committed.count
    let keep = min(keepingOldest, beforeGap)
    guard committed.count > keep else { return [] }
    let inUse = messagesInUse(state)
    var dropped: [Message] = []
    for message in committed[keep...].reversed() {
      if inUse(message) {
        // A message in use after the gap would split the window in two: nothing is dropped.
        if let gap, message.orderKey > gap.after { return [] }
        break
      }
      dropped.append(message)
    }
    guard let newestDropped = dropped.first?.orderKey else { return [] }
    drop(dropped.map(\.clientID), &state)
    guard let newestKept = state.messages.last(where: \.isCommitted)?.orderKey else { return [] }
    state.history.newerGap = StoredGap(after: newestKept, through: max(newestDropped, gap?.through ?? newestDropped))
    return []
  }

  func loadNewerHistory(pageSize: Int, _ state: inout ConversationState) -> [ConversationEffect] {
    guard policy.historyPageSizes.contains(pageSize) else {
      return refuse(
        .invalidPageSize,
        "A history page holds \(policy.historyPageSizes.lowerBound) to \(policy.historyPageSizes.upperBound) "
          + "messages; \(pageSize) was asked for.", &state)
    }
    guard let conversationID = state.conversationID, let gap = state.history.newerGap,
      !state.history.isLoadingHistory
    else { return [] }
    let requestID = state.beginRequest(.history)
    state.history.loadingRequest = requestID
    state.history.isLoadingStored = true
    state.history.isLoadingNewer = true
    return [.fetchNewerStoredHistory(requestID, conversationID, after: gap.after, limit: pageSize)]
  }

  func newerStoredHistoryLoaded(_ messages: [Message], hasMore: Bool, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard let gap = state.history.newerGap else { return dispatchPendingMessages(&state) }
    guard let newest = messages.filter(\.isCommitted).map(\.orderKey).max() else {
      // Nothing is stored after the window (a store without storage, an archive moved aside): the
      // dropped messages cannot come back from here, so the window goes back to the server's newest page.
      return backToNewestPage(through: gap.through, &state)
    }
    mergeStored(messages, &state)
    if !hasMore || newest >= gap.through {
      state.history.newerGap = nil
    } else {
      state.history.newerGap?.after = max(gap.after, newest)
    }
    return dispatchPendingMessages(&state)
  }

  /// Commits the stored messages not shown already, and returns them. What is already here is newer than
  /// its stored copy (a copy is written after each change): it is kept.
  @discardableResult
  func mergeStored(_ messages: [Message], _ state: inout ConversationState) -> [Message] {
    let fresh = messages.filter { message in
      message.isCommitted && !state.messages.contains(message.clientID)
        && message.serverID.map { state.messages[serverID: $0] == nil } != false
    }
    for message in fresh.sorted(by: { $0.orderKey > $1.orderKey }) { commitIncoming(message, &state) }
    return fresh
  }

  /// After an older page came in: storage's trimmed messages are only those older than every one shown.
  func lowerTrimmedBefore(_ state: inout ConversationState) {
    guard let trimmed = state.history.trimmedBefore,
      let oldest = state.messages.first(where: \.isCommitted)?.orderKey, oldest < trimmed
    else { return }
    state.history.trimmedBefore = oldest
  }

  private func backToNewestPage(through: MessageOrderKey, _ state: inout ConversationState) -> [ConversationEffect] {
    let inUse = messagesInUse(state)
    drop(
      state.messages.filter { $0.isCommitted && $0.orderKey <= through && !inUse($0) }.map(\.clientID), &state)
    state.history.newerGap = nil
    state.history.trimmedBefore = nil
    state.history.hasStoredHistory = false
    state.history.cursor = nil
    state.history.hasMoreHistory = true
    state.history.hasLoadedFirstPage = false
    return reloadHistory(&state) + dispatchPendingMessages(&state)
  }

  /// Messages a trim must keep: an answer waiting for the app or the user, one being rated, one being
  /// regenerated.
  private func messagesInUse(_ state: ConversationState) -> (Message) -> Bool {
    let rated = Set(
      state.requests.values.compactMap { purpose -> ClientMessageID? in
        if case .rating(let clientID, _, _) = purpose { return clientID }
        return nil
      })
    let replacing = state.streamingReply?.replacing
    return { message in
      message.reply?.isAwaiting == true || rated.contains(message.clientID) || replacing == message.clientID
    }
  }

  /// Drops messages from memory (not from storage); the unread count is of the loaded messages, so it goes
  /// with them (the server's own covers the rest).
  private func drop(_ clientIDs: [ClientMessageID], _ state: inout ConversationState) {
    for gone in state.messages.remove(Set(clientIDs)) where ReadCursor.isUnread(gone, against: state.readCursor) {
      state.unreadCount -= 1
    }
  }
}
