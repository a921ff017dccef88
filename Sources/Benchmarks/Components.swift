import ConversationState
import ConversationStore
import Foundation

/// Components of the streaming path, measured alone, to show where a delta's time goes.
enum Components {
  /// Built on first use (a static `let` is lazy), so a filtered run that selects no component skips it.
  private static let base = Conversations.history(10_000)

  static func all() -> [(name: String, make: () -> Workload)] {
    [
      (
        "component.text.append",
        {
          Workload(name: "component.text.append") {
            var text = StreamedText()
            let ns = Harness.time { for _ in 0..<100_000 { text.append("12345678") } }
            precondition(text.utf8Count == 800_000)
            return (100_000, ns)
          }
        }
      ),
      (
        "component.reducer.delta",
        {
          Workload(name: "component.reducer.delta") {
            var state = base
            let reducer = ConversationReducer()
            let request = Conversations.openReply(on: state, turn: 0) { _ = reducer.reduce(into: &state, action: $0) }
            let ns = Harness.time {
              for _ in 0..<100_000 { _ = reducer.reduce(into: &state, action: .replyDelta(request, "12345678")) }
            }
            return (100_000, ns)
          }
        }
      ),
      (
        "component.store.send",
        {
          Workload(name: "component.store.send") {
            let store = Store(initialState: base, reducer: ConversationReducer())
            let request = Conversations.openReply(on: store.state, turn: 0, send: { store.send($0) })
            let ns = Harness.time { for _ in 0..<100_000 { store.send(.replyDelta(request, "12345678")) } }
            return (100_000, ns)
          }
        }
      ),
      (
        "component.store.state",
        {
          Workload(name: "component.store.state") {
            let store = Store(initialState: base, reducer: ConversationReducer())
            var held = store.state
            let ns = Harness.time { for _ in 0..<100_000 { held = store.state } }
            _ = held
            return (100_000, ns)
          }
        }
      ),
    ]
  }
}
