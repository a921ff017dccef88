import ConversationState
import Foundation
import Reducers

/// Runs fixtures through their reducer (`ConversationReducer`, `ClientReducer` for a client fixture,
/// `ConversationListReducer` for a list fixture), or records their expectations from it. Every kind goes
/// through the same code, generic over the reducer.
public enum FixtureRunner {
  /// The outcome of one step.
  public struct StepResult: Sendable, Equatable {
    /// The step's position in the fixture, counted from 1.
    public var index: Int
    /// The action's case name, for the report.
    public var actionName: String
    /// Empty when the step passed.
    public var differences: [String]
    /// Whether the step produced exactly the changes and effects the fixture expects.
    public var passed: Bool { differences.isEmpty }
  }

  /// The outcome of one fixture.
  public struct Result: Sendable, Equatable {
    /// The fixture's name.
    public var name: String
    /// The outcome of each step that ran, in order; fewer than the fixture's steps when `error` stopped it.
    public var steps: [StepResult]
    /// A problem that stopped the fixture before or between steps (bad JSON, a bad path).
    public var error: String?
    /// Whether the fixture ran to the end and every step passed.
    public var passed: Bool { error == nil && steps.allSatisfy(\.passed) }
  }

  /// Checks every step of `fixture`.
  public static func check(_ fixture: ConversationFixture) -> Result {
    do {
      switch try kind(of: fixture) {
      case .conversation: return check(fixture, on: .conversation(fixture.settings))
      case .client: return check(fixture, on: .client(fixture.settings))
      case .list: return check(fixture, on: .list(fixture.settings))
      }
    } catch {
      return Result(name: fixture.name, steps: [], error: "\(error)")
    }
  }

  /// `fixture` with every step's `changes` and `effects` replaced by what the reducer does now.
  public static func record(_ fixture: ConversationFixture) throws -> ConversationFixture {
    switch try kind(of: fixture) {
    case .conversation: return try record(fixture, on: .conversation(fixture.settings))
    case .client: return try record(fixture, on: .client(fixture.settings))
    case .list: return try record(fixture, on: .list(fixture.settings))
    }
  }

  /// The reducer `fixture` runs; a client's settings on another kind of fixture are an error, not ignored.
  static func kind(of fixture: ConversationFixture) throws -> ConversationFixture.Kind {
    let kind = fixture.reducer ?? .conversation
    if kind != .client && fixture.settings?.hasClientSettings == true {
      throw FixtureError.badSettings(
        "only a fixture with \"reducer\": \"client\" has maximumIdleConversations or refreshesCredentials")
    }
    return kind
  }

  private static func check<R>(_ fixture: ConversationFixture, on subject: Subject<R>) -> Result {
    var result = Result(name: fixture.name, steps: [])
    do {
      var state = try initialState(of: fixture, on: subject)
      let startViolations = subject.invariantViolations(state)
      if !startViolations.isEmpty {
        result.error = "the initial state breaks invariants: " + startViolations.joined(separator: "; ")
        return result
      }
      for (index, step) in fixture.steps.enumerated() {
        let (before, action) = (state, try decodeAction(step.action, step: index + 1, as: R.Action.self))
        let effects = subject.reducer.reduce(into: &state, action: action)
        let differences =
          try compare(step, before: before, after: state, effects: effects)
          + subject.invariantViolations(state).map { "invariant broken: \($0)" }
          + subject.transitionViolations(state, before).map { "transition rule broken: \($0)" }
        result.steps.append(StepResult(index: index + 1, actionName: caseName(step.action), differences: differences))
      }
    } catch {
      result.error = "\(error)"
    }
    return result
  }

  private static func record<R>(_ fixture: ConversationFixture, on subject: Subject<R>) throws -> ConversationFixture {
    var recorded = fixture
    var state = try initialState(of: fixture, on: subject)
    for index in fixture.steps.indices {
      let before = try FixtureJSON.value(state)
      let effects = subject.reducer.reduce(
        into: &state, action: try decodeAction(fixture.steps[index].action, step: index + 1, as: R.Action.self))
      let after = try FixtureJSON.value(state)
      var changes: [String: JSONValue] = [:]
      for path in Set(changedPaths(before, after).map { collapse($0, before, after) }) {
        changes[path.description] = after[path] ?? .null
      }
      recorded.steps[index].changes = changes
      recorded.steps[index].effects = try effects.map(FixtureJSON.value)
    }
    return recorded
  }

  private static func initialState<R>(of fixture: ConversationFixture, on subject: Subject<R>) throws -> R.State {
    let base = try FixtureJSON.value(subject.fresh)
    do {
      return try FixtureJSON.decode(R.State.self, from: base.overlaying(fixture.initial ?? .object([:])))
    } catch {
      throw FixtureError.badInitialState("\(error)")
    }
  }

  static func decodeAction<Action: Decodable>(_ value: JSONValue, step: Int, as type: Action.Type) throws -> Action {
    do {
      return try FixtureJSON.decode(type, from: value)
    } catch {
      throw FixtureError.badAction(step: step, "\(error)")
    }
  }

  static func caseName(_ action: JSONValue) -> String {
    if case .object(let object) = action, let name = object.keys.first { return name }
    return "?"
  }

  private static func compare<State: Encodable, Effect: Encodable>(
    _ step: ConversationFixture.Step, before: State, after: State, effects: [Effect]
  ) throws -> [String] {
    var differences: [String] = []
    let beforeJSON = try FixtureJSON.value(before)
    let afterJSON = try FixtureJSON.value(after)
    let expected = try (step.changes ?? [:]).map { (try JSONPath(parsing: $0.key), $0.value) }
    for (path, value) in expected.sorted(by: { $0.0 < $1.0 }) {
      let actual = afterJSON[path] ?? .null
      if actual != value { differences.append("\(path): expected \(value.compactText), got \(actual.compactText)") }
    }
    for path in changedPaths(beforeJSON, afterJSON).sorted() where !expected.contains(where: { path.hasPrefix($0.0) }) {
      differences.append(
        "unexpected change at \(path): \((beforeJSON[path] ?? .null).compactText) -> \((afterJSON[path] ?? .null).compactText)"
      )
    }
    let actualEffects = try effects.map { try FixtureJSON.value($0) }
    if let expectedEffects = step.effects, expectedEffects != actualEffects {
      differences.append(
        "effects: expected \(JSONValue.array(expectedEffects).compactText), got \(JSONValue.array(actualEffects).compactText)"
      )
    } else if step.effects == nil && !actualEffects.isEmpty {
      differences.append("effects: expected none, got \(JSONValue.array(actualEffects).compactText)")
    }
    return differences
  }

  /// Leaf paths whose value differs, including leaves that appeared or disappeared. An empty container
  /// that filled up (or emptied) is not listed itself: the leaves under it say what changed.
  static func changedPaths(_ before: JSONValue, _ after: JSONValue) -> [JSONPath] {
    let old = before.leaves()
    let new = after.leaves()
    func isEmptyContainer(_ value: JSONValue?) -> Bool { value == .object([:]) || value == .array([]) }
    return Set(old.keys).union(new.keys).filter { path in
      guard old[path] != new[path] else { return false }
      if isEmptyContainer(old[path]) && new[path] == nil { return !new.keys.contains { $0.hasPrefix(path) } }
      if isEmptyContainer(new[path]) && old[path] == nil { return !old.keys.contains { $0.hasPrefix(path) } }
      return true
    }.sorted()
  }

  /// The path a recorded expectation is written at: a whole row or field that appeared or disappeared, else
  /// the changed field of a message or list row (`messages[c1].delivery`, `conversations[c1].title`) or of
  /// the state (`history.cursor`).
  static func collapse(_ path: JSONPath, _ before: JSONValue, _ after: JSONValue) -> JSONPath {
    let depth = ["messages", "conversations"].contains(path.segments.first) ? 3 : 2
    for length in 1...path.segments.count {
      let prefix = path.prefix(length)
      if before[prefix] == nil || after[prefix] == nil || switchesCase(before[prefix], after[prefix]) { return prefix }
      if length == depth { return prefix }
    }
    return path
  }

  /// Whether two values are different cases of an enum (`{"idle":{}}` and `{"thinking":{}}`), which reads
  /// best as one change of the whole value.
  private static func switchesCase(_ before: JSONValue?, _ after: JSONValue?) -> Bool {
    guard case .object(let old) = before, case .object(let new) = after, old.count == 1, new.count == 1 else {
      return false
    }
    return old.keys.first != new.keys.first
  }
}

/// One kind of fixture: the reducer it runs, the fresh state `initial` is laid over, and the rules every
/// state and step of that kind must keep.
private struct Subject<R: Reducer> where R.State: Codable, R.Action: Decodable, R.Effect: Encodable {
  var reducer: R
  var fresh: R.State
  /// What is wrong with a state, as sentences; empty when it keeps every invariant.
  var invariantViolations: (R.State) -> [String]
  /// What is wrong with the step from the second state to the first, as sentences.
  var transitionViolations: (_ after: R.State, _ before: R.State) -> [String]
}

extension Subject where R == ConversationReducer {
  /// Conversation fixtures: a fresh `ConversationState()`, checked against its invariants and transition
  /// rules, on a reducer with the policy `settings` give.
  static func conversation(_ settings: ConversationFixture.Settings?) -> Self {
    Subject(
      reducer: ConversationReducer(policy: settings?.policy ?? ChatPolicy()), fresh: ConversationState(),
      invariantViolations: { $0.invariantViolations() },
      transitionViolations: { after, before in after.transitionViolations(from: before) })
  }
}

extension Subject where R == ClientReducer {
  /// Client fixtures: a fresh `ClientState()` and a `ClientReducer` with `settings` over its defaults,
  /// checked against the client state's invariants and transition rules after every step.
  static func client(_ settings: ConversationFixture.Settings?) -> Self {
    let defaults = ClientReducer()
    let reducer = ClientReducer(
      policy: settings?.policy ?? defaults.policy,
      maximumIdleConversations: settings?.maximumIdleConversations ?? defaults.maximumIdleConversations,
      refreshesCredentials: settings?.refreshesCredentials ?? defaults.refreshesCredentials)
    return Subject(
      reducer: reducer, fresh: ClientState(), invariantViolations: { $0.invariantViolations() },
      transitionViolations: { after, before in after.transitionViolations(from: before) })
  }
}

extension Subject where R == ConversationListReducer {
  /// List fixtures: a fresh `ConversationListState()` and a `ConversationListReducer` with the policy
  /// `settings` give, checked against the list state's invariants after every step. The list has no
  /// transition rules of its own here: the ones that need a whole session (a deleted conversation never
  /// listed again, no request sent twice) are `ListFuzzer`'s.
  static func list(_ settings: ConversationFixture.Settings?) -> Self {
    Subject(
      reducer: ConversationListReducer(policy: settings?.policy ?? ChatPolicy()), fresh: ConversationListState(),
      invariantViolations: { $0.invariantViolations() }, transitionViolations: { _, _ in [] })
  }
}
