public import ConversationState
public import Foundation

/// A golden fixture: a rule written as data — a starting state, then steps of action in, expected state
/// changes and effects out. It runs `ConversationReducer`, or `ClientReducer` when `reducer` says `client`,
/// or `ConversationListReducer` when it says `list`. See `Tests/Fixtures/README.md` for the format.
public struct ConversationFixture: Codable, Sendable, Equatable {
  /// Which reducer a fixture runs, and so which state, action and effect types its JSON is.
  public enum Kind: String, Codable, Sendable, Equatable {
    /// `ConversationReducer`: `ConversationState`, `ConversationAction`, `ConversationEffect`.
    case conversation
    /// `ClientReducer`: `ClientState`, `ClientAction`, `ClientEffect`.
    case client
    /// `ConversationListReducer`: `ConversationListState`, `ConversationListAction`, `ConversationListEffect`.
    case list
  }

  /// How a fixture's reducer is made; each setting left out keeps its default. The policy settings
  /// (`pollInterval`, `connectionMode`, `whileAnswering`, `deleteUndoWindow`, `archivedOnNewMessage`) fit
  /// every reducer; the others only `ClientReducer`. A key that is not one of these fails the fixture, so a
  /// misspelt setting cannot pass for a default.
  public struct Settings: Codable, Sendable, Equatable {
    /// `ClientReducer.maximumIdleConversations` (default 8).
    public var maximumIdleConversations: Int?
    /// `ClientReducer.refreshesCredentials` (default false: no credential provider).
    public var refreshesCredentials: Bool?
    /// `ChatPolicy.pollInterval` (default nil).
    public var pollInterval: Double?
    /// `ChatPolicy.connectionMode` (default `realtime`).
    public var connectionMode: ConnectionMode?
    /// `ChatPolicy.whileAnswering` (default `queue`).
    public var whileAnswering: FollowUpPolicy?
    /// `ChatPolicy.deleteUndoWindow` (default 5 s), for a list fixture.
    public var deleteUndoWindow: Double?
    /// `ChatPolicy.archivedOnNewMessage` (default `returnsToList`), for a list fixture.
    public var archivedOnNewMessage: ArchivedConversationActivity?

    /// Settings that change what is given and keep the other defaults.
    public init(
      maximumIdleConversations: Int? = nil, refreshesCredentials: Bool? = nil, pollInterval: Double? = nil,
      connectionMode: ConnectionMode? = nil, whileAnswering: FollowUpPolicy? = nil, deleteUndoWindow: Double? = nil,
      archivedOnNewMessage: ArchivedConversationActivity? = nil
    ) {
      self.maximumIdleConversations = maximumIdleConversations
      self.refreshesCredentials = refreshesCredentials
      self.pollInterval = pollInterval
      self.connectionMode = connectionMode
      self.whileAnswering = whileAnswering
      self.deleteUndoWindow = deleteUndoWindow
      self.archivedOnNewMessage = archivedOnNewMessage
    }

    /// `ChatPolicy()` with the policy settings given here.
    public var policy: ChatPolicy {
      var policy = ChatPolicy()
      if let pollInterval { policy.pollInterval = pollInterval }
      if let connectionMode { policy.connectionMode = connectionMode }
      if let whileAnswering { policy.whileAnswering = whileAnswering }
      if let deleteUndoWindow { policy.deleteUndoWindow = deleteUndoWindow }
      if let archivedOnNewMessage { policy.archivedOnNewMessage = archivedOnNewMessage }
      return policy
    }

    /// Whether any setting only a `ClientReducer` has is given.
    var hasClientSettings: Bool { maximumIdleConversations != nil || refreshesCredentials != nil }

    private enum CodingKeys: String, CodingKey, CaseIterable {
      case maximumIdleConversations, refreshesCredentials, pollInterval, connectionMode, whileAnswering
      case deleteUndoWindow, archivedOnNewMessage
    }

    /// Decodes the settings, refusing a key that names no setting.
    public init(from decoder: any Decoder) throws {
      let names = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
      if let unknown = names.first(where: { CodingKeys(rawValue: $0) == nil }) {
        let known = CodingKeys.allCases.map(\.rawValue).joined(separator: ", ")
        throw DecodingError.dataCorrupted(
          .init(codingPath: decoder.codingPath, debugDescription: "\"\(unknown)\" is not a setting (\(known))"))
      }
      let container = try decoder.container(keyedBy: CodingKeys.self)
      maximumIdleConversations = try container.decodeIfPresent(Int.self, forKey: .maximumIdleConversations)
      refreshesCredentials = try container.decodeIfPresent(Bool.self, forKey: .refreshesCredentials)
      pollInterval = try container.decodeIfPresent(Double.self, forKey: .pollInterval)
      connectionMode = try container.decodeIfPresent(ConnectionMode.self, forKey: .connectionMode)
      whileAnswering = try container.decodeIfPresent(FollowUpPolicy.self, forKey: .whileAnswering)
      deleteUndoWindow = try container.decodeIfPresent(Double.self, forKey: .deleteUndoWindow)
      archivedOnNewMessage = try container.decodeIfPresent(
        ArchivedConversationActivity.self, forKey: .archivedOnNewMessage)
    }

    private struct AnyKey: CodingKey {
      var stringValue: String
      var intValue: Int? { nil }
      init(stringValue: String) { self.stringValue = stringValue }
      init?(intValue: Int) { nil }
    }
  }

  /// One action sent to the reducer, with the state changes and effects it must produce.
  public struct Step: Codable, Sendable, Equatable {
    /// The action, as the reducer's action type encodes it: `{"setDraft": {"_0": "Hi"}}`.
    public var action: JSONValue
    /// Every state path the step changes, with its new value (`null` when it is gone). Exhaustive: a change
    /// at a path no entry covers fails the step.
    public var changes: [String: JSONValue]?
    /// Every effect the step emits, in order, as the reducer's effect type encodes them.
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
  /// The rule this fixture pins: one of DESIGN.md's "Conversation rules", a client rule ("Client identity",
  /// "Client connection", …), or for a list fixture "List rules".
  public var rule: String
  /// Which reducer runs the fixture; nil means `conversation`.
  public var reducer: Kind?
  /// What the fixture shows, in a sentence, for the person reading it.
  public var description: String?
  /// Laid over the JSON of a fresh state (`ConversationState()`, `ClientState()` for a client fixture,
  /// `ConversationListState()` for a list fixture) to make the starting state (`{"conversationID": "c1"}`).
  public var initial: JSONValue?
  /// How the fixture's reducer is made; nil keeps every default. Only client fixtures may have the
  /// `ClientReducer` settings.
  public var settings: Settings?
  /// The actions to send, in order, each with what it must change and emit.
  public var steps: [Step]

  /// A fixture with the given steps; `initial` nil starts from a fresh state, `reducer` nil runs
  /// `ConversationReducer`.
  public init(
    name: String, rule: String, reducer: Kind? = nil, description: String? = nil, initial: JSONValue? = nil,
    settings: Settings? = nil, steps: [Step]
  ) {
    self.name = name
    self.rule = rule
    self.reducer = reducer
    self.description = description
    self.initial = initial
    self.settings = settings
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
  /// The initial state, laid over a fresh state, does not decode as the reducer's state, and why.
  case badInitialState(String)
  /// A step's action (counted from 1) does not decode as the reducer's action, and why.
  case badAction(step: Int, String)
  /// The fixture's `settings` do not fit its reducer, and why.
  case badSettings(String)

  /// The problem as a sentence for a test report.
  public var description: String {
    switch self {
    case .badPath(let path): return "\"\(path)\" is not a state path (write e.g. messages[c1].delivery)"
    case .unreadable(let file, let reason): return "\(file) is not a fixture: \(reason)"
    case .badInitialState(let reason): return "the initial state does not decode: \(reason)"
    case .badAction(let step, let reason): return "step \(step): the action does not decode: \(reason)"
    case .badSettings(let reason): return "the settings do not fit: \(reason)"
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
