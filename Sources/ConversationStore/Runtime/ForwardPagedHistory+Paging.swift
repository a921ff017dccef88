import ConversationState

extension ForwardPagedHistory {
  /// What a walk to the newest page found: the conversation's forward pages, the messages of the newest
  /// ones (enough for one store page, so the newest page needs no second request), and the server's total.
  struct Walked {
    var walk: ForwardWalk
    var newestMessages: [Int: [Message]]
    var serverTotal: Int?
  }

  /// Messages taken going back from a position, oldest first, and where the next older ones start (nil at
  /// the conversation's first message).
  struct Taken {
    var messages: [Message]
    var next: ForwardHistoryCursor?
    var serverTotal: Int?
  }

  func newestPage(of conversation: ConversationID, limit: Int) async throws -> HistoryPage {
    let known = walks.withLock { $0.walk(of: conversation) }
    let walked = try await walkToNewest(conversation, from: known, keeping: limit)
    remember(walked.walk, for: conversation)
    let newest = ForwardHistoryCursor(page: walked.walk.newestPage, offset: .max, boundary: "")
    let taken = try await take(
      limit, of: conversation, before: newest, in: walked.walk, fetched: walked.newestMessages)
    return HistoryPage(
      messages: taken.messages, nextCursor: taken.next?.pageCursor, hasMore: taken.next != nil,
      totalCount: taken.serverTotal ?? walked.serverTotal ?? walked.walk.messageCount)
  }

  func olderPage(of conversation: ConversationID, before position: ForwardHistoryCursor, limit: Int) async throws
    -> HistoryPage
  {
    let known = walks.withLock { $0.walk(of: conversation) }
    if let known, position.page <= known.newestPage {
      let taken = try await take(limit, of: conversation, before: position, in: known, fetched: [:])
      return HistoryPage(
        messages: taken.messages, nextCursor: taken.next?.pageCursor, hasMore: taken.next != nil,
        totalCount: taken.serverTotal)
    }
    // Not remembered (a cursor kept by an earlier run, or one forgotten past the bound), or past the pages
    // remembered: the forward cursors up to it are only found by walking.
    let walked = try await walkToNewest(conversation, from: known, keeping: limit)
    remember(walked.walk, for: conversation)
    let taken = try await take(
      limit, of: conversation, before: position, in: walked.walk, fetched: walked.newestMessages)
    return HistoryPage(
      messages: taken.messages, nextCursor: taken.next?.pageCursor, hasMore: taken.next != nil,
      totalCount: taken.serverTotal ?? walked.serverTotal ?? walked.walk.messageCount)
  }

  private func remember(_ walk: ForwardWalk, for conversation: ConversationID) {
    let bound = rememberedWalks
    walks.withLock { $0.keep(walk, for: conversation, bound: bound) }
  }

  /// Walks forward from the newest page `known` has (from the oldest page without one) until a page comes
  /// back empty or without a next cursor. Keeps the newest pages' messages, as many as `limit` needs.
  func walkToNewest(_ conversation: ConversationID, from known: ForwardWalk?, keeping limit: Int) async throws
    -> Walked
  {
    var walk = known ?? ForwardWalk()
    // A next cursor this walk has met already would walk in a circle.
    var seen = Set(walk.starts.compactMap { $0 })
    var page = walk.newestPage
    var newest: [(page: Int, messages: [Message])] = []
    var kept = 0
    var serverTotal: Int?
    while true {
      let fetched = try await fetch(conversation, after: walk.starts[page])
      if let total = fetched.totalCount { serverTotal = total }
      walk.counts[page] = fetched.messages.count
      newest.append((page, fetched.messages))
      kept += fetched.messages.count
      // The oldest page kept goes once the newer ones hold a whole store page without it.
      while newest.count > 1, kept - newest[0].messages.count >= limit {
        kept -= newest.removeFirst().messages.count
      }
      guard let next = fetched.nextCursor, !fetched.messages.isEmpty else { break }
      guard seen.insert(next).inserted else {
        throw ChatError(
          .invalidResponse,
          "The server's next forward cursor after page \(page + 1) points back at a page already walked; "
            + "history is not loaded.")
      }
      guard walk.starts.count < maximumWalkPages else {
        throw ChatError(
          .invalidResponse,
          "The server's forward pages did not end within \(maximumWalkPages) pages "
            + "(ChatPolicy.maximumHistoryWalkPages); history is not loaded.")
      }
      walk.starts.append(next)
      walk.counts.append(0)
      page += 1
    }
    return Walked(
      walk: walk, newestMessages: Dictionary(newest, uniquingKeysWith: { _, last in last }), serverTotal: serverTotal)
  }

  /// Up to `limit` messages just older than `start`, joined across forward pages, fetching each page once
  /// (none that `fetched` already holds). O(pages overlapped) requests.
  func take(
    _ limit: Int, of conversation: ConversationID, before start: ForwardHistoryCursor, in walk: ForwardWalk,
    fetched: [Int: [Message]]
  ) async throws -> Taken {
    var chunks: [ArraySlice<Message>] = []  // newest first
    var count = 0
    var page = min(start.page, walk.newestPage)
    // A cursor past the pages the server has now (it deleted messages since): the end of its newest page,
    // where nothing the store shows can be skipped.
    var offset = start.page > walk.newestPage ? .max : start.offset
    var boundary = start.boundary.isEmpty ? nil : start.boundary
    var serverTotal: Int?
    while count < limit {
      if offset == 0 {
        guard page > 0 else { break }
        page -= 1
        offset = .max
      }
      let messages: [Message]
      if let known = fetched[page] {
        messages = known
      } else {
        let answer = try await fetch(conversation, after: walk.starts[page])
        if let total = answer.totalCount { serverTotal = total }
        messages = answer.messages
      }
      if let wanted = boundary {
        // Where the oldest message handed out is now, if the page still holds it: messages deleted before it
        // since the cursor was made moved it, and the offset alone would skip or repeat some.
        if let index = messages.firstIndex(where: { $0.serverID?.rawValue == wanted }) { offset = index }
        boundary = nil
      }
      offset = min(offset, messages.count)
      let taken = min(offset, limit - count)
      chunks.append(messages[(offset - taken)..<offset])
      count += taken
      offset -= taken
    }
    let messages = Array(chunks.reversed().joined())
    let hasMore = page > 0 || offset > 0
    let next =
      hasMore
      ? ForwardHistoryCursor(
        page: page, offset: offset, boundary: messages.first?.serverID?.rawValue ?? start.boundary) : nil
    return Taken(messages: messages, next: next, serverTotal: serverTotal)
  }

  /// One forward page, refused whole when it is larger than was asked for (the place of every message
  /// after it would be wrong).
  private func fetch(_ conversation: ConversationID, after cursor: String?) async throws -> Page {
    // A walk is many requests: one the store stopped waiting for (closed, signed out) stops between them.
    try Task.checkCancellation()
    let page = try await fetchPage(conversation, cursor, serverPageLimit)
    guard page.messages.count <= serverPageLimit else {
      throw ChatError(
        .invalidResponse, "The server sent \(page.messages.count) messages for a forward page of \(serverPageLimit).")
    }
    return page
  }
}
