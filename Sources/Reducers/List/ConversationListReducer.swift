public import ConversationState

/// The rules of the conversation list, as a pure function.
///
/// ```swift
/// var list = ConversationListState()
/// let effects = ConversationListReducer().reduce(into: &list, action: .load(pageSize: 20))
/// // effects == [.fetchConversations(r0.1, cursor: nil, limit: 20)]
/// ```
public struct ConversationListReducer: Reducer {
  /// The limits this reducer applies (the list's page sizes).
  public let policy: ChatPolicy

  /// A reducer applying `policy` (the documented defaults when omitted).
  public init(policy: ChatPolicy = ChatPolicy()) { self.policy = policy }

  /// Applies `action` to `state` and returns the I/O to run, in order. A result of a request no longer in
  /// flight is ignored; an invalid page size sets `state.error` and asks for no I/O.
  public func reduce(into state: inout ConversationListState, action: ConversationListAction)
    -> [ConversationListEffect]
  {
    switch action {
    case .load(let pageSize):
      guard validate(pageSize, &state) else { return [] }
      var effects: [ConversationListEffect] = []
      if let loading = state.loading {
        // A fresh first page supersedes whatever was loading.
        effects.append(.cancel(loading.requestID))
      }
      let requestID = state.nextRequestID()
      state.loading = .firstPage(requestID)
      return effects + [.fetchConversations(requestID, cursor: nil, limit: pageSize)]

    case .loadMore(let pageSize):
      guard validate(pageSize, &state) else { return [] }
      guard state.loading == nil else { return [] }
      guard state.hasLoaded else { return reduce(into: &state, action: .load(pageSize: pageSize)) }
      guard state.hasMore else { return [] }
      let requestID = state.nextRequestID()
      state.loading = .nextPage(requestID)
      return [.fetchConversations(requestID, cursor: state.cursor, limit: pageSize)]

    case .refresh:
      guard state.loading == nil else { return [] }
      guard state.hasLoaded else {
        return reduce(into: &state, action: .load(pageSize: ConversationListState.defaultPageSize))
      }
      let window = min(max(state.conversations.count, 1), policy.listPageSizes.upperBound)
      let requestID = state.nextRequestID()
      state.loading = .refresh(requestID)
      return [.fetchConversations(requestID, cursor: nil, limit: window)]

    case .markRead(let id):
      state.conversations.update(id) { $0.unreadCount = 0 }
      guard state.conversations[id]?.isMarkedUnread == true else { return [] }
      return change(id, .markedUnread(false), &state)

    case .change(let id, let change):
      return self.change(id, change, &state)

    case .delete(let id):
      return delete(id, &state)

    case .undoDelete(let id):
      return undoDelete(id, &state)

    case .showArchived(let shows):
      state.showsArchived = shows
      return []

    case .titleGenerated(let id, let title):
      let trimmed = ConversationSummary.title(fromFirstMessage: title)
      guard !trimmed.isEmpty else { return [] }
      state.conversations.update(id) { row in
        if !row.isTitleSetByUser { row.title = trimmed }
      }
      return []

    case .resumeEdits:
      return resumeEdits(&state)

    case .editSaved(let requestID):
      return saved(requestID, &state)

    case .editFailed(let requestID, let error, let jitter):
      return failed(requestID, error, jitter: jitter, &state)

    case .timerFired(let timer):
      return timerFired(timer, &state)

    case .clearError:
      state.error = nil
      return []

    case .clear, .identityChanged:
      // Changes and deletions not confirmed are the old list's: they go with it, their timers stopped.
      var effects = state.loading.map { [ConversationListEffect.cancel($0.requestID)] } ?? []
      effects += (state.edits.compactMap(\.runningTimer) + state.deleting.compactMap(\.runningTimer)).map {
        .cancelTimer($0)
      }
      let sequence = state.requestSequence
      state = ConversationListState(epoch: action == .identityChanged ? state.epoch.next : state.epoch)
      state.requestSequence = sequence
      return effects

    case .pageLoaded(let requestID, var page):
      guard let loading = state.loading, loading.requestID == requestID else { return [] }
      // A page the server made before a deletion landed lists it still: it stays gone. The server's rows
      // win, but for the user's changes still on their way.
      page.conversations = page.conversations.filter { !state.isDeleted($0.id) }.map { withPendingEdits($0, state) }
      state.loading = nil
      state.error = nil
      switch loading {
      case .firstPage:
        state.conversations = ConversationList(page.conversations)
        state.cursor = page.nextCursor
        state.hasMore = page.hasMore
      case .nextPage:
        for conversation in page.conversations { state.conversations.appendAtBottom(conversation) }
        state.cursor = page.nextCursor
        state.hasMore = page.hasMore
      case .refresh:
        reconcile(with: page, &state)
      }
      if let total = page.totalCount { state.totalCount = max(0, total) }
      state.hasLoaded = true
      return []

    case .requestFailed(let requestID, let error):
      guard state.loading?.requestID == requestID else { return [] }
      state.loading = nil
      state.error = error
      return []

    case .realtime(let event):
      return apply(event, &state)
    }
  }

  private func validate(_ pageSize: Int, _ state: inout ConversationListState) -> Bool {
    guard policy.listPageSizes.contains(pageSize) else {
      state.error = ChatError(
        .invalidPageSize,
        "A page holds \(policy.listPageSizes.lowerBound) to \(policy.listPageSizes.upperBound) conversations; "
          + "\(pageSize) was asked for.")
      return false
    }
    return true
  }

  /// A refresh re-reads the top of the list. Rows it returns take its order and data; rows shown above its
  /// oldest row that it no longer returns are gone on the server; rows below that, paged in earlier, stay.
  private func reconcile(with page: ConversationPage, _ state: inout ConversationListState) {
    let fresh = Set(page.conversations.map(\.id))
    guard let oldest = page.conversations.last else {
      if !page.hasMore { state.conversations = ConversationList() }
      return
    }
    let kept = state.conversations.filter { conversation in
      !fresh.contains(conversation.id) && conversation.lastActivityAt < oldest.lastActivityAt
    }
    state.conversations = ConversationList(page.conversations + kept)
    if kept.isEmpty {
      state.cursor = page.nextCursor
      state.hasMore = page.hasMore
    }
  }

  private func apply(_ event: ConversationListEvent, _ state: inout ConversationListState) -> [ConversationListEffect] {
    if let id = event.conversationID, state.isDeleted(id) {
      // A deleted conversation is never listed again; told deleted while its deletion waits, it is done.
      guard case .conversationDeleted = event, !state.deleted.contains(id) else { return [] }
      return deleted(id, &state)
    }
    switch event {
    case .conversationCreated(var conversation):
      if conversation.title.isEmpty, let preview = conversation.lastMessagePreview {
        conversation.title = ConversationSummary.title(fromFirstMessage: preview)
      }
      state.conversations.place(withPendingEdits(conversation, state))
      return []

    case .messageCreated(let id, let preview, let role, let at, let messageID):
      guard var conversation = state.conversations[id] else {
        // Not loaded (or not created yet on this device): nothing to move; the next refresh brings it.
        return []
      }
      // Told twice (the realtime connection, then the open conversation's catch-up): once is enough.
      if let messageID, messageID == conversation.lastMessageID { return [] }
      if conversation.title.isEmpty && role == .user {
        conversation.title = ConversationSummary.title(fromFirstMessage: preview)
      }
      // Events can arrive out of order: an older message keeps the newer one's preview.
      if at >= conversation.lastActivityAt {
        conversation.lastMessagePreview = preview
        conversation.lastMessageID = messageID
      }
      conversation.lastActivityAt = max(conversation.lastActivityAt, at)
      if role != .user { conversation.unreadCount += 1 }
      // Events can arrive out of order: the row goes where its newest activity belongs.
      state.conversations.place(conversation)
      if conversation.isArchived && role != .user && policy.archivedOnNewMessage == .returnsToList {
        return change(id, .archived(false), &state)
      }
      return []

    case .statusChanged(let id, let status):
      state.conversations.update(id) { $0.status = status }
      return []

    case .titleChanged(let id, let title):
      // The user's rename on its way wins over what the server says meanwhile.
      guard state.edit(of: id, .title) == nil else { return [] }
      state.conversations.update(id) { $0.title = title }
      return []

    case .conversationDeleted(let id):
      return deleted(id, &state)

    case .conversationChanged(let id, let change):
      return changedElsewhere(id, change, &state)
    }
  }
}
