public import ConversationState
import Foundation
import Reducers

/// Generates random but plausible sessions of a user's conversation list — pages answered late or twice,
/// realtime events out of order, renames, pins, archives, deletes and undos, timers that fire late, the
/// backend saving, refusing or not answering — runs them through `ConversationListReducer` (or a reducer a
/// test hands in), and checks a property after every step.
///
/// Everything is derived from the seed, so a failure replays exactly; a failing session is shrunk to a short
/// reproduction before it is reported.
///
/// ```swift
/// if let failure = ListFuzzer.run(seed: 42, length: 400) {
///   Issue.record("\(failure)")  // seed, broken rules, and the shrunk action list as JSON
/// }
/// ```
public enum ListFuzzer {
  /// A list reducer, as a function: `ConversationListReducer` by default (`reducer(policy:)`), or a test's
  /// wrapper around it with a planted bug.
  public typealias Reduce = @Sendable (inout ConversationListState, ConversationListAction) -> [ConversationListEffect]

  /// A property that must hold after every step, as broken-rule sentences.
  public typealias Property = @Sendable (Step) -> [String]

  /// What the session did before a step, that a rule about one step needs to know.
  public struct History: Sendable, Equatable {
    /// Conversations seen confirmed deleted (`ConversationListState.deleted`) since the list was last
    /// cleared (`clear`, `identityChanged`).
    public var deletedSinceClear: Set<ConversationID> = []
    /// Every request ID an effect asked to send (fetch, update, delete), over the whole session.
    public var sentRequests: Set<RequestID> = []
    /// The edits a conversation had when the user deleted it, while its deletion waits: what the row may
    /// show when it comes back (undo, or a refused deletion).
    public var editsAtDelete: [ConversationID: [PendingListEdit]] = [:]
    /// The timers started and neither cancelled nor fired yet.
    public var runningTimers: Set<ListTimer> = []

    /// A session that has done nothing yet.
    public init() {}

    /// This history with `step` done.
    public func advanced(by step: Step) -> History {
      var history = self
      switch step.action {
      case .clear, .identityChanged:
        history.deletedSinceClear = []
        history.editsAtDelete = [:]
      case .timerFired(let timer):
        history.runningTimers.remove(timer)
      default: break
      }
      history.deletedSinceClear.formUnion(step.current.deleted)
      if case .delete(let id) = step.action, step.previous.conversations[id] != nil {
        history.editsAtDelete[id] = step.previous.edits.filter { $0.conversationID == id }
      }
      for id in history.editsAtDelete.keys where !step.current.deleting.contains(where: { $0.row.id == id }) {
        history.editsAtDelete[id] = nil
      }
      for effect in step.effects {
        switch effect {
        case .startTimer(let timer, _): history.runningTimers.insert(timer)
        case .cancelTimer(let timer): history.runningTimers.remove(timer)
        default: if let request = effect.sentRequest { history.sentRequests.insert(request) }
        }
      }
      return history
    }
  }

  /// One step of a session: the action, the states around it, what it asked for, and the session before it.
  public struct Step: Sendable {
    /// The state before the action.
    public var previous: ConversationListState
    /// The state after it.
    public var current: ConversationListState
    /// The action.
    public var action: ConversationListAction
    /// The effects the reducer returned for it, in order.
    public var effects: [ConversationListEffect]
    /// What the session did before this step.
    public var earlier: History

    /// The step `action` made from `previous` to `current`, asking for `effects`, after `earlier`.
    public init(
      previous: ConversationListState, current: ConversationListState, action: ConversationListAction,
      effects: [ConversationListEffect], earlier: History
    ) {
      self.previous = previous
      self.current = current
      self.action = action
      self.effects = effects
      self.earlier = earlier
    }

    /// The history once this step is done.
    public var later: History { earlier.advanced(by: self) }
  }

  /// The invariants of `ConversationListState`, and the rules of a step:
  ///
  /// - a conversation confirmed deleted is never listed again until the list is cleared;
  /// - an update or a delete sent is the one the state says is on its way;
  /// - no request ID is sent twice in a session;
  /// - a change the backend refuses is rolled back to what the server has (a refused deletion brings the
  ///   row back), with the error shown;
  /// - a row that comes back from a deletion (undo, refusal) shows no change of the user's that is neither
  ///   confirmed nor still on its way;
  /// - nothing waits forever: each edit and deletion is on its way, or a timer will send it.
  ///
  /// A row showing every change still waiting for it is one of the state's invariants.
  public static let invariants: Property = { step in
    step.current.invariantViolations() + deletedStayGone(step) + sentAreOnTheirWay(step) + sentOnce(step)
      + refusalsRollBack(step) + returnedRowsShowNothingUnsent(step) + nothingWaitsForever(step)
  }

  /// A session that broke the property.
  public struct Failure: Error, CustomStringConvertible {
    /// The seed the session was generated from; the same seed replays it.
    public var seed: UInt64
    /// The shrunk session: replaying it from `initial` breaks the property at its last action.
    public var actions: [ConversationListAction]
    /// The broken rules after the last action, as sentences.
    public var violations: [String]
    /// How long the session was before shrinking.
    public var originalLength: Int

    /// A report to paste into an issue: the seed, the broken rules and the shrunk actions as JSON, one per line
    /// (dates in seconds since 1970, as a list fixture's steps write them).
    public var description: String {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      encoder.dateEncodingStrategy = .secondsSince1970
      let lines = actions.map { action in
        (try? encoder.encode(action)).map { String(decoding: $0, as: UTF8.self) } ?? "\(action)"
      }
      return """
        Seed \(seed) broke the list property after \(actions.count) action(s) (shrunk from \(originalLength)):
          \(violations.joined(separator: "\n  "))
        Reproduce with ListFuzzer.check(actions) on ListFuzzer.initial, or FUZZ_SEED=\(seed). Actions:
        \(lines.joined(separator: "\n"))
        """
    }
  }

  /// Where every session starts: an empty list that has loaded nothing.
  public static var initial: ConversationListState { ConversationListState() }

  /// The IDs sessions use: a small pool, so changes, deletions and late pages meet the same rows.
  public static let conversationIDs: [ConversationID] = (1...12).map { ConversationID("c\($0)") }

  /// `ConversationListReducer` under `policy`, as a `Reduce`.
  public static func reducer(policy: ChatPolicy = ChatPolicy()) -> Reduce {
    let reducer = ConversationListReducer(policy: policy)
    return { state, action in reducer.reduce(into: &state, action: action) }
  }

  /// Generates a session of `length` actions from `seed`, each plausible for the state `reduce` (default:
  /// `ConversationListReducer` under `policy`) has reached.
  public static func generate(
    seed: UInt64, length: Int, policy: ChatPolicy = ChatPolicy(), reduce: Reduce? = nil
  ) -> [ConversationListAction] {
    var session = ListSession(seed: seed, state: initial, reduce: reduce ?? reducer(policy: policy))
    return (0..<length).map { _ in session.next() }
  }

  /// Replays `actions` from `initial` and returns the index of the first action after which `property`
  /// breaks, with what broke.
  public static func check(
    _ actions: [ConversationListAction], from initial: ConversationListState = initial,
    property: Property = invariants, policy: ChatPolicy = ChatPolicy(), reduce: Reduce? = nil
  ) -> (index: Int, violations: [String])? {
    let reduce = reduce ?? reducer(policy: policy)
    var state = initial
    var history = History()
    for (index, action) in actions.enumerated() {
      let previous = state
      let effects = reduce(&state, action)
      let step = Step(previous: previous, current: state, action: action, effects: effects, earlier: history)
      let violations = property(step)
      if !violations.isEmpty { return (index, violations) }
      history = step.later
    }
    return nil
  }

  /// Generates, checks and, on failure, shrinks one session.
  public static func run(
    seed: UInt64, length: Int, property: Property = invariants, policy: ChatPolicy = ChatPolicy(),
    reduce: Reduce? = nil
  ) -> Failure? {
    let reduce = reduce ?? reducer(policy: policy)
    let actions = generate(seed: seed, length: length, reduce: reduce)
    guard let failure = check(actions, property: property, reduce: reduce) else { return nil }
    let shrunk = shrink(Array(actions.prefix(failure.index + 1)), property: property, reduce: reduce)
    let violations = check(shrunk, property: property, reduce: reduce)?.violations ?? failure.violations
    return Failure(seed: seed, actions: shrunk, violations: violations, originalLength: actions.count)
  }

  /// Removes chunks of actions, halving the chunk size down to one, while the session still fails; as
  /// `ConversationFuzzer.shrink` does, each candidate's answers are renumbered to name the requests the same
  /// (kept) actions start in it.
  public static func shrink(
    _ actions: [ConversationListAction], property: Property = invariants, policy: ChatPolicy = ChatPolicy(),
    reduce: Reduce? = nil
  ) -> [ConversationListAction] {
    let reduce = reduce ?? reducer(policy: policy)
    func failingPrefix(_ candidate: [ConversationListAction]) -> [ConversationListAction]? {
      check(candidate, property: property, reduce: reduce).map { Array(candidate.prefix($0.index + 1)) }
    }
    guard var current = failingPrefix(actions) else { return actions }
    var chunk = max(1, current.count / 2)
    while true {
      var progressed = false
      var start = 0
      while start < current.count {
        var kept = Array(current.indices)
        kept.removeSubrange(start..<min(start + chunk, kept.count))
        if let failing = failingPrefix(renumbered(current, keeping: kept, reduce: reduce)) {
          current = failing
          progressed = true
        } else {
          start += chunk
        }
      }
      if chunk == 1 && !progressed { return current }
      if !progressed { chunk = max(1, chunk / 2) }
    }
  }

  /// The actions at `kept`, with every request ID rewritten to the one the same action mints when only the
  /// kept actions run.
  static func renumbered(
    _ actions: [ConversationListAction], keeping kept: [Int], reduce: Reduce
  ) -> [ConversationListAction] {
    func minted(_ before: ConversationListState, _ after: ConversationListState) -> [RequestID] {
      guard after.requestSequence > before.requestSequence else { return [] }
      return ((before.requestSequence + 1)...after.requestSequence).map { RequestID(epoch: after.epoch, sequence: $0) }
    }
    var originalMints: [Int: [RequestID]] = [:]
    var state = initial
    for (index, action) in actions.enumerated() {
      let before = state
      _ = reduce(&state, action)
      originalMints[index] = minted(before, state)
    }
    var mapping: [RequestID: RequestID] = [:]
    var result: [ConversationListAction] = []
    state = initial
    for index in kept {
      let action = actions[index].renaming(mapping)
      let before = state
      _ = reduce(&state, action)
      for (old, new) in zip(originalMints[index] ?? [], minted(before, state)) { mapping[old] = new }
      result.append(action)
    }
    return result
  }

  // MARK: - Rules

  /// A conversation confirmed deleted is never listed (nor deleted again) until the list is cleared.
  static func deletedStayGone(_ step: Step) -> [String] {
    switch step.action {
    case .clear, .identityChanged: return []
    default:
      return step.earlier.deletedSinceClear.sorted().compactMap { id in
        if step.current.conversations[id] != nil { return "the deleted \(id) is listed again" }
        if step.current.deleting.contains(where: { $0.row.id == id }) { return "the deleted \(id) is deleted again" }
        return nil
      }
    }
  }

  /// An update or a delete sent is the one the state holds as on its way.
  static func sentAreOnTheirWay(_ step: Step) -> [String] {
    step.effects.compactMap { effect in
      switch effect {
      case .updateConversation(let request, let id, let change):
        let sending = PendingListEdit.Sending(requestID: request, change: change)
        guard !step.current.edits.contains(where: { $0.conversationID == id && $0.sending == sending }) else {
          return nil
        }
        return "update \(request) of \(id) was sent, but no edit of \(id) says it is on its way"
      case .deleteConversation(let request, let id):
        guard !step.current.deleting.contains(where: { $0.row.id == id && $0.requestID == request }) else {
          return nil
        }
        return "delete \(request) of \(id) was sent, but no deletion of \(id) says it is on its way"
      default: return nil
      }
    }
  }

  /// No request ID goes out twice in a session.
  static func sentOnce(_ step: Step) -> [String] {
    var sent = step.earlier.sentRequests
    return step.effects.compactMap(\.sentRequest).compactMap { request in
      sent.insert(request).inserted ? nil : "request \(request) was sent twice"
    }
  }

  /// A refusal of an edit on its way puts the field back as the server has it; of a deletion, the row.
  static func refusalsRollBack(_ step: Step) -> [String] {
    guard case .editFailed(let request, let error, _) = step.action, !error.retryable,
      error.code != .unsupported
    else { return [] }
    let (previous, current) = (step.previous, step.current)
    if let deletion = previous.deleting.first(where: { $0.requestID == request }) {
      let id = deletion.row.id
      if error.code == .conversationNotFound { return [] }  // gone on the server already: done
      var violations: [String] = []
      if current.conversations[id] == nil { violations.append("the refused deletion of \(id) did not bring it back") }
      if current.isDeleted(id) { violations.append("the refused deletion of \(id) still waits") }
      if current.error != error { violations.append("the refused deletion of \(id) shows no error") }
      return violations
    }
    guard let edit = previous.edits.first(where: { $0.sending?.requestID == request }) else { return [] }
    let (id, field) = (edit.conversationID, edit.field)
    var violations: [String] = []
    if current.edit(of: id, field) != nil { violations.append("the refused edit of \(field) of \(id) still waits") }
    if let row = current.conversations[id], ConversationChange.restoring(field, from: edit.confirmed, in: row) != row {
      violations.append("the refused edit of \(field) of \(id) was not rolled back to what the server has")
    }
    if current.error != error { violations.append("the refused edit of \(field) of \(id) shows no error") }
    return violations
  }

  /// A row back from a deletion (undone, or refused) shows, for each field the user had changed, what the
  /// server confirmed or a change still on its way: never one nobody will send.
  static func returnedRowsShowNothingUnsent(_ step: Step) -> [String] {
    step.earlier.editsAtDelete.sorted { $0.key < $1.key }.flatMap { id, edits -> [String] in
      guard !step.current.deleting.contains(where: { $0.row.id == id }), let row = step.current.conversations[id]
      else { return [] }
      return edits.compactMap { edit in
        guard step.current.edit(of: id, edit.field) == nil,
          ConversationChange.restoring(edit.field, from: edit.confirmed, in: row) != row
        else { return nil }
        return "\(id) came back from its deletion showing a change of \(edit.field) that is neither confirmed nor sent"
      }
    }
  }

  /// Each edit and deletion is on its way, or has a timer running that will send it.
  static func nothingWaitsForever(_ step: Step) -> [String] {
    let timers = step.later.runningTimers
    var violations: [String] = []
    for edit in step.current.edits where edit.sending == nil {
      if !timers.contains(.retryEdit(edit.conversationID, edit.field)) {
        violations.append("the edit of \(edit.field) of \(edit.conversationID) waits with no request and no timer")
      }
    }
    for deletion in step.current.deleting where deletion.requestID == nil {
      let timer: ListTimer = deletion.isCommitted ? .retryDelete(deletion.row.id) : .undoWindow(deletion.row.id)
      if !timers.contains(timer) {
        violations.append("the deletion of \(deletion.row.id) waits with no request and no timer")
      }
    }
    return violations
  }
}

extension ConversationListEffect {
  /// The request this effect sends, if it sends one.
  var sentRequest: RequestID? {
    switch self {
    case .fetchConversations(let request, _, _), .updateConversation(let request, _, _),
      .deleteConversation(let request, _):
      return request
    case .cancel, .startTimer, .cancelTimer, .forgetConversation: return nil
    }
  }
}

extension ConversationListAction {
  /// This action with the request IDs of `mapping` replaced.
  fileprivate func renaming(_ mapping: [RequestID: RequestID]) -> ConversationListAction {
    switch self {
    case .pageLoaded(let request, let page): return .pageLoaded(mapping[request] ?? request, page)
    case .requestFailed(let request, let error): return .requestFailed(mapping[request] ?? request, error)
    case .editSaved(let request): return .editSaved(mapping[request] ?? request)
    case .editFailed(let request, let error, let jitter):
      return .editFailed(mapping[request] ?? request, error, jitter: jitter)
    default: return self
    }
  }
}

/// The generator behind `ListFuzzer`: it keeps its own copy of the state, so each action it makes is
/// plausible for the moment (answers to requests really in flight, timers really running, changes of rows
/// really listed), and then mixes in what real networks and clocks do: duplicates, stale answers, late
/// pages that still list deleted rows, events out of order, bad input.
private struct ListSession {
  private var random: SplitMix64
  private var state: ConversationListState
  private let reduce: ListFuzzer.Reduce
  private var now = Date(timeIntervalSince1970: 1_750_000_000)
  private var counter = 0
  /// Every fetch sent, to answer again late.
  private var fetches: [RequestID] = []
  /// Every update and delete sent, to answer again late.
  private var edits: [RequestID] = []
  /// Timers running, in the order started (an array, so the session replays exactly).
  private var timers: [ListTimer] = []
  /// Server message IDs told already, to tell again.
  private var messageIDs: [ServerMessageID] = []

  init(seed: UInt64, state: ConversationListState, reduce: @escaping ListFuzzer.Reduce) {
    random = SplitMix64(seed: seed)
    self.state = state
    self.reduce = reduce
  }

  mutating func next() -> ConversationListAction {
    now = now.addingTimeInterval(Double(int(0..<5)) + 0.5)
    let action = choose()
    if case .timerFired(let timer) = action { timers.removeAll { $0 == timer } }
    for effect in reduce(&state, action) {
      switch effect {
      case .fetchConversations(let request, _, _): fetches.append(request)
      case .updateConversation(let request, _, _), .deleteConversation(let request, _): edits.append(request)
      case .startTimer(let timer, _):
        timers.removeAll { $0 == timer }
        timers.append(timer)
      case .cancelTimer(let timer): timers.removeAll { $0 == timer }
      case .cancel, .forgetConversation: break
      }
    }
    return action
  }

  private mutating func choose() -> ConversationListAction {
    switch int(0..<100) {
    case 0..<7: return load()
    case 7..<19: return answerFetch()
    case 19..<35: return .realtime(event())
    case 35..<52: return userChange()
    case 52..<56: return .delete(someID(listed: 85))
    case 56..<62:
      let deleting = state.deleting.map(\.row.id)
      return .undoDelete(chance(75) ? pick(deleting) ?? someID(listed: 0) : someID(listed: 30))
    case 62..<71: return fireTimer()
    case 71..<89: return answerEdit()
    case 89..<91: return .showArchived(chance(50))
    case 91..<93:
      return .titleGenerated(someID(listed: 80), pick(["  Refund \(counter) \n more", "   ", "Generated \(counter)"])!)
    case 93..<96: return .markRead(someID(listed: 80))
    case 96: return .resumeEdits
    case 97: return .clearError
    case 98: return .refresh
    default:
      guard chance(40) else { return load() }
      return chance(50) ? .clear : .identityChanged
    }
  }

  // MARK: - Helpers

  private mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }
  private mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }
  private mutating func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[int(0..<items.count)] }
  private mutating func fresh(_ prefix: String) -> String {
    counter += 1
    return "\(prefix)\(counter)"
  }

  /// A listed conversation `listed` percent of the time (when any is), else any ID of the pool: one not
  /// loaded, being deleted, or deleted.
  private mutating func someID(listed: Int) -> ConversationID {
    let rows = state.conversations.map(\.id)
    if chance(listed), let id = pick(rows) { return id }
    return pick(ListFuzzer.conversationIDs)!
  }

  /// An ID being deleted or deleted, now and then, else any of the pool.
  private mutating func anyID() -> ConversationID {
    let gone = state.deleting.map(\.row.id) + state.deleted.sorted()
    if chance(20), let id = pick(gone) { return id }
    return pick(ListFuzzer.conversationIDs)!
  }

  private mutating func jitter() -> Double { Double(int(0..<101)) / 100 }

  // MARK: - Loading

  private mutating func load() -> ConversationListAction {
    switch int(0..<4) {
    case 0: return .load(pageSize: pick([20, 20, 5, 0, 101])!)
    case 1: return .refresh
    default: return .loadMore(pageSize: pick([20, 5, 3])!)
    }
  }

  private mutating func answerFetch() -> ConversationListAction {
    let request: RequestID
    if let loading = state.loading, chance(80) {
      request = loading.requestID
    } else if chance(50), let stale = pick(fetches) {
      request = stale
    } else {
      return load()
    }
    if chance(12) { return .requestFailed(request, pick([ChatError(.network, "offline"), .init(.timeout, "slow")])!) }
    return .pageLoaded(request, page())
  }

  /// A page as the server sends it: a few rows of the pool, most recent first, now and then listing one
  /// being deleted or deleted (a page made before the deletion landed).
  private mutating func page() -> ConversationPage {
    var ids: [ConversationID] = []
    for _ in 0..<int(1..<10) {
      let id = anyID()
      if !ids.contains(id) { ids.append(id) }
    }
    var time = now.addingTimeInterval(-Double(int(0..<20)))
    let rows = ids.map { id in
      time = time.addingTimeInterval(-Double(int(1..<30)))
      return summary(id, at: time)
    }
    let hasMore = chance(60)
    return ConversationPage(
      conversations: rows, nextCursor: hasMore ? PageCursor(fresh("p")) : nil, hasMore: hasMore,
      totalCount: chance(50) ? rows.count + int(0..<10) : nil)
  }

  private mutating func summary(_ id: ConversationID, at time: Date) -> ConversationSummary {
    let title: String? =
      switch int(0..<20) {
      case 0, 1: nil
      case 2: ""
      default: "Server title \(fresh(""))"
      }
    return ConversationSummary(
      id: id, title: title, status: pick(ConversationStatus.allCases)!, lastActivityAt: time,
      unreadCount: int(0..<3), lastMessagePreview: chance(70) ? "preview \(counter)" : nil,
      pinnedAt: chance(15) ? time.addingTimeInterval(-Double(int(0..<100))) : nil, isArchived: chance(10))
  }

  // MARK: - Realtime

  private mutating func event() -> ConversationListEvent {
    switch int(0..<16) {
    case 0..<3:
      return .conversationCreated(summary(anyID(), at: now))
    case 3..<8:
      let id = chance(75) ? someID(listed: 100) : anyID()
      let at = chance(25) ? now.addingTimeInterval(-Double(int(1..<200))) : now
      var messageID: ServerMessageID? = nil
      if chance(60) {
        messageID = chance(20) ? pick(messageIDs) : nil
        if messageID == nil {
          messageID = ServerMessageID(fresh("m"))
          messageIDs.append(messageID!)
        }
      }
      let role = pick([Role.user, .assistant, .assistant, .humanAgent])!
      return .messageCreated(id, preview: "message \(fresh(""))", role: role, at: at, messageID: messageID)
    case 8: return .statusChanged(someID(listed: 80), pick(ConversationStatus.allCases)!)
    case 9: return .titleChanged(someID(listed: 80), "Renamed on the server \(fresh(""))")
    case 10: return .conversationDeleted(chance(70) ? someID(listed: 90) : anyID())
    default: return .conversationChanged(someID(listed: 85), change(valid: true))
    }
  }

  // MARK: - User

  private mutating func change(valid: Bool) -> ConversationChange {
    switch int(0..<4) {
    case 0:
      let titles =
        valid
        ? ["Trip \(counter)", "Same"]
        : ["Trip \(counter)", "  Padded \(counter)  ", "Same", "   ", String(repeating: "x", count: 201)]
      return .title(pick(titles)!)
    case 1: return .pinned(chance(60), at: now.addingTimeInterval(-Double(int(0..<3))))
    case 2: return .archived(chance(55))
    default: return .markedUnread(chance(55))
    }
  }

  private mutating func userChange() -> ConversationListAction {
    let id = someID(listed: 85)
    return .change(id, change(valid: false))
  }

  // MARK: - Timers and answers

  private mutating func fireTimer() -> ConversationListAction {
    if chance(80), let timer = pick(timers) { return .timerFired(timer) }
    let id = anyID()
    switch int(0..<3) {
    case 0: return .timerFired(.undoWindow(id))
    case 1: return .timerFired(.retryDelete(id))
    default:
      let fields: [ConversationChange.Field] = [.title, .pinned, .archived, .markedUnread]
      return .timerFired(.retryEdit(id, pick(fields)!))
    }
  }

  private mutating func answerEdit() -> ConversationListAction {
    let inFlight = (state.edits.compactMap(\.sending?.requestID) + state.deleting.compactMap(\.requestID))
      .sorted { $0.sequence < $1.sequence }
    let request: RequestID
    if chance(85), let live = pick(inFlight) {
      request = live
    } else if let stale = pick(edits) {
      request = stale
    } else {
      return userChange()
    }
    if chance(50) { return .editSaved(request) }
    let errors: [ChatError] = [
      ChatError(.network, "offline"), ChatError(.network, "offline"),
      ChatError(.rateLimited, "slow down", status: 429, retryAfter: 2),
      ChatError(.unsupported, "this backend keeps no list"), ChatError(.conversationNotFound, "gone", status: 404),
      ChatError(.invalidTitle, "not that one", status: 422), ChatError(.unauthorized, "not yours", status: 403),
    ]
    return .editFailed(request, pick(errors)!, jitter: jitter())
  }
}
