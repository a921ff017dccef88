import ConversationState
import Foundation

/// Approvals the user asked the conversation to remember (`ApprovalGrant`): given with `approve`, applied
/// to each approval request as it arrives (`inputRequested`), revoked with `revokeApproval`.
extension ConversationReducer {
  /// The remembered approval that covers call `callID` of `calls`, if there is one: this conversation's,
  /// else the person's standing one.
  func grant(for callID: ToolCallID, in calls: [ToolCall], _ state: ConversationState) -> ApprovalGrant? {
    guard state.hasApprovalGrants, let call = calls.first(where: { $0.id == callID }) else { return nil }
    return state.approvalGrants.first { $0.toolName == call.name }
      ?? state.standingApprovals.first { $0.toolName == call.name }
  }

  /// Approves `id` and, with `.conversation` or `.always`, remembers the tool (here, or for the person) and
  /// approves every other open request of the same answer to run it.
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
    guard memory != .once, state.userError == nil, let call = open.calls.first(where: { $0.id == callID })
    else { return effects }
    let grant = ApprovalGrant(toolName: call.name, grantedAt: at)
    if memory == .conversation {
      state.approvalGrants = StandingApprovalChange.granted(grant).applied(to: state.approvalGrants)
    } else {
      state.standingApprovals = StandingApprovalChange.granted(grant).applied(to: state.standingApprovals)
      effects.append(.changeStandingApprovals(.granted(grant)))
    }
    for other in open.requests where other.id != id && other.answer == nil {
      guard case .toolApproval(let otherCall) = other.kind,
        open.calls.first(where: { $0.id == otherCall })?.name == call.name
      else { continue }
      effects += answerInput(other.id, .approved, grantedBy: call.name, &state)
    }
    return effects
  }

  /// Forgets the tool's approval here and the person's standing one (telling the client).
  func revokeApproval(_ toolName: String, _ state: inout ConversationState) -> [ConversationEffect] {
    let here = state.approvalGrants.contains { $0.toolName == toolName }
    let standing = state.standingApprovals.contains { $0.toolName == toolName }
    guard here || standing else {
      return refuse(.invalidAction, "No approval of \(toolName) is remembered here.", &state)
    }
    let change = StandingApprovalChange.revoked(toolName: toolName)
    state.approvalGrants = change.applied(to: state.approvalGrants)
    state.standingApprovals = change.applied(to: state.standingApprovals)
    state.userError = nil
    return standing ? [.changeStandingApprovals(change)] : []
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
