import ConversationState

/// Which conversation stores are open. Asking twice for a conversation gives the same store; the store of a
/// new conversation becomes that conversation's once the server names it; idle stores close beyond the
/// limit, least recently asked-for first, never one a screen still holds.
extension ClientReducer {
  func open(
    _ id: ConversationID, adopting: ConversationHandle?, unheld: Set<ConversationHandle>, _ state: inout ClientState
  ) -> [ClientEffect] {
    if let handle = state.conversations[id] {
      touch(handle, &state)
      return []
    }
    if let adopting, adopting == state.newConversation {
      // The store the user is writing in already shows `id`: it is that conversation's store.
      return adopt(adopting, as: id, &state)
    }
    let handle = state.makeHandle()
    state.conversations[id] = handle
    state.open[handle] = .some(id)
    touch(handle, &state)
    return [.openConversation(handle, id)] + evictIdle(unheld.subtracting([handle]), &state)
  }

  func adopt(_ handle: ConversationHandle, as id: ConversationID, _ state: inout ClientState) -> [ClientEffect] {
    guard state.open[handle] != nil else { return [] }
    if state.newConversation == handle { state.newConversation = nil }
    state.open[handle] = .some(id)
    if state.conversations[id] == nil {
      state.conversations[id] = handle
      touch(handle, &state)
    }
    return []
  }

  /// Closes the least recently asked-for of `unheld` until at most `maximumIdleConversations` conversation
  /// stores are open. While more stay open (held by a screen, or busy), the idle check comes back after
  /// `idleCheckInterval`: a screen lets go of a store, and a store settles, without telling anyone.
  func evictIdle(_ unheld: Set<ConversationHandle>, _ state: inout ClientState) -> [ClientEffect] {
    var excess = state.conversations.count - maximumIdleConversations
    guard excess > 0 else { return [] }
    let candidates = state.conversations.filter { unheld.contains($0.value) }
      .sorted { (state.lastUse[$0.value] ?? 0, $0.value) < (state.lastUse[$1.value] ?? 0, $1.value) }
    var closed: [ConversationHandle] = []
    for (id, handle) in candidates where excess > 0 {
      state.conversations[id] = nil
      state.open[handle] = nil
      state.lastUse[handle] = nil
      closed.append(handle)
      excess -= 1
    }
    var effects: [ClientEffect] = closed.isEmpty ? [] : [.closeConversations(closed)]
    if excess > 0 { effects.append(.startTimer(.idleCheck, seconds: idleCheckInterval)) }
    return effects
  }
}

extension ClientReducer {
  /// A deleted conversation: its store, if one is open, is no longer the conversation's (asking for it
  /// again opens a fresh one), and its stored data goes.
  func forget(_ id: ConversationID, _ state: inout ClientState) -> [ClientEffect] {
    let handle = state.conversations.removeValue(forKey: id)
    if let handle {
      state.open[handle] = nil
      state.lastUse[handle] = nil
    }
    return [.deleteStoredConversation(id, closing: handle)]
  }
}
