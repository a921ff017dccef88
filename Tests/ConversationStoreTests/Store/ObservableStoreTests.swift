import ConversationState
import Foundation
import Observation
import ConversationStore
import Testing

@Suite("Observation adapter", .timeLimit(.minutes(1)))
@MainActor
struct ObservableStoreTests {
  @Test("the model follows the store on the main actor and tells Observation when it changes")
  func followsStore() async {
    let store = Store(initialState: ConversationState(conversationID: "conv-1"), reducer: ConversationReducer())
    let model = ObservableStore(store)
    #expect(model.state.draft == "")

    let changed = StateLockFlag()
    withObservationTracking {
      _ = model.state
    } onChange: {
      changed.set()
    }
    model.send(.setDraft("Hello"))
    while model.state.draft != "Hello" { await Task.yield() }
    #expect(changed.isSet)
    #expect(model.version == 1)
  }
}

/// A flag the Observation callback can set from any thread.
final class StateLockFlag: Sendable {
  private let flag = ConversationStore.StateLock<Bool>(false)
  func set() { flag.withLock { $0 = true } }
  var isSet: Bool { flag.withLock { $0 } }
}
