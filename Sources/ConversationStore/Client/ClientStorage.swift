import ConversationState
import Persistence

/// The storage a client writes to now: the identity's scope, its outbox, and which list epoch's snapshots
/// belong there. Changed only by jobs on the client's worker; the lock guards reading the references,
/// never a write.
struct ClientStorage: Sendable {
  /// Whose scope is open (nil userID: the anonymous one).
  var userID: String?
  var scope: ScopeDirectory?
  var outbox: Outbox?
  /// The list epoch whose snapshots belong to `scope`; nil while the identity changes.
  var listEpoch: IdentityEpoch?
  /// The person's standing approvals, as their scope's file has them (`ChatClient+Approvals.swift`).
  var standingApprovals: [ApprovalGrant] = []
  var opened = false
}
