/// A pure state transition: it changes `state` in place for `action` and returns the I/O to perform.
///
/// A reducer reads no clock, generates no IDs and does no I/O; everything it needs arrives in the action
/// or the state. That is what lets `Store` run it under a lock in nanoseconds, and a test replay any flow.
///
/// ```swift
/// var state = ConversationState()
/// let effects = ConversationReducer().reduce(into: &state, action: .setDraft("Hi"))
/// // state.draft == "Hi", effects == []
/// ```
public protocol Reducer<State, Action, Effect>: Sendable {
  associatedtype State: Sendable
  associatedtype Action: Sendable
  associatedtype Effect: Sendable

  func reduce(into state: inout State, action: Action) -> [Effect]
}
