public import ConversationState
import Persistence

/// The person's standing approvals (`ApprovalMemory.always`): kept in their scope's file, held in memory
/// beside the scope (`ClientStorage.standingApprovals`), and handed to each of their open conversations.
extension ChatClient {
  /// The standing approvals of the person signed in (the anonymous user's when nobody is), as last stored:
  /// for a settings screen that lists them. Each conversation shows the same list in
  /// `ConversationState.standingApprovals`.
  ///
  /// ```swift
  /// for grant in client.standingApprovals {
  ///   settingsRow("Always: \(grant.toolName)") { await client.revokeStandingApproval(toolName: grant.toolName) }
  /// }
  /// ```
  public var standingApprovals: [ApprovalGrant] { storage.withLock { $0.standingApprovals } }

  /// Forgets the person's standing approval of `toolName`: the next request to run it, in any of their
  /// conversations, asks the user again. Returns once the change is stored and every open conversation has
  /// it. Nothing happens when there is none. (In a conversation, `revokeApproval(toolName:)` does the same
  /// and also forgets that conversation's own approval.)
  public func revokeStandingApproval(toolName: String) async {
    await worker.run { [weak self] in self?.applyStandingApprovals(.revoked(toolName: toolName)) }
  }

  /// A change a store's user made: applied on the worker, behind the scope changes handed to it before.
  func changeStandingApprovals(_ change: StandingApprovalChange) {
    worker.async { [weak self] in self?.applyStandingApprovals(change) }
  }

  /// On the worker: the change made to the list of the scope in use, the file rewritten (outside the lock),
  /// and the list handed to every open conversation.
  private func applyStandingApprovals(_ change: StandingApprovalChange) {
    let (before, after, scope) = storage.withLock { storage in
      let before = storage.standingApprovals
      storage.standingApprovals = change.applied(to: before)
      return (before, storage.standingApprovals, storage.scope)
    }
    guard after != before else { return }
    do throws(PersistenceError) {
      try scope?.standingApprovals.save(after)
      storageErrors.wrote()
    } catch {
      storageErrors.deliver(error)
    }
    handOutStandingApprovals()
  }

  /// Sends the scope's list to every open conversation, named for its person: a store whose person is
  /// someone else by now (a change of identity on its way) ignores it.
  func handOutStandingApprovals() {
    let (approvals, userID) = storage.withLock { ($0.standingApprovals, $0.userID) }
    let open = core.withLock { core in core.stores.values.map(\.store) }
    for store in open { store.send(.standingApprovalsChanged(approvals, userID: userID)) }
  }

  /// The standing approvals a store opened now for `identity` starts with: the scope's, when the scope in use
  /// is that person's (a change of identity may still be on its way to the worker, which hands the new
  /// person's list to every open store once their scope is open).
  func standingApprovals(for identity: UserIdentity?) -> [ApprovalGrant] {
    storage.withLock { $0.userID == identity?.userID ? $0.standingApprovals : [] }
  }

  /// Reads the scope's standing approvals into `storage`: an unreadable file is reported and moved aside, and
  /// the person is asked again (the safe side of forgetting).
  static func loadStandingApprovals(
    _ storage: inout ClientStorage, _ scope: ScopeDirectory, report: (PersistenceError) -> Void
  ) {
    do throws(PersistenceError) {
      storage.standingApprovals = try scope.standingApprovals.load()
    } catch {
      report(error)
    }
  }
}
