public import ConversationState
import ConversationStore
import Foundation

/// Generates random but plausible chat sessions — duplicates, reordering, late responses, reconnects,
/// sign-outs, paging — runs them through `ConversationReducer`, and checks a property after every step.
///
/// Everything is derived from the seed, so a failure replays exactly; a failing session is shrunk to a short
/// reproduction before it is reported.
///
/// ```swift
/// if let failure = ConversationFuzzer.run(seed: 42, length: 200) {
///   Issue.record("\(failure)")  // seed, step, broken invariants, and the shrunk action list as JSON
/// }
/// ```
public enum ConversationFuzzer {
  /// A property that must hold after every step, as broken-rule sentences; `(previous, current)`.
  public typealias Property = @Sendable (ConversationState, ConversationState) -> [String]

  /// The invariants and transition rules of `ConversationState`.
  public static let invariants: Property = { previous, current in
    current.invariantViolations() + current.transitionViolations(from: previous)
  }

  /// A session that broke the property.
  public struct Failure: Error, CustomStringConvertible {
    /// The seed the session was generated from; the same seed replays it.
    public var seed: UInt64
    /// The shrunk session: replaying it from `initial` breaks the property at its last action.
    public var actions: [ConversationAction]
    /// The broken rules after the last action, as sentences.
    public var violations: [String]
    /// How long the session was before shrinking.
    public var originalLength: Int

    /// A report to paste into an issue: the seed, the broken rules and the shrunk actions as JSON, one per line.
    public var description: String {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      let lines = actions.map { action in
        (try? encoder.encode(action)).map { String(decoding: $0, as: UTF8.self) } ?? "\(action)"
      }
      return """
        Seed \(seed) broke the property after \(actions.count) action(s) (shrunk from \(originalLength)):
          \(violations.joined(separator: "\n  "))
        Reproduce with ConversationFuzzer.check(actions) on ConversationFuzzer.initial, or FUZZ_SEED=\(seed). Actions:
        \(lines.joined(separator: "\n"))
        """
    }
  }

  /// Where every session starts: an existing, empty conversation.
  public static var initial: ConversationState { ConversationState(conversationID: "conv-1") }

  /// Generates a session of `length` actions from `seed`.
  public static func generate(seed: UInt64, length: Int, policy: ChatPolicy = ChatPolicy()) -> [ConversationAction] {
    var session = FuzzSession(seed: seed, state: initial, policy: policy)
    return (0..<length).map { _ in session.next() }
  }

  /// Replays `actions` from `initial` and returns the index of the first action after which `property`
  /// breaks, with what broke.
  public static func check(
    _ actions: [ConversationAction], from initial: ConversationState = initial, property: Property = invariants,
    policy: ChatPolicy = ChatPolicy()
  ) -> (index: Int, violations: [String])? {
    let reducer = ConversationReducer(policy: policy)
    var state = initial
    for (index, action) in actions.enumerated() {
      let previous = state
      _ = reducer.reduce(into: &state, action: action)
      let violations = property(previous, state)
      if !violations.isEmpty { return (index, violations) }
    }
    return nil
  }

  /// Generates, checks and, on failure, shrinks one session.
  public static func run(
    seed: UInt64, length: Int, property: Property = invariants, policy: ChatPolicy = ChatPolicy()
  ) -> Failure? {
    let actions = generate(seed: seed, length: length, policy: policy)
    guard let failure = check(actions, property: property, policy: policy) else { return nil }
    let shrunk = shrink(Array(actions.prefix(failure.index + 1)), property: property, policy: policy)
    let violations = check(shrunk, property: property, policy: policy)?.violations ?? failure.violations
    return Failure(seed: seed, actions: shrunk, violations: violations, originalLength: actions.count)
  }

  /// Removes chunks of actions, halving the chunk size down to one, while the session still fails.
  ///
  /// Request IDs are minted from a counter, so removing an action that started a request would leave every
  /// later answer naming a request that no longer exists. Each candidate is therefore replayed with its
  /// request IDs renumbered: an answer names the request that the same (kept) action started in the
  /// candidate.
  public static func shrink(
    _ actions: [ConversationAction], property: Property = invariants, policy: ChatPolicy = ChatPolicy()
  ) -> [ConversationAction] {
    func failingPrefix(_ candidate: [ConversationAction]) -> [ConversationAction]? {
      check(candidate, property: property, policy: policy).map { Array(candidate.prefix($0.index + 1)) }
    }
    guard var current = failingPrefix(actions) else { return actions }
    var chunk = max(1, current.count / 2)
    while true {
      var progressed = false
      var start = 0
      while start < current.count {
        var kept = Array(current.indices)
        kept.removeSubrange(start..<min(start + chunk, kept.count))
        if let failing = failingPrefix(renumbered(current, keeping: kept, policy: policy)) {
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
    _ actions: [ConversationAction], keeping kept: [Int], policy: ChatPolicy = ChatPolicy()
  ) -> [ConversationAction] {
    let reducer = ConversationReducer(policy: policy)
    func minted(_ before: ConversationState, _ after: ConversationState) -> [RequestID] {
      guard after.requestSequence > before.requestSequence else { return [] }
      return ((before.requestSequence + 1)...after.requestSequence).map { RequestID(epoch: after.epoch, sequence: $0) }
    }
    var originalMints: [Int: [RequestID]] = [:]
    var state = initial
    for (index, action) in actions.enumerated() {
      let before = state
      _ = reducer.reduce(into: &state, action: action)
      originalMints[index] = minted(before, state)
    }
    var mapping: [String: String] = [:]
    var result: [ConversationAction] = []
    state = initial
    for index in kept {
      let action = rewrite(actions[index], mapping)
      let before = state
      _ = reducer.reduce(into: &state, action: action)
      for (old, new) in zip(originalMints[index] ?? [], minted(before, state)) {
        mapping[old.description] = new.description
      }
      result.append(action)
    }
    return result
  }

  /// `action` with the request IDs of `mapping` replaced, through its Codable form.
  private static func rewrite(_ action: ConversationAction, _ mapping: [String: String]) -> ConversationAction {
    guard !mapping.isEmpty, let data = try? JSONEncoder().encode(action),
      let json = try? JSONDecoder().decode(JSONValue.self, from: data)
    else { return action }
    func replace(_ value: JSONValue) -> JSONValue {
      switch value {
      case .string(let text): return .string(mapping[text] ?? text)
      case .array(let values): return .array(values.map(replace))
      case .object(let fields): return .object(fields.mapValues(replace))
      case .null, .bool, .number: return value
      }
    }
    guard let encoded = try? JSONEncoder().encode(replace(json)),
      let rewritten = try? JSONDecoder().decode(ConversationAction.self, from: encoded)
    else { return action }
    return rewritten
  }
}
