public import Foundation

/// An approval the user asked the conversation to remember (`ConversationAction.approve(_:remembering:)`
/// with `.conversation`): a later request of the agent to run the tool `toolName` in this conversation is
/// approved without asking, and marked so (`InputRequest.grantedBy`). Stored with the conversation, listed
/// in `ConversationState.approvalGrants`, revoked with `revokeApproval(toolName:)`; a change of person starts
/// a conversation without any.
///
/// ```swift
/// for grant in state.approvalGrants {
///   grantRow(grant.toolName, since: grant.grantedAt) { store.send(.revokeApproval(toolName: grant.toolName)) }
/// }
/// ```
public struct ApprovalGrant: Hashable, Sendable, Codable {
  /// The tool the agent may run without asking (`ToolCall.name`).
  public var toolName: String
  /// When the user gave it: the time on the action's answer (the caller's clock).
  public var grantedAt: Date

  public init(toolName: String, grantedAt: Date) {
    self.toolName = toolName
    self.grantedAt = grantedAt
  }
}

/// How long an approval holds (`ConversationAction.approve(_:remembering:)`).
public enum ApprovalMemory: String, Hashable, Sendable, Codable {
  /// This request only: the same as `answerInput(id, .approved)`.
  case once
  /// Every later request to run the same tool in this conversation, until revoked.
  case conversation
}
