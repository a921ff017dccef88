public import ConversationStore
public import Foundation

/// Records every action a store applies, in the order it applied them, as a JSON action log that replays.
///
/// Because actions carry every input (time, IDs, jitter) and reducers are pure, replaying the log from the
/// same initial state reproduces every state exactly.
///
/// ```swift
/// let recorder = ActionRecorder<ConversationReducer>()
/// let store = Store(reducer: recorder.reducer(ConversationReducer()), backend: backend)
/// store.send(.setDraft("Hi"))  // use the store
/// let log = try recorder.json()
/// let states = try ActionRecorder<ConversationReducer>.replay(
///   log, from: ConversationState(), with: ConversationReducer())
/// ```
public final class ActionRecorder<Base: Reducer>: Sendable
where Base.Action: Codable, Base.State: Equatable {
  private let log: StateLock<(actions: [Base.Action], states: [Base.State])>
  private let keepsStates: Bool

  /// - Parameter keepsStates: also keep the state after each action, to compare a replay against.
  public init(keepsStates: Bool = false) {
    log = StateLock(([], []))
    self.keepsStates = keepsStates
  }

  /// `base`, recording each action (and, if asked, the state after it) as the store applies it.
  public func reducer(_ base: Base) -> RecordingReducer<Base> { RecordingReducer(base: base, recorder: self) }

  /// Every action recorded so far, in the order the store applied them.
  public var actions: [Base.Action] { log.withLock { $0.actions } }
  /// The state after each recorded action; empty unless `keepsStates`.
  public var states: [Base.State] { log.withLock { $0.states } }

  func record(_ action: Base.Action, _ state: Base.State) {
    let keepsStates = keepsStates
    log.withLock { log in
      log.actions.append(action)
      if keepsStates { log.states.append(state) }
    }
  }

  /// The action log as JSON: `{"version": 1, "actions": [...]}`.
  public func json() throws -> Data {
    // Dates keep Foundation's own encoding (seconds since 2001), which round-trips exactly.
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return try encoder.encode(ActionLog(version: 1, actions: actions))
  }

  /// The state after each action of a JSON log, starting from `initial`.
  public static func replay(_ json: Data, from initial: Base.State, with reducer: Base) throws -> [Base.State] {
    let log = try JSONDecoder().decode(ActionLog<Base.Action>.self, from: json)
    var state = initial
    return log.actions.map { action in
      _ = reducer.reduce(into: &state, action: action)
      return state
    }
  }
}

struct ActionLog<Action: Codable>: Codable {
  var version: Int
  var actions: [Action]
}

/// A reducer that records what it applies, then delegates.
public struct RecordingReducer<Base: Reducer>: Reducer where Base.Action: Codable, Base.State: Equatable {
  let base: Base
  let recorder: ActionRecorder<Base>

  /// Applies `action` with the base reducer, then records it (and the resulting state, if asked).
  public func reduce(into state: inout Base.State, action: Base.Action) -> [Base.Effect] {
    let effects = base.reduce(into: &state, action: action)
    recorder.record(action, state)
    return effects
  }
}

extension RecordingReducer: ConversationReducing where Base == ConversationReducer {}
