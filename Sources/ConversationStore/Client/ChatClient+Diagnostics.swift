import ConversationState
import Foundation
import Reducers

/// Diagnostics (`ChatClientOptions.diagnostics`): the client's own events are derived where it reduces, by a
/// pure function of the step (`DiagnosticRules`), under its lock (memory only), queued in reduce order, and
/// handed on by the worker with the effects, never under the lock; each conversation's are derived by its
/// follower from the snapshots it persists. Off, nothing is read, copied or derived.
extension ChatClient {
  /// The device's time for the diagnostics of the next step, read before the lock is taken (the clock is
  /// the host's code); nil, and nothing read, when diagnostics are off.
  var diagnosticTime: Date? { diagnostics == nil ? nil : environment.clock.now() }

  /// Reduces `action` into `core`. With diagnostics on (`now` is set), the events of the step join
  /// `core.diagnosed`, stamped `now`.
  func reduce(_ action: ClientAction, _ core: inout ClientCore, at now: Date?) -> [ClientEffect] {
    guard now != nil || !core.watchers.isEmpty else { return reducer.reduce(into: &core.state, action: action) }
    let before = core.state
    let effects = reducer.reduce(into: &core.state, action: action)
    if let now { core.diagnosed += DiagnosticRules.events(from: before, to: core.state, by: action, at: now) }
    if core.state != before { core.publish() }
    return effects
  }
}
