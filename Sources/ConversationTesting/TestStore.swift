public import ConversationStore
import Foundation
public import Testing

/// How much of each step a `TestStore` checks.
public enum Exhaustivity: Sendable, Equatable {
  /// Every change to the state and every effect must be asserted; effects left in flight fail `finish()`.
  case on
  /// Only what a step asserts is checked: the changes its closure makes, and effects when they are given.
  case off
}

/// Drives a reducer synchronously, one action at a time, and checks each step exhaustively.
///
/// There are no sleeps, timeouts or executors: `send` applies the action at once. Feeding an effect's result
/// back is an explicit step (`send(.historyLoaded(request, page))`). Invariants run after every step.
///
/// ```swift
/// let store = TestStore(ConversationState(conversationID: "c1"))
/// store.send(.setDraft("Hi")) { $0.draft = "Hi" }
/// let request = store.nextRequestID
/// store.send(.loadHistory(pageSize: 20), effects: [.fetchHistory(request, "c1", cursor: nil, limit: 20)]) {
///   $0.history.loadingRequest = request
///   $0.requests[request] = .history
///   $0.requestSequence = 1
/// }
/// store.send(.historyLoaded(request, HistoryPage(messages: [], nextCursor: nil, hasMore: false))) {
///   $0.history = HistoryPaging(cursor: nil, hasMoreHistory: false, loadingRequest: nil, hasLoadedFirstPage: true)
///   $0.requests = [:]
/// }
/// store.finish()
/// ```
public final class TestStore<R: Reducer> where R.State: Equatable, R.Effect: Equatable {
  /// Whether an effect still waits for something (a result, a timer) given the state and what happened since.
  public typealias Outstanding = (_ effect: R.Effect, _ state: R.State, _ since: [Step]) -> Bool
  /// Broken invariants after a step, as sentences; `(previous, current)`.
  public typealias Invariants = (_ previous: R.State, _ current: R.State) -> [String]

  /// One applied action and the effects it returned.
  public struct Step {
    /// The action that was sent.
    public let action: R.Action
    /// The effects the reducer returned for it, in order.
    public let effects: [R.Effect]
  }

  /// The state after the last step.
  public private(set) var state: R.State
  /// How much each following step checks; can be changed between steps.
  public var exhaustivity: Exhaustivity
  /// Every step so far, oldest first.
  public private(set) var steps: [Step] = []
  private let reducer: R
  private let outstanding: Outstanding
  private let invariants: Invariants
  private let createdAt: SourceLocation
  private var finished = false

  /// A store at `initialState`. `outstanding` says which effects `finish()` reports as left unhandled, and
  /// `invariants` run after every step. A `finish()` left to deinit reports at `sourceLocation`.
  public init(
    initialState: R.State, reducer: R, exhaustivity: Exhaustivity = .on,
    outstanding: @escaping Outstanding = { _, _, _ in false },
    invariants: @escaping Invariants = { _, _ in [] },
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    state = initialState
    self.reducer = reducer
    self.exhaustivity = exhaustivity
    self.outstanding = outstanding
    self.invariants = invariants
    createdAt = sourceLocation
  }

  deinit {
    if !finished { finish(sourceLocation: createdAt) }
  }

  /// Sets up the given state of a story without going through the reducer ("given the connection is up").
  public func arrange(_ change: (inout R.State) -> Void) { change(&state) }

  /// Applies `action`, then checks the new state against the previous one changed by `update`, and the
  /// emitted effects against `effects`. Returns the emitted effects.
  ///
  /// With `exhaustivity == .on`, `effects` must list every effect (omit it only when there are none) and
  /// `update` must make every change. With `.off`, only what is given is checked.
  @discardableResult
  public func send(
    _ action: R.Action, effects expected: [R.Effect]? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ update: ((inout R.State) -> Void)? = nil
  ) -> [R.Effect] {
    let previous = state
    let effects = reducer.reduce(into: &state, action: action)
    steps.append(Step(action: action, effects: effects))
    checkState(after: action, previous: previous, update, sourceLocation)
    checkEffects(of: action, effects, expected, sourceLocation)
    let broken = invariants(previous, state)
    if !broken.isEmpty {
      fail(
        "Invariants broken after send(\(brief(action))):\n  " + broken.joined(separator: "\n  ")
          + "\nThe reducer produced an impossible state; the bug is in the reducer, not the test.",
        at: sourceLocation)
    }
    return effects
  }

  /// Fails for every effect still waiting for its result (exhaustive stores only). Runs on deinit too.
  public func finish(sourceLocation: SourceLocation = #_sourceLocation) {
    finished = true
    guard exhaustivity == .on else { return }
    var waiting: [String] = []
    for (index, step) in steps.enumerated() {
      let since = Array(steps[(index + 1)...])
      for effect in step.effects where outstanding(effect, state, since) {
        waiting.append("\(effect)  (from send(\(brief(step.action))))")
      }
    }
    guard !waiting.isEmpty else { return }
    fail(
      "\(waiting.count) effect(s) were left unhandled:\n  " + waiting.joined(separator: "\n  ")
        + "\nFeed each one's result back with send(...) (a success or .requestFailed), cancel it, "
        + "or set exhaustivity = .off if this test does not care.",
      at: sourceLocation)
  }

  private func checkState(
    after action: R.Action, previous: R.State, _ update: ((inout R.State) -> Void)?, _ location: SourceLocation
  ) {
    switch exhaustivity {
    case .on:
      var expected = previous
      update?(&expected)
      guard expected != state else { return }
      let lines = StateDiff.lines(expected: expected, actual: state)
      fail(
        "State after send(\(brief(action))) differs from what the test expects (expected -> actual):\n  "
          + lines.joined(separator: "\n  ")
          + "\nFix: make these changes in the closure passed to send(...), or, if the reducer is wrong, fix the "
          + "reducer.",
        at: location)
    case .off:
      guard let update else { return }
      var expected = state
      update(&expected)
      guard expected != state else { return }
      let lines = StateDiff.lines(expected: expected, actual: state)
      fail(
        "State after send(\(brief(action))) does not have what the test asserts (expected -> actual):\n  "
          + lines.joined(separator: "\n  "),
        at: location)
    }
  }

  private func checkEffects(
    of action: R.Action, _ actual: [R.Effect], _ expected: [R.Effect]?, _ location: SourceLocation
  ) {
    if let expected {
      guard expected != actual else { return }
      fail(
        "Effects of send(\(brief(action))) differ.\n  expected: \(expected)\n  actual:   \(actual)\n"
          + "Fix: pass the actual list as effects: [...] if it is right, or fix the reducer.",
        at: location)
    } else if exhaustivity == .on && !actual.isEmpty {
      fail(
        "send(\(brief(action))) emitted \(actual.count) effect(s) the test did not assert:\n  "
          + actual.map { "\($0)" }.joined(separator: "\n  ")
          + "\nFix: pass them as send(..., effects: [...]), or set exhaustivity = .off.",
        at: location)
    }
  }
}

/// Records a test failure whose text is built at run time.
func fail(_ message: String, at location: SourceLocation) {
  Issue.record(Comment(rawValue: message), sourceLocation: location)
}

/// A value's description cut to one readable line.
func brief(_ value: Any, limit: Int = 100) -> String {
  let text = String(describing: value).replacingOccurrences(of: "ConversationState.", with: "")
  return text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
}
