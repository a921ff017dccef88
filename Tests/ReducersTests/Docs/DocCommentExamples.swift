import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

// The Swift examples of the Reducers module's doc comments, compiled between `DOCC-` markers
// (`DocumentationCodeTests` checks each doc comment's Swift blocks against them) and run: each is a reducer
// step, so each test checks the state and effects the example's comment promises.

@Suite("Reducers' doc-comment examples")
struct ReducersDocCommentTests {
  @Test("a reducer step changes the state in place and returns the effects to run")
  func reducer() {
    // DOCC-REDUCER-BEGIN
    var state = ConversationState()
    let effects = ConversationReducer().reduce(into: &state, action: .setDraft("Hi"))
    // state.draft == "Hi", effects == []
    // DOCC-REDUCER-END
    #expect(state.draft == "Hi")
    #expect(effects.isEmpty)
  }

  @Test("a send shows the message as sending and asks the runtime to send it")
  func conversationReducer() {
    let now = Date.story(1)
    // DOCC-CONVERSATIONREDUCER-BEGIN
    let reducer = ConversationReducer()
    var state = ConversationState()
    let effects = reducer.reduce(
      into: &state,
      action: .send(OutgoingMessage(clientID: "c1", text: "Hello", createdAt: now)))
    // state.messages.outgoing[0].delivery == .sending
    // effects == [.sendMessage(r0.1, SendPayload(conversationID: nil, clientID: "c1", text: "Hello", ...))]
    // DOCC-CONVERSATIONREDUCER-END
    #expect(state.messages.outgoing.first?.delivery == .sending)
    #expect(effects.count == 1)
    guard case .sendMessage(_, let payload)? = effects.first else {
      Issue.record("expected a send, got \(effects)")
      return
    }
    #expect(payload.conversationID == nil)
    #expect(payload.clientID == "c1")
    #expect(payload.text == "Hello")
  }

  @Test("loading the list asks for its first page")
  func conversationListReducer() {
    // DOCC-CONVERSATIONLISTREDUCER-BEGIN
    var list = ConversationListState()
    let effects = ConversationListReducer().reduce(into: &list, action: .load(pageSize: 20))
    // effects == [.fetchConversations(r0.1, cursor: nil, limit: 20)]
    // DOCC-CONVERSATIONLISTREDUCER-END
    guard case .fetchConversations(_, let cursor, let limit)? = effects.first else {
      Issue.record("expected a fetch, got \(effects)")
      return
    }
    #expect(effects.count == 1)
    #expect(cursor == nil)
    #expect(limit == 20)
  }

  @Test("a started client opens its scope, connects and prepares an outbox batch")
  func clientReducer() {
    // DOCC-CLIENTREDUCER-BEGIN
    var state = ClientState()
    let effects = ClientReducer().reduce(into: &state, action: .start)
    // effects == [.openScope(userID: nil), .cancelTimer(.reconnect), .connectRealtime(r0.1), .prepareBatch(r0.2)]
    // DOCC-CLIENTREDUCER-END
    guard let connection = state.connectionRequest, case .preparing(let batch) = state.outbox else {
      Issue.record("expected a connection and a batch on their way, got \(state)")
      return
    }
    #expect(
      effects == [
        .openScope(userID: nil), .cancelTimer(.reconnect), .connectRealtime(connection), .prepareBatch(batch),
      ])
  }

  @Test("a client step's diagnostics come from the states before and after it")
  func diagnosticRules() {
    var state = ClientState()
    let action = ClientAction.start
    let clock = TestClock()
    // DOCC-DIAGNOSTICRULES-BEGIN
    let before = state
    let effects = ClientReducer().reduce(into: &state, action: action)
    let events = DiagnosticRules.events(from: before, to: state, by: action, at: clock.now())
    // DOCC-DIAGNOSTICRULES-END
    #expect(!effects.isEmpty)
    #expect(events.contains { $0.code == .connectionConnecting(attempt: 1) })
  }
}
