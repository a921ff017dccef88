import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

private let start = Date(timeIntervalSince1970: 1_750_000_000)

private func agentMessage(_ index: Int, text: String? = nil) -> Message {
  Message(
    clientID: ClientMessageID("client-\(index)"), serverID: ServerMessageID("s\(index)"), role: .assistant,
    text: text ?? "message \(index)", createdAt: start.addingTimeInterval(Double(index)))
}

@Suite("TestStore")
struct TestStoreTests {
  @Test("an exhaustive story: send, confirm, stream, finish — every change and effect asserted")
  func exhaustiveStory() {
    let store = ConversationTestStore(ConversationState(conversationID: "c1"))
    let send = store.nextRequestID
    let outgoing = OutgoingMessage(clientID: "m1", text: "Hi", createdAt: start)

    store.send(
      .send(outgoing),
      effects: [.sendMessage(send, SendPayload(conversationID: "c1", clientID: "m1", text: "Hi", attachments: []))]
    ) {
      $0.messages.appendOutgoing(
        Message(clientID: "m1", role: .user, text: "Hi", createdAt: start, delivery: .sending))
      $0.requests[send] = .send("m1")
      $0.requestSequence = 1
    }

    let confirmed = Message(clientID: "m1", serverID: "s1", role: .user, text: "Hi", createdAt: start)
    store.send(.sendAccepted(send, confirmed: confirmed, conversationID: "c1")) {
      $0.messages.commit(confirmed)
      $0.agentActivity = .thinking
    }
    store.send(.replyStarted(send, agent: nil, at: start.addingTimeInterval(1))) {
      $0.streamingReply = StreamingReply(
        requestID: send, clientID: "reply-\(send)", startedAt: start.addingTimeInterval(1))
    }
    store.send(.replyDelta(send, "Hello")) {
      $0.streamingReply?.text.append("Hello")
      $0.agentActivity = .generating
    }
    let answer = Message(
      clientID: "reply-\(send)", serverID: "s2", role: .assistant, text: "Hello",
      createdAt: start.addingTimeInterval(2),
      reply: .completed)
    store.send(.replyFinished(send, message: answer)) {
      $0.streamingReply = nil
      $0.requests = [:]
      $0.messages.commit(answer)
      $0.unreadCount = 1
      $0.agentActivity = .idle
    }
    store.finish()
  }

  @Test("a state difference names only the changed paths and counts the unchanged rows")
  func stateDiffMessage() {
    var state = ConversationState(conversationID: "c1")
    for index in 0..<1_000 { state.messages.commit(agentMessage(index)) }
    state.unreadCount = 1_000
    let store = ConversationTestStore(state)
    withKnownIssue {
      store.send(.realtime("c1", .messageEdited(agentMessage(7, text: "Hello")))) {
        $0.messages.update("client-7") { $0.text = "Hel" }
      }
    } matching: { issue in
      let text = String(describing: issue)
      return text.contains(#"messages[client-7].text: "Hel" -> "Hello""#)
        && text.contains("messages: 999 messages unchanged")
        && text.contains("Fix: make these changes in the closure passed to send(...)")
        && !text.contains("client-8")
    }
  }

  @Test("an effect the test did not assert fails with the effect and how to assert it")
  func unassertedEffect() {
    let store = ConversationTestStore(ConversationState(conversationID: "c1"))
    withKnownIssue {
      store.send(.loadHistory(pageSize: 20)) {
        $0.history.loadingRequest = RequestID(epoch: IdentityEpoch(), sequence: 1)
        $0.requests[RequestID(epoch: IdentityEpoch(), sequence: 1)] = .history
        $0.requestSequence = 1
      }
    } matching: { issue in
      let text = String(describing: issue)
      return text.contains("emitted 1 effect(s) the test did not assert") && text.contains("fetchHistory")
        && text.contains("effects: [...]")
    }
    store.exhaustivity = .off
  }

  @Test("effects that differ from the expected list are shown side by side")
  func wrongEffects() {
    let store = ConversationTestStore(ConversationState(conversationID: "c1"), exhaustivity: .off)
    withKnownIssue {
      store.send(.setTyping(true), effects: [.sendTypingSignal("c1", isTyping: false, epoch: IdentityEpoch())])
    } matching: { issue in
      let text = String(describing: issue)
      return text.contains("expected: [") && text.contains("actual:   [") && text.contains("isTyping: true")
    }
  }

  @Test("a request left in flight fails finish() and says how to handle it")
  func unhandledEffectAtFinish() {
    let store = ConversationTestStore(ConversationState(conversationID: "c1"))
    let request = store.nextRequestID
    store.send(.loadHistory(pageSize: 5), effects: [.fetchHistory(request, "c1", cursor: nil, limit: 5)]) {
      $0.history.loadingRequest = request
      $0.requests[request] = .history
      $0.requestSequence = 1
    }
    withKnownIssue {
      store.finish()
    } matching: { issue in
      let text = String(describing: issue)
      return text.contains("1 effect(s) were left unhandled") && text.contains("fetchHistory")
        && text.contains("Feed each one's result back")
    }
  }

  @Test("feeding the result back handles the effect")
  func handledEffect() {
    let store = ConversationTestStore(ConversationState(conversationID: "c1"))
    let request = store.nextRequestID
    store.send(.loadHistory(pageSize: 5), effects: [.fetchHistory(request, "c1", cursor: nil, limit: 5)]) {
      $0.history.loadingRequest = request
      $0.requests[request] = .history
      $0.requestSequence = 1
    }
    store.send(.historyLoaded(request, HistoryPage(messages: [], nextCursor: nil, hasMore: false))) {
      $0.history = HistoryPaging(cursor: nil, hasMoreHistory: false, loadingRequest: nil, hasLoadedFirstPage: true)
      $0.requests = [:]
    }
    store.finish()
  }

  @Test("a timer that never fired is unhandled; firing it handles it")
  func timers() {
    let store = ConversationTestStore(ConversationState(conversationID: "c1"), exhaustivity: .off)
    store.send(.realtime("c1", .typingStarted("ana", at: start)))
    store.exhaustivity = .on
    withKnownIssue {
      store.finish()
    } matching: {
      String(describing: $0).contains("startTimer")
    }
    store.send(.timerFired(.typingExpiry("ana"), at: start.addingTimeInterval(6))) { $0.typing = [:] }
    store.finish()
  }

  @Test("non-exhaustive mode checks only what the closure asserts")
  func nonExhaustive() {
    let store = ConversationTestStore(ConversationState(conversationID: "c1"), exhaustivity: .off)
    store.send(.send(OutgoingMessage(clientID: "m1", text: "Hi", createdAt: start))) {
      $0.draft = ""
    }
    withKnownIssue {
      store.send(.setDraft("typed")) { $0.draft = "something else" }
    } matching: {
      String(describing: $0).contains(#"draft: "something else" -> "typed""#)
    }
  }

  @Test("a broken invariant is reported as a reducer bug")
  func invariantReported() {
    var state = ConversationState(conversationID: "c1")
    state.unreadCount = 5
    let store = ConversationTestStore(state, exhaustivity: .off)
    withKnownIssue {
      store.send(.setDraft("x"))
    } matching: {
      String(describing: $0).contains("unreadCount is 5 but 0 message(s) are after the read cursor")
    }
  }
}
