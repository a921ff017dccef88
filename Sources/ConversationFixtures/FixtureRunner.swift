import ConversationState
import Foundation
import Reducers

/// Runs fixtures through `ConversationReducer`, or records their expectations from it.
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
    var result = Result(name: fixture.name, steps: [])
    do {
      var state = try initialState(of: fixture)
      let startViolations = state.invariantViolations()
      if !startViolations.isEmpty {
        result.error = "the initial state breaks invariants: " + startViolations.joined(separator: "; ")
        return result
      }
      for (index, step) in fixture.steps.enumerated() {
        let (before, action) = (state, try decodeAction(step.action, step: index + 1))
        let effects = ConversationReducer().reduce(into: &state, action: action)
        let differences =
          try compare(step, before: before, after: state, effects: effects)
          + state.invariantViolations().map { "invariant broken: \($0)" }
          + state.transitionViolations(from: before).map { "transition rule broken: \($0)" }
        result.steps.append(StepResult(index: index + 1, actionName: caseName(step.action), differences: differences))
      }
    } catch {
      result.error = "\(error)"
    }
    return result
  }

  /// `fixture` with every step's `changes` and `effects` replaced by what the reducer does now.
  public static func record(_ fixture: ConversationFixture) throws -> ConversationFixture {
    var recorded = fixture
    var state = try initialState(of: fixture)
    for index in fixture.steps.indices {
      let before = try FixtureJSON.value(state)
      let effects = ConversationReducer().reduce(
        into: &state, action: try decodeAction(fixture.steps[index].action, step: index + 1))
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

  static func initialState(of fixture: ConversationFixture) throws -> ConversationState {
    let base = try FixtureJSON.value(ConversationState())
    do {
      return try FixtureJSON.decode(ConversationState.self, from: base.overlaying(fixture.initial ?? .object([:])))
    } catch {
      throw FixtureError.badInitialState("\(error)")
    }
  }

  static func decodeAction(_ value: JSONValue, step: Int) throws -> ConversationAction {
    do {
      return try FixtureJSON.decode(ConversationAction.self, from: value)
    } catch {
      throw FixtureError.badAction(step: step, "\(error)")
    }
  }

  static func caseName(_ action: JSONValue) -> String {
    if case .object(let object) = action, let name = object.keys.first { return name }
    return "?"
  }

  private static func compare(
    _ step: ConversationFixture.Step, before: ConversationState, after: ConversationState,
    effects: [ConversationEffect]
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
    let actualEffects = try effects.map(FixtureJSON.value)
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
  /// the changed field of a message row (`messages[c1].delivery`) or of the state (`history.cursor`).
  static func collapse(_ path: JSONPath, _ before: JSONValue, _ after: JSONValue) -> JSONPath {
    let depth = path.segments.first == "messages" ? 3 : 2
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
