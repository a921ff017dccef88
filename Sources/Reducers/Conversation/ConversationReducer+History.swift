import ConversationState

extension ConversationReducer {
  func loadHistory(pageSize: Int, more: Bool, _ state: inout ConversationState) -> [ConversationEffect] {
    guard HistoryPaging.pageSizes.contains(pageSize) else {
      return refuse(
        .invalidPageSize,
        "A history page holds \(HistoryPaging.pageSizes.lowerBound) to \(HistoryPaging.pageSizes.upperBound) "
          + "messages; \(pageSize) was asked for.", &state)
    }
    // Nothing to load (yet): a conversation that does not exist has no history; one load at a time.
    guard let conversationID = state.conversationID, !state.history.isLoadingHistory else { return [] }
    let firstPage = !more || !state.history.hasLoadedFirstPage
    if !firstPage && !state.history.hasMoreHistory { return [] }
    let requestID = state.beginRequest(.history)
    state.history.loadingRequest = requestID
    return [
      .fetchHistory(requestID, conversationID, cursor: firstPage ? nil : state.history.cursor, limit: pageSize)
    ]
  }

  func historyLoaded(_ requestID: RequestID, _ page: HistoryPage, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard state.requests[requestID] == .history else { return [] }
    state.requests[requestID] = nil
    state.history.loadingRequest = nil
    mergeFromServer(page.messages, &state)
    state.history.cursor = page.nextCursor
    state.history.hasMoreHistory = page.hasMore
    state.history.hasLoadedFirstPage = true
    return []
  }

  func syncLoaded(_ requestID: RequestID, _ messages: [Message], _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard state.requests[requestID] == .sync else { return [] }
    state.requests[requestID] = nil
    mergeFromServer(messages, &state)
    if state.connection == .syncing { state.connection = .connected }
    return dispatchPendingMessages(&state)
  }
}
