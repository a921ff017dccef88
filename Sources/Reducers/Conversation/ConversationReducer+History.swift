import ConversationState

extension ConversationReducer {
  func loadHistory(pageSize: Int, more: Bool, _ state: inout ConversationState) -> [ConversationEffect] {
    guard policy.historyPageSizes.contains(pageSize) else {
      return refuse(
        .invalidPageSize,
        "A history page holds \(policy.historyPageSizes.lowerBound) to \(policy.historyPageSizes.upperBound) "
          + "messages; \(pageSize) was asked for.", &state)
    }
    // Nothing to load (yet): a conversation that does not exist has no history; one load at a time.
    guard let conversationID = state.conversationID, !state.history.isLoadingHistory else { return [] }
    let firstPage = !more || !state.history.hasLoadedFirstPage
    if !firstPage && !state.history.hasOlderMessages { return [] }
    let requestID = state.beginRequest(.history)
    if !firstPage, state.history.hasStoredHistory, let oldest = state.messages.first(where: \.isCommitted) {
      // Local first: what this device stored comes before the server is asked.
      state.history.loadingRequest = requestID
      state.history.isLoadingStored = true
      return [.fetchStoredHistory(requestID, conversationID, before: oldest.orderKey, limit: pageSize)]
    }
    let cursor = firstPage ? nil : state.history.cursor
    state.history.loadingRequest = requestID
    state.history.requestedCursor = cursor
    return [.fetchHistory(requestID, conversationID, cursor: cursor, limit: pageSize)]
  }

  /// Loads the newest page again (after `CONVERSATION_CHANGED`, or when a conversation is opened).
  func reloadHistory(_ state: inout ConversationState) -> [ConversationEffect] {
    loadHistory(
      pageSize: min(
        max(HistoryPaging.defaultPageSize, policy.historyPageSizes.lowerBound),
        policy.historyPageSizes.upperBound), more: false, &state)
  }

  func storedHistoryLoaded(
    _ requestID: RequestID, _ messages: [Message], hasMore: Bool, _ state: inout ConversationState
  ) -> [ConversationEffect] {
    guard state.requests[requestID] == .history, state.history.isLoadingStored else { return [] }
    state.requests[requestID] = nil
    state.history.loadingRequest = nil
    state.history.isLoadingStored = false
    if state.history.isLoadingNewer {
      state.history.isLoadingNewer = false
      return newerStoredHistoryLoaded(messages, hasMore: hasMore, &state)
    }
    let fresh = mergeStored(messages, &state)
    state.history.hasStoredHistory = hasMore
    lowerTrimmedBefore(&state)
    if fresh.isEmpty, !hasMore {
      // Storage said it had older messages and gave none (trimmed without storage, a store given no
      // reader): the stored cursor would skip them, so the server's paging starts again from its newest
      // page, whose messages merge with those shown.
      state.history.trimmedBefore = nil
      state.history.cursor = nil
      state.history.hasMoreHistory = true
      state.history.hasLoadedFirstPage = false
    }
    return dispatchPendingMessages(&state)
  }

  func historyLoaded(_ requestID: RequestID, _ page: HistoryPage, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard state.requests[requestID] == .history, !state.history.isLoadingStored else { return [] }
    state.requests[requestID] = nil
    state.history.loadingRequest = nil
    let requested = state.history.requestedCursor
    state.history.requestedCursor = nil
    mergeFromServer(page.messages, &state)
    if let first = page.unreadable.first {
      // The rest of the page and its cursor stand: paging goes on past what could not be read.
      state.backgroundError = ChatError(
        .invalidEvent,
        "\(page.unreadable.count) message(s) of a history page could not be read and were left out: \(first.message)")
    }
    lowerTrimmedBefore(&state)
    state.history.cursor = page.nextCursor
    state.history.hasMoreHistory = page.hasMore
    if page.hasMore, let requested, page.nextCursor == requested {
      // The same cursor again would load the same page forever: what it held is kept, paging ends.
      state.history.hasMoreHistory = false
      state.backgroundError = ChatError(
        .invalidResponse, "The server's next history cursor is the one just used; older history is not loaded.")
    }
    state.history.hasLoadedFirstPage = true
    if let title = page.title { state.title = title }
    var effects: [ConversationEffect] = []
    if let status = page.status, status != state.status { effects += statusChanged(to: status, &state) }
    if let unread = page.unreadCount { state.serverUnreadCount = max(0, unread) }
    if let total = page.totalCount { state.history.totalCount = max(0, total) }
    if let readUpTo = page.readUpTo {
      // Read on another device or before a relaunch: the cursor only moves forward, and the server has it.
      state.savedReadCursor = readUpTo
      if state.messages[serverID: readUpTo] != nil { _ = moveReadCursor(upTo: readUpTo, &state) }
    }
    credentialsProven(&state)
    if let answer = state.regenerateAfterReload {
      state.regenerateAfterReload = nil
      effects += regenerate(answer, retryingAfterReload: true, &state)
    }
    return effects + dispatchPendingMessages(&state)
  }
}
