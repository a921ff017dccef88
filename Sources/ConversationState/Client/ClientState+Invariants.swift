extension ClientState {
  /// Every invariant this state breaks; empty when sound. The client test store, the fixture runner and the
  /// client fuzzer check it after every step.
  ///
  /// 1. A conversation's store is open and shows it; the new conversation's store is open and shows none;
  ///    no store is named for two conversations.
  /// 2. Every handle was minted (below `nextHandle`); only open stores have a last use, none after `uses`.
  /// 3. The shared connection has its request exactly while it is being opened or is live.
  /// 4. Every request waited for (the connection, a credential refresh, the outbox's, the contact upload's)
  ///    is of the current epoch, minted (not after `nextRequest`), and named by one of them only; a
  ///    credential renewal is not after `nextRequest` either.
  /// 5. Contact details are held only for the anonymous user, and sent only when held.
  /// 6. A closed client has no open store and a closed connection.
  public func invariantViolations() -> [String] {
    storeViolations() + requestViolations() + contactViolations() + closedViolations()
  }

  /// The rules between two consecutive states: the epoch and the counters of handles, requests and uses
  /// never go back, and a closed client stays closed.
  public func transitionViolations(from previous: ClientState) -> [String] {
    var violations: [String] = []
    if epoch < previous.epoch { violations.append("the epoch went back from \(previous.epoch) to \(epoch)") }
    let counters: [(String, UInt64, UInt64)] = [
      ("nextHandle", previous.nextHandle, nextHandle), ("nextRequest", previous.nextRequest, nextRequest),
      ("uses", previous.uses, uses),
    ]
    for (name, before, after) in counters where after < before {
      violations.append("\(name) went back from \(before) to \(after)")
    }
    if previous.isClosed && !isClosed { violations.append("a closed client opened again") }
    return violations
  }

  private func storeViolations() -> [String] {
    var violations: [String] = []
    var named = Set<ConversationHandle>()
    for (id, handle) in conversations.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
      if open[handle] != .some(id) { violations.append("conversation \(id)'s store \(handle) is not open showing it") }
      if !named.insert(handle).inserted { violations.append("store \(handle) is named for two conversations") }
    }
    if let handle = newConversation, open[handle] != .some(nil) {
      violations.append("the new conversation's store \(handle) is not open showing no conversation")
    }
    for handle in open.keys.sorted() where handle.rawValue >= nextHandle {
      violations.append("store \(handle) was never minted (next handle \(nextHandle))")
    }
    for (handle, use) in lastUse.sorted(by: { $0.key < $1.key }) {
      if open[handle] == nil { violations.append("store \(handle) has a last use but is not open") }
      if use > uses { violations.append("store \(handle) was last used at \(use), after \(uses) uses") }
    }
    return violations
  }

  private func requestViolations() -> [String] {
    var violations: [String] = []
    let isOpening = connection == .connecting || connection == .connected || connection == .syncing
    if isOpening != (connectionRequest != nil) {
      violations.append("the connection is \(connection) with request \(connectionRequest.map { "\($0)" } ?? "none")")
    }
    let waited: [(String, RequestID?)] = [
      ("the connection", connectionRequest), ("the credential refresh", credentialRefresh),
      ("the outbox", outbox.requestID), ("the contact upload", contactUpload.requestID),
    ]
    var seen: [RequestID: String] = [:]
    for case (let name, let request?) in waited {
      if request.epoch != epoch { violations.append("\(name)'s request \(request) is not of epoch \(epoch)") }
      if request.sequence > nextRequest { violations.append("\(name)'s request \(request) was never minted") }
      if let other = seen.updateValue(name, forKey: request) {
        violations.append("\(other) and \(name) wait for the same request \(request)")
      }
    }
    if let renewal = credentialRenewal, renewal > nextRequest {
      violations.append("the credential renewal \(renewal) is after the last request minted, \(nextRequest)")
    }
    return violations
  }

  private func contactViolations() -> [String] {
    var violations: [String] = []
    if contact != nil && identity != nil { violations.append("contact details are held while signed in") }
    if case .sending = contactUpload, contact == nil { violations.append("contact details are sent but none are held") }
    return violations
  }

  private func closedViolations() -> [String] {
    guard isClosed else { return [] }
    var violations: [String] = []
    if !open.isEmpty { violations.append("a closed client has \(open.count) open stores") }
    if connection != .closed { violations.append("a closed client's connection is \(connection)") }
    return violations
  }
}
