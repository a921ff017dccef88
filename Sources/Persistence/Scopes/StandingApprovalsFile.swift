public import ConversationState

/// The person's standing approvals (`ApprovalMemory.always`), one file in their scope's directory: they are
/// few and change as a whole, so the file is rewritten atomically on each change. It lives in the scope, so
/// one person's approvals are never read for another.
public struct StandingApprovalsFile: Sendable {
  static let kind = "APPR"
  static let version: UInt32 = 1

  let file: SingleRecordFile<[ApprovalGrant]>

  init(path: String, events: StorageEvents) {
    file = SingleRecordFile(path: path, kind: Self.kind, version: Self.version, events: events)
  }

  /// Stores `approvals`, replacing what was stored.
  public func save(_ approvals: [ApprovalGrant]) throws(PersistenceError) { try file.save(approvals) }

  /// The stored approvals, empty when there are none. An unreadable file is moved aside and the error thrown
  /// (with `movedAsideTo` set): the user is asked again, which is the safe side of forgetting.
  public func load() throws(PersistenceError) -> [ApprovalGrant] { try file.load("the approvals") ?? [] }
}
