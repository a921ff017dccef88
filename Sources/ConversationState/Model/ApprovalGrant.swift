public import Foundation

/// An approval the user asked to remember (`ConversationAction.approve(_:remembering:at:)`): a later request
/// of the agent to run the tool `toolName` is approved without asking, and marked so
/// (`InputRequest.grantedBy`).
///
/// - With `.conversation` it holds in that conversation: stored with it, listed in
///   `ConversationState.approvalGrants`. A change of person starts a conversation without any.
/// - With `.always` it holds in every conversation of the person who gave it: listed in
///   `ConversationState.standingApprovals`, kept by `ChatClient` in that person's storage scope (a file of its
///   own) and handed to each of their conversations, never to another person's. A store made without a
///   client keeps it for its own life only.
///
/// Either is revoked with `revokeApproval(toolName:)` (or `ChatClient.revokeStandingApproval(toolName:)`
/// from a settings screen with no conversation open).
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
  /// Every later request to run the same tool in any conversation of the person signed in, until revoked
  /// (`ConversationState.standingApprovals`).
  case always
}

/// A change to the person's standing approvals (`ApprovalMemory.always`), which the store hands to whoever
/// keeps them (`ConversationEffect.changeStandingApprovals`): `ChatClient` stores it in the person's scope and
/// tells their other conversations.
public enum StandingApprovalChange: Hashable, Sendable, Codable {
  /// The user said "always" for this tool.
  case granted(ApprovalGrant)
  /// The user revoked the tool's standing approval.
  case revoked(toolName: String)

  /// `approvals` with the change made: a grant is added once (the first one given stays), a revocation
  /// removes it.
  public func applied(to approvals: [ApprovalGrant]) -> [ApprovalGrant] {
    switch self {
    case .granted(let grant):
      approvals.contains { $0.toolName == grant.toolName } ? approvals : approvals + [grant]
    case .revoked(let toolName): approvals.filter { $0.toolName != toolName }
    }
  }
}
