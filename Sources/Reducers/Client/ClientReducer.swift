public import ConversationState
import Foundation

/// The rules of a `ChatClient`, as a pure function: which stores are open, who is signed in, the shared
/// connection's state machine and the outbox uploader's.
///
/// ```swift
/// var state = ClientState()
/// let effects = ClientReducer().reduce(into: &state, action: .start)
/// // effects == [.openScope(userID: nil), .cancelTimer(.reconnect), .connectRealtime(r0.1), .prepareBatch(r0.2)]
/// ```
public struct ClientReducer: Reducer {
  /// The default outbox backoff; a client's is `policy.outboxBackoff`.
  @available(*, deprecated, message: "Set ChatPolicy.outboxBackoff; the client reads it from its policy.")
  public static var outboxBackoff: Backoff { ChatPolicy().outboxBackoff }

  /// The backoff of the shared connection (`reconnectBackoff`), of the outbox's uploads (`outboxBackoff`),
  /// and how long a connection must stay open to count as healthy (`healthyConnectionAfter`).
  public let policy: ChatPolicy
  /// How many stores stay open when nobody outside the client holds them.
  public let maximumIdleConversations: Int
  /// Whether the runtime has a credential provider to ask after an authorization failure.
  public let refreshesCredentials: Bool
  /// Seconds between idle checks while more than `maximumIdleConversations` stores are open (default 5),
  /// clamped into `idleCheckIntervals`.
  public let idleCheckInterval: Double
  /// The idle check intervals a client takes; one outside is clamped into it, and one that is not finite
  /// counts as the default.
  public static let idleCheckIntervals: ClosedRange<Double> = 0.01...3_600

  public init(
    policy: ChatPolicy = ChatPolicy(), maximumIdleConversations: Int = 8, refreshesCredentials: Bool = false,
    idleCheckInterval: Double = 5
  ) {
    self.policy = policy
    self.maximumIdleConversations = max(0, maximumIdleConversations)
    self.refreshesCredentials = refreshesCredentials
    let range = Self.idleCheckIntervals
    self.idleCheckInterval =
      idleCheckInterval.isFinite ? min(max(idleCheckInterval, range.lowerBound), range.upperBound) : 5
  }

  /// Applies `action` to `state` and returns the effects to perform, in order. Results of requests that
  /// are no longer wanted (an older epoch, a replaced connection) change nothing; after `.close` nothing
  /// does.
  public func reduce(into state: inout ClientState, action: ClientAction) -> [ClientEffect] {
    if state.isClosed { return [] }
    switch action {
    case .start:
      return [.openScope(userID: state.identity?.userID)] + connect(&state) + prepareBatch(&state)
    case .open(let id, let adopting, let unheld):
      return open(id, adopting: adopting, unheld: unheld, &state)
    case .releaseIdle(let unheld):
      return evictIdle(unheld, &state)
    case .startNewConversation:
      if state.newConversation != nil { return [] }
      let handle = state.makeHandle()
      state.newConversation = handle
      state.open[handle] = .some(nil)
      touch(handle, &state)
      return [.openConversation(handle, nil)]
    case .conversationCreated(let handle, let id):
      return adopt(handle, as: id, &state)
    case .identify(let identity, let keeping):
      return identify(identity, keeping: keeping, &state)
    case .signOut:
      return switchPerson(to: nil, &state)
    case .resetSession:
      return resetSession(&state)
    case .forgetConversation(let id):
      return forget(id, &state)
    case .credentialsRefreshed:
      return credentialsRefreshed(&state)
    case .setContactDetails(let details):
      return setContactDetails(details, &state)
    case .contactDetailsSent(let request):
      return contactDetailsSent(request, &state)
    case .contactDetailsFailed(let request, let error, let at, let jitter):
      return contactDetailsFailed(request, error, at: at, jitter: jitter, &state)
    case .close:
      state.isClosed = true
      let handles = state.openHandles
      state.open = [:]
      state.conversations = [:]
      state.newConversation = nil
      state.lastUse = [:]
      connectionClosed(&state)
      return forgetContactUpload(&state) + [.shutDown(handles)]
    case .connectionOpened(let request):
      return connectionOpened(request, &state)
    case .connectionDelivered(let request):
      if request == state.connectionRequest { connectionProvenHealthy(&state) }
      return []
    case .connectionLost(let request, let error, let at, let jitter):
      return connectionLost(request, error, at: at, jitter: jitter, &state)
    case .frameRejected(let request, let error):
      if request == state.connectionRequest { state.backgroundError = error }
      return []
    case .credentialsAnswered(let request, let error):
      guard request == state.credentialRefresh else { return [] }
      state.credentialRefresh = nil
      guard let error else { return credentialsRefreshed(&state) }
      state.backgroundError = error
      // Still refused (something opened or uploaded meanwhile would have cleared it): the host must act.
      return state.needsCredentials ? holdStores(error, state) : []
    case .outboxChanged:
      return outboxChanged(&state)
    case .outboxCounted(let count):
      state.outboxCount = count
      return []
    case .batchPrepared(let request, let batch):
      return batchPrepared(request, batch, &state)
    case .batchUploaded(let request, let receipt):
      return batchUploaded(request, receipt, &state)
    case .batchFailed(let request, let error, let at, let jitter):
      return batchFailed(request, error, at: at, jitter: jitter, &state)
    case .batchOutOfSync(let request, let sequencing, let at, let jitter):
      return batchOutOfSync(request, sequencing, at: at, jitter: jitter, &state)
    case .timerFired(let timer):
      return timerFired(timer, &state)
    }
  }

  func touch(_ handle: ConversationHandle, _ state: inout ClientState) {
    state.uses += 1
    state.lastUse[handle] = state.uses
  }

  /// The time as given by the runtime, made safe for the state: a non-finite one (only a host could inject
  /// it) would make the state unequal to itself.
  func finite(_ date: Date) -> Date {
    date.timeIntervalSinceReferenceDate.isFinite ? date : Date(timeIntervalSinceReferenceDate: 0)
  }
}
