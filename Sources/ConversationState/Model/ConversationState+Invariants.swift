extension ConversationState {
  /// Every invariant this state breaks, as sentences naming the rule; empty when the state is sound.
  ///
  /// O(n) in the messages: for tests and debug checks, not for hot paths.
  public func invariantViolations() -> [String] {
    var violations: [String] = []
    var clientIDs = Set<ClientMessageID>()
    var serverIDs = Set<ServerMessageID>()
    var previousKey: MessageOrderKey?
    for (position, message) in messages.enumerated() {
      if !clientIDs.insert(message.clientID).inserted {
        violations.append("client ID \(message.clientID) appears twice")
      }
      if let serverID = message.serverID, !serverIDs.insert(serverID).inserted {
        violations.append("server ID \(serverID) appears twice")
      }
      if messages[clientID: message.clientID] != message {
        violations.append("the client-ID index does not find \(message.clientID)")
      }
      if let serverID = message.serverID, messages[serverID: serverID]?.clientID != message.clientID {
        violations.append("the server-ID index does not find \(serverID)")
      }
      let committed = position < messages.committedCount
      if committed != message.isCommitted {
        violations.append(
          "\(message.clientID) is \(message.delivery) but sits in the \(committed ? "" : "un")committed part")
      }
      if committed {
        if let previousKey, message.orderKey < previousKey {
          violations.append("\(message.clientID) is out of server order")
        }
        previousKey = message.orderKey
      }
      if outboxRecording.contains(message.clientID) && message.delivery != .pending {
        violations.append("\(message.clientID) is being stored in the outbox but is \(message.delivery)")
      }
      if !message.parts.isEmpty {
        violations += Self.partViolations(
          message.parts.map(\.id), message.parts.map(\.content), message.toolCalls, in: "\(message.clientID)")
      }
      if message.delivery == .sending && !requests.values.contains(.send(message.clientID)) {
        violations.append("\(message.clientID) is sending but no send request is in flight for it")
      }
    }
    for clientID in outboxRecording where messages[clientID: clientID] == nil {
      violations.append("\(clientID) is being stored in the outbox but is not in the conversation")
    }
    for reply in liveReplies where !reply.parts.isEmpty {
      let owner = "the streaming reply \(reply.clientID)"
      violations += Self.partViolations(
        reply.parts.map(\.id), reply.committedParts.map(\.content), reply.toolCalls, in: owner)
      for part in reply.parts where part.isOpen {
        switch part.kind {
        case .text, .reasoning: break
        case .toolCall(let callID) where reply.toolCalls.first(where: { $0.id == callID })?.outcome == .inputStreaming:
          break
        default: violations.append("part \(part.id) of \(owner) is open but does not stream")
        }
      }
    }
    if !overlappingReplies.isEmpty && streamingReply == nil {
      violations.append("older replies stream beside no newer one")
    }
    if overlappingReplies.count > Self.maximumOverlappingReplies {
      violations.append("\(overlappingReplies.count) older replies stream, more than the bound")
    }
    let live = liveReplies
    if Set(live.map(\.requestID)).count != live.count { violations.append("two streaming replies share a request") }
    if Set(live.map(\.clientID)).count != live.count { violations.append("two streaming replies share a client ID") }
    var tokens = TokenUsage()
    var awaiting = 0
    for message in messages.prefix(messages.committedCount) {
      tokens.add(message.usage)
      if message.reply?.isAwaiting == true { awaiting += 1 }
    }
    if tokens != tokenUsage { violations.append("tokenUsage is \(tokenUsage) but the replies report \(tokens)") }
    if awaiting != messages.awaitingCount {
      violations.append("messages.awaitingCount is \(messages.awaitingCount) but \(awaiting) answers wait")
    }
    for message in messages where message.toolCalls.contains(where: { $0.outcome == .inputStreaming }) {
      violations.append("\(message.clientID) is in the conversation with a call whose input is still streaming")
    }
    violations += requestViolations() + awaitingViolations() + branchViolations() + followUpViolations()
    let unread = messages.filter { ReadCursor.isUnread($0, against: readCursor) }.count
    if unread != unreadCount {
      violations.append("unreadCount is \(unreadCount) but \(unread) message(s) are after the read cursor")
    }
    return violations
  }

  /// The follow-up queue: each turn once, none already in the conversation, and a queue free to drain is
  /// never left waiting (it drains after every action that could free it).
  private func followUpViolations() -> [String] {
    guard hasFollowUps else { return [] }
    let queue = followUps
    var violations: [String] = []
    let ids = queue.turns.map(\.clientID)
    if Set(ids).count != ids.count { violations.append("a turn is queued twice") }
    if let sent = ids.first(where: { messages.contains($0) || branches.hides($0) }) {
      violations.append("queued turn \(sent) is also in the conversation")
    }
    if queue.isEmpty { violations.append("an empty queue is kept (paused: \(queue.pause != nil))") }
    if queue.turns.count > ChatPolicy.maximumFollowUps {
      violations.append("\(queue.turns.count) turns queued, over \(ChatPolicy.maximumFollowUps)")
    }
    if !queue.isEmpty, queue.pause == nil, !isAnswering, status.acceptsMessages,
      messages.last.map({ $0.role == .assistant && $0.reply?.isAwaiting == true }) != true
    {
      violations.append("the queue could drain but \(queue.turns.count) turns wait")
    }
    return violations
  }

  /// The tree: each message is in one place (on screen or on one path off it), each fork's path on screen
  /// starts on screen (or was trimmed from the older end), and nothing streams into a path off screen.
  private func branchViolations() -> [String] {
    guard !branches.isEmpty else { return [] }
    var violations = branches.violations
    var seen = Set(messages.map(\.clientID))
    func walk(_ path: ConversationBranches.Path) {
      for message in path.messages where !seen.insert(message.clientID).inserted {
        violations.append("\(message.clientID) is in two places of the tree")
      }
      for fork in path.forks { fork.paths.forEach(walk) }
    }
    for fork in branches.forks { fork.paths.forEach(walk) }
    let trimmed = history.hasOlderMessages || history.trimmedBefore != nil || history.newerGap != nil
    for fork in branches.forks where !trimmed && !messages.contains(fork.shown) {
      violations.append("the fork showing \(fork.shown) shows a path that is not on screen")
    }
    for reply in liveReplies {
      if let replaced = reply.replacing, !messages.contains(replaced) {
        violations.append("the reply \(reply.clientID) regenerates \(replaced), which is not on screen")
      }
    }
    return violations
  }

  /// Questions are unique in their reply and approvals name its calls; a waiting run is the latest answer's.
  private func awaitingViolations() -> [String] {
    var violations: [String] = []
    var owners: [(String, [InputRequest], [ToolCall])] = []
    if let reply = streamingReply { owners.append(("the streaming reply", reply.inputRequests, reply.toolCalls)) }
    for message in messages {
      if case .awaitingInput(let requests) = message.reply {
        owners.append(("\(message.clientID)", requests, message.toolCalls))
      }
    }
    for (owner, requests, calls) in owners {
      if Set(requests.map(\.id)).count != requests.count { violations.append("a request ID appears twice in \(owner)") }
      for request in requests {
        if let tool = request.grantedBy, request.answer != .approved {
          violations.append("\(owner)'s \(request.id) was granted by \(tool) but is not approved")
        }
        guard case .toolApproval(let callID) = request.kind else { continue }
        if !calls.contains(where: { $0.id == callID }) {
          violations.append("\(owner) asks to approve \(callID), which it does not have")
        }
      }
    }
    if regenerateAfterReload != nil, history.loadingRequest == nil {
      violations.append("an answer waits to be regenerated after a reload, but no history load is in flight")
    }
    if awaitingRun != nil, latestAnswer?.reply?.isAwaiting != true {
      violations.append("awaitingRun is set but the latest answer does not wait")
    }
    return violations
  }

  /// A reply's parts: each ID once, each tool-call part naming a call the reply has.
  private static func partViolations(
    _ ids: [PartID], _ contents: [MessagePart.Content], _ toolCalls: [ToolCall], in owner: String
  ) -> [String] {
    var violations: [String] = []
    if Set(ids).count != ids.count { violations.append("a part ID appears twice in \(owner)") }
    for case .toolCall(let callID) in contents where !toolCalls.contains(where: { $0.id == callID }) {
      violations.append("\(owner) has a part for tool call \(callID), which it does not have")
    }
    return violations
  }

  private func requestViolations() -> [String] {
    var violations: [String] = []
    for (requestID, purpose) in requests {
      if requestID.epoch != epoch { violations.append("request \(requestID) of an old epoch is still in flight") }
      if requestID.sequence > requestSequence { violations.append("request \(requestID) is ahead of the counter") }
      if case .tool(let call, let reply) = purpose, requests[reply] == nil, reply != awaitingRun,
        streamingReply?.requestID != reply || streamingReply?.resumption == nil
      {
        violations.append("tool call \(call) runs for reply \(reply), which is neither in flight nor waiting")
      }
      if purpose == .history && history.loadingRequest != requestID {
        violations.append("history request \(requestID) is in flight but history.loadingRequest is not it")
      }
    }
    if history.isLoadingStored, history.loadingRequest == nil {
      violations.append("a stored history page is being read, but no history load is in flight")
    }
    if history.isLoadingNewer, !history.isLoadingStored {
      violations.append("newer history is being loaded, but not from storage")
    }
    if let gap = history.newerGap, gap.after >= gap.through {
      violations.append("the newer gap starts after \(gap.after) but ends at or before it")
    }
    if let loading = history.loadingRequest, requests[loading] != .history {
      violations.append("history.loadingRequest \(loading) is not an in-flight history request")
    }
    let connections = requests.values.filter { $0 == .connect }.count
    switch connection {
    case .connecting, .connected, .syncing:
      if connections != 1 { violations.append("the connection is \(connection) with \(connections) connect requests") }
    case .idle, .closed, .reconnecting:
      if connections != 0 { violations.append("the connection is \(connection) but a connect request is in flight") }
    }
    for reply in liveReplies {
      if let connection = reply.connection, requests[connection] != .connect {
        violations.append("the streaming reply \(reply.clientID)'s connection \(connection) is not the live one")
      }
      // Between a drop and its resume, the reply waits with no request (its timer runs).
      if requests[reply.requestID] == nil, reply.resumption == nil || reply.requestID != streamingReply?.requestID {
        violations.append("the streaming reply's request \(reply.requestID) is not in flight")
      }
      if let resumption = reply.resumption, let purpose = requests[reply.requestID], purpose != resumption.purpose {
        violations.append("the resumed reply's request \(reply.requestID) is a \(purpose), not a \(resumption.purpose)")
      }
    }
    return violations
  }

  /// What may never happen between two consecutive states: the read cursor moving back, the epoch or the
  /// request counter going down, a feedback moment being offered a second time, an ended part growing.
  public func transitionViolations(from previous: ConversationState) -> [String] {
    var violations: [String] = []
    if let before = previous.readCursor, epoch == previous.epoch, conversationID == previous.conversationID {
      if let after = readCursor {
        if after.orderKey < before.orderKey { violations.append("the read cursor moved backward") }
      } else if !messages.isEmpty {
        violations.append("the read cursor was lost")
      }
    }
    let after = Dictionary(liveReplies.map { ($0.requestID, $0) }, uniquingKeysWith: { $1 })
    for before in previous.liveReplies {
      guard let after = after[before.requestID] else { continue }
      for part in before.parts where !part.isOpen && (part.kind == .text || part.kind == .reasoning) {
        if after.parts.first(where: { $0.id == part.id })?.text != part.text {
          violations.append("part \(part.id) had ended, but its text changed")
        }
      }
    }
    if epoch < previous.epoch { violations.append("the identity epoch went down") }
    if requestSequence < previous.requestSequence { violations.append("the request counter went down") }
    if previous.hasOfferedFeedback && !hasOfferedFeedback && epoch == previous.epoch
      && conversationID == previous.conversationID && !messages.isEmpty
    {
      violations.append("hasOfferedFeedback was reset, so the moment could be offered twice")
    }
    return violations
  }

  /// Stops the program when an invariant is broken. Call it from debug builds and test kits.
  public func checkInvariants() {
    let violations = invariantViolations()
    precondition(violations.isEmpty, "ConversationState invariants broken:\n- " + violations.joined(separator: "\n- "))
  }
}
