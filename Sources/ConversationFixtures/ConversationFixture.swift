public import ConversationState
public import Foundation

/// A golden fixture: a conversation rule written as data — a starting state, then steps of action in,
/// expected state changes and effects out. See `Tests/Fixtures/README.md` for the format.
public struct ConversationFixture: Codable, Sendable, Equatable {
  /// One action sent to the reducer, with the state changes and effects it must produce.
  public struct Step: Codable, Sendable, Equatable {
    /// The action, as `ConversationAction` encodes it: `{"setDraft": {"_0": "Hi"}}`.
    public var action: JSONValue
    /// Every state path the step changes, with its new value (`null` when it is gone). Exhaustive: a change
    /// at a path no entry covers fails the step.
    public var changes: [String: JSONValue]?
    /// Every effect the step emits, in order, as `ConversationEffect` encodes them.
    public var effects: [JSONValue]?
    /// Why this step matters, for the person reading the fixture.
    public var note: String?

    /// A step sending `action`; nil `changes` or `effects` means the step expects none.
    public init(
      action: JSONValue, changes: [String: JSONValue]? = nil, effects: [JSONValue]? = nil, note: String? = nil
    ) {
      self.action = action
      self.changes = changes
      self.effects = effects
      self.note = note
    }
  }

  /// A short identifier for the fixture, shown in reports.
  public var name: String
  /// The rule of DESIGN.md ("Conversation rules") this fixture pins.
  public var rule: String
  /// What the fixture shows, in a sentence, for the person reading it.
  public var description: String?
  /// Laid over a fresh `ConversationState()`'s JSON to make the starting state (`{"conversationID": "c1"}`).
  public var initial: JSONValue?
  /// The actions to send, in order, each with what it must change and emit.
  public var steps: [Step]

  /// A fixture with the given steps; `initial` nil starts from a fresh `ConversationState()`.
  public init(name: String, rule: String, description: String? = nil, initial: JSONValue? = nil, steps: [Step]) {
    self.name = name
    self.rule = rule
    self.description = description
    self.initial = initial
    self.steps = steps
  }

  /// Reads a fixture from a JSON file. A file that is not a fixture throws `FixtureError.unreadable`; a file
  /// that cannot be read throws Foundation's error.
  public static func load(from url: URL) throws -> ConversationFixture {
    do {
      return try JSONDecoder().decode(ConversationFixture.self, from: Data(contentsOf: url))
    } catch let error as DecodingError {
      throw FixtureError.unreadable(url.lastPathComponent, "\(error)")
    }
  }

  /// Writes the fixture as pretty-printed JSON with sorted keys, replacing the file atomically.
  public func write(to url: URL) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    try (encoder.encode(self) + Data("\n".utf8)).write(to: url, options: .atomic)
  }
}

/// What can go wrong reading or running a fixture, before any step is checked.
public enum FixtureError: Error, Equatable, CustomStringConvertible {
  /// A state path in `changes` that is not well formed.
  case badPath(String)
  /// The file (by name) does not decode as a fixture, and why.
  case unreadable(String, String)
  /// The initial state, laid over a fresh state, does not decode as a `ConversationState`, and why.
  case badInitialState(String)
  /// A step's action (counted from 1) does not decode as a `ConversationAction`, and why.
  case badAction(step: Int, String)

  /// The problem as a sentence for a test report.
  public var description: String {
    switch self {
    case .badPath(let path): return "\"\(path)\" is not a state path (write e.g. messages[c1].delivery)"
    case .unreadable(let file, let reason): return "\(file) is not a fixture: \(reason)"
    case .badInitialState(let reason): return "the initial state does not decode: \(reason)"
    case .badAction(let step, let reason): return "step \(step): the action does not decode: \(reason)"
    }
  }
}

/// JSON as fixtures write it: dates as seconds since 1970, keys sorted.
enum FixtureJSON {
  static func value<T: Encodable>(_ value: T) throws -> JSONValue {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .secondsSince1970
    return try JSONDecoder().decode(JSONValue.self, from: encoder.encode(value))
  }

  static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .secondsSince1970
    return try decoder.decode(type, from: JSONEncoder().encode(value))
  }
}
