import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Observation
import Testing

@Suite("Observation adapter", .hangGuard)
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
    #expect(model.state.draft == "Hello", "what send changed is visible when it returns")
    #expect(changed.isSet)
    #expect(model.version == 1)

    store.send(.setDraft("from elsewhere"))
    while model.state.draft != "from elsewhere" { await Task.yield() }
    #expect(model.version == 2)
  }

  @Test("a conversation is observed by area: a streamed delta invalidates the reply, not the messages or draft")
  func observedByArea() async {
    var state = ConversationState.existing([.server("Hi", id: "s1", at: 1)])
    let request = state.beginRequest(.send("c1"))
    state.streamingReply = StreamingReply(requestID: request, clientID: "reply", startedAt: .story(2))
    let store = ChatStore(initialState: state, reducer: ConversationReducer())
    let chat = ObservableConversation(store)
    let messagesChanged = StateLockFlag()
    let draftChanged = StateLockFlag()
    let replyChanged = StateLockFlag()
    withObservationTracking {
      _ = chat.messages
    } onChange: {
      messagesChanged.set()
    }
    withObservationTracking {
      _ = chat.draft
    } onChange: {
      draftChanged.set()
    }
    withObservationTracking {
      _ = chat.streamingReply
    } onChange: {
      replyChanged.set()
    }

    chat.send(.replyDelta(request, "Hello"))
    #expect(chat.streamingReply?.text.string == "Hello")
    #expect(replyChanged.isSet)
    #expect(!messagesChanged.isSet && !draftChanged.isSet)
    #expect(chat.changes == ChangeSet(updated: ["reply"]))

    chat.send(.setDraft("typing"))
    #expect(chat.draft == "typing" && draftChanged.isSet)
    #expect(!messagesChanged.isSet)
  }
}

/// A flag the Observation callback can set from any thread.
final class StateLockFlag: Sendable {
  private let flag = ConversationStore.StateLock<Bool>(false)
  func set() { flag.withLock { $0 = true } }
  var isSet: Bool { flag.withLock { $0 } }
}
