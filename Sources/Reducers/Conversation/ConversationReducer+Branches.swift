import ConversationState

/// Editing into a sibling and switching between the sibling paths of a conversation
/// (`ConversationState.branches`). A switch is local and asks for nothing: the path on screen is what the
/// next request carries.
extension ConversationReducer {
  func edit(_ messageID: ClientMessageID, _ replacement: OutgoingMessage, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard let index = state.messages.index(of: messageID) else {
      return refuse(.unknownMessage, "There is no message \(messageID) to edit.", &state)
    }
    let message = state.messages[index]
    guard message.role == .user, message.isCommitted else {
      return refuse(.invalidAction, "Only a message you sent can be edited.", &state)
    }
    if let refusal = state.branchChangeRefusal { return refuse(.invalidAction, refusal, &state) }
    if let refusal = sendRefusal(replacement, state) { return refuse(refusal.code, refusal.message, &state) }
    // The edited message and what followed it stay as the new message's sibling.
    let after = index > 0 ? state.messages[index - 1].clientID : nil
    let replaced = state.messages.removeCommitted(from: messageID)
    state.branches.keep(replaced, after: after, replacedBy: replacement.clientID)
    recountUnread(&state)
    return send(replacement, &state)
  }

  /// Removes a message from the screen (an edit given up before it was sent, a message the server deleted)
  /// with its unread count. When it started the path on screen at a fork, the next message on screen starts
  /// the path now, or, with none after it, the sibling before it is shown.
  func remove(_ clientID: ClientMessageID, _ state: inout ConversationState) {
    guard let index = state.messages.index(of: clientID) else { return }
    let next = index + 1 < state.messages.count ? state.messages[index + 1].clientID : nil
    guard let removed = state.messages.remove(clientID) else { return }
    if ReadCursor.isUnread(removed, against: state.readCursor) { state.unreadCount -= 1 }
    guard state.branches.place(of: clientID) != nil else { return }
    if let next {
      state.branches.moveShown(clientID, to: next)
    } else if let coming = state.branches.dropShown(clientID) {
      for message in coming { state.messages.commit(message) }
      recountUnread(&state)
    }
  }

  /// Where `message`, about to be sent, goes on the path on screen, when the conversation has branches and no
  /// reply streams (`SendPayload.placement`): after the last message shown; first when nothing is shown and
  /// nothing older is stored or on the server; beside the message it replaced when it is an edit of the first
  /// message loaded and older ones are not (what comes before is the server's to name). Nil otherwise: after
  /// the server's newest.
  func sendPlacement(of message: ClientMessageID, _ state: ConversationState) -> MessagePlacement? {
    guard !state.branches.isEmpty, state.liveReplies.isEmpty else { return nil }
    if let last = state.messages.lastCommitted { return last.serverID.map(MessagePlacement.after) }
    guard state.history.hasOlderMessages else { return .first }
    return state.branches.sibling(of: message)?.serverID.map(MessagePlacement.beside)
  }

  func showSibling(of message: ClientMessageID, _ choice: SiblingChoice, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    if let refusal = state.branchChangeRefusal { return refuse(.invalidAction, refusal, &state) }
    guard let place = state.branches.place(of: message) else {
      return refuse(.unknownMessage, "Message \(message) has no siblings to show.", &state)
    }
    let index =
      switch choice {
      case .previous: place.index - 1
      case .next: place.index + 1
      case .index(let index): index
      }
    guard (0..<place.count).contains(index) else {
      return refuse(.unknownMessage, "Message \(message) has no sibling \(index + 1) of \(place.count).", &state)
    }
    if index != place.index, !show(index, atForkShowing: message, &state) { return refuseNotInMemory(&state) }
    return []
  }

  func showBranch(containing message: ClientMessageID, _ state: inout ConversationState) -> [ConversationEffect] {
    if state.messages.contains(message) { return [] }
    if let refusal = state.branchChangeRefusal { return refuse(.invalidAction, refusal, &state) }
    // Each switch brings the forks of the path it shows to the top; at most one switch per fork on the way.
    while !state.messages.contains(message) {
      guard let (shown, index) = Self.step(toward: message, in: state.branches) else {
        return refuse(.unknownMessage, "No branch holds message \(message).", &state)
      }
      // A switch that cannot be made would be looked for again, for ever.
      if !show(index, atForkShowing: shown, &state) { return refuseNotInMemory(&state) }
    }
    return []
  }

  /// The fork on screen (by the first message it shows) and the path there that holds `message`, itself or
  /// within one of its forks.
  private static func step(toward message: ClientMessageID, in branches: ConversationBranches)
    -> (ClientMessageID, Int)?
  {
    func holds(_ path: ConversationBranches.Path) -> Bool {
      path.messages.contains { $0.clientID == message } || path.forks.contains { $0.paths.contains(where: holds) }
    }
    for fork in branches.forks {
      if let index = fork.paths.firstIndex(where: holds) { return (fork.shown, index) }
    }
    return nil
  }

  /// Shows path `index` of the fork whose path on screen starts at `shown`; the path leaving the screen keeps
  /// its place among the siblings. False, with nothing changed, when the path on screen does not start in
  /// memory (`shown` was trimmed away): it could not be kept whole.
  private func show(_ index: Int, atForkShowing shown: ClientMessageID, _ state: inout ConversationState) -> Bool {
    guard state.messages.contains(shown) else { return false }
    let current = state.messages.removeCommitted(from: shown)
    guard let coming = state.branches.show(index, atForkShowing: shown, keeping: current) else {
      for message in current { state.messages.commit(message) }
      return false
    }
    for message in coming { state.messages.commit(message) }
    recountUnread(&state)
    return true
  }

  private func refuseNotInMemory(_ state: inout ConversationState) -> [ConversationEffect] {
    refuse(.invalidAction, "Scroll up to where the conversation forks before switching branches.", &state)
  }
}
