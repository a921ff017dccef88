import ConversationState
import Foundation

/// Approvals the user asked the conversation to remember (`ApprovalGrant`): given with `approve`, applied
/// to each approval request as it arrives (`inputRequested`), revoked with `revokeApproval`.
extension ConversationReducer {
  /// The remembered approval that covers call `callID` of `calls`, if there is one.
  func grant(for callID: ToolCallID, in calls: [ToolCall], _ state: ConversationState) -> ApprovalGrant? {
    guard state.hasApprovalGrants, let call = calls.first(where: { $0.id == callID }) else { return nil }
    return state.approvalGrants.first { $0.toolName == call.name }
  }

  /// Approves `id` and, with `.conversation`, remembers the tool for this conversation and approves every
  /// other open request of the same answer to run it.
  func approve(_ id: InputRequestID, remembering memory: ApprovalMemory, at: Date, _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    let open = openRequests(state)
    guard let request = open.requests.first(where: { $0.id == id }) else {
      return refuse(.unknownMessage, "The agent is not waiting for an answer to \(id).", &state)
    }
    guard case .toolApproval(let callID) = request.kind else {
      return refuse(.invalidAction, "\(id) asks a question: answer with a value, or decline it.", &state)
    }
    var effects = answerInput(id, .approved, &state)
    guard memory == .conversation, state.userError == nil, let call = open.calls.first(where: { $0.id == callID })
    else { return effects }
    if !state.approvalGrants.contains(where: { $0.toolName == call.name }) {
      state.approvalGrants.append(ApprovalGrant(toolName: call.name, grantedAt: at))
    }
    for other in open.requests where other.id != id && other.answer == nil {
      guard case .toolApproval(let otherCall) = other.kind,
        open.calls.first(where: { $0.id == otherCall })?.name == call.name
      else { continue }
      effects += answerInput(other.id, .approved, grantedBy: call.name, &state)
    }
    return effects
  }

  func revokeApproval(_ toolName: String, _ state: inout ConversationState) -> [ConversationEffect] {
    guard let index = state.approvalGrants.firstIndex(where: { $0.toolName == toolName }) else {
      return refuse(.invalidAction, "No approval of \(toolName) is remembered here.", &state)
    }
    state.approvalGrants.remove(at: index)
    state.userError = nil
    return []
  }

  /// The requests (and calls) of the reply streaming, or else of the latest answer that waits for input.
  private func openRequests(_ state: ConversationState) -> (requests: [InputRequest], calls: [ToolCall]) {
    if let reply = state.streamingReply, !reply.inputRequests.isEmpty { return (reply.inputRequests, reply.toolCalls) }
    if let answer = awaitingAnswer(state), case .awaitingInput(let requests) = answer.reply {
      return (requests, answer.toolCalls)
    }
    return ([], [])
  }
}
