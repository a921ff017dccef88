import ConversationState

/// The agent's shared state: replaced by a snapshot, changed by JSON Patch deltas applied whole or not at
/// all. A delta that does not fit the state held here means the two have drifted apart: the state stays as
/// it was, and the agent is asked for a snapshot, as AG-UI has it.
extension ConversationReducer {
  func agentStateSnapshot(_ snapshot: JSONValue, _ state: inout ConversationState) -> [ConversationEffect] {
    state.agentState = snapshot
    state.needsAgentStateSnapshot = false
    return []
  }

  func agentStateDelta(_ patch: [JSONPatchOperation], _ state: inout ConversationState) -> [ConversationEffect] {
    // Waiting for a snapshot: a change to a state this client does not have would make it wrong silently.
    guard !state.needsAgentStateSnapshot else { return [] }
    guard state.agentState != nil else {
      return agentStateDrifted("A change to the agent's state came before any snapshot of it.", &state)
    }
    do throws(JSONPatchError) {
      try state.agentState?.apply(patch)
      return []
    } catch {
      return agentStateDrifted("A change to the agent's state did not apply (\(error)).", &state)
    }
  }

  private func agentStateDrifted(_ message: String, _ state: inout ConversationState) -> [ConversationEffect] {
    state.backgroundError = ChatError(.invalidEvent, message + " A fresh copy was asked for.")
    state.needsAgentStateSnapshot = true
    return [.requestAgentStateSnapshot(state.conversationID)]
  }
}
