import ConversationState
import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// What a host sees when the scripted agent reasons, cites sources, has a tool fail, and asks the user to
/// approve a call before it runs, then goes on once answered: each played through a `ChatStore` on a
/// `TestClock`.
@Suite("Scripted backend: reasoning, sources, failed tools, approvals and continuations", .hangGuard)
struct ScriptedAgentFeatureTests {
  /// A store on conversation `conv-1` against a backend playing `replies`, a piece every 0.1 s.
  static func make(
    _ replies: [String], policy: ChatPolicy = ChatPolicy(),
    tools: [String: ConversationRuntime<ConversationReducer>.ToolHandler] = [:]
  )
    throws -> (ChatStore, ScriptedBackend, TestClock)
  {
    let clock = TestClock()
    let backend = try ScriptedBackend(clock: clock, replies: replies, interval: 0.1)
    let store = ChatStore(
      ConversationState(conversationID: "conv-1"), policy: policy, backend: backend,
      environment: .deterministic(clock: clock), tools: tools)
    return (store, backend, clock)
  }

  @Test("the agent's reasoning streams into a reasoning part, apart from the answer, and stays on it")
  func reasoning() async throws {
    // Given an agent that thinks in two pieces before it answers
    let (store, _, clock) = try Self.make([
      "<reasoning The user asks about order 1042;>|<reasoning  look it up first.>|It has shipped.|<finish>"
    ])
    defer { store.close() }

    // When the user asks
    store.sendMessage("Where is order 1042?")

    // Then, while it thinks, the reply shows an open reasoning part and no answer text yet
    #expect(
      await clock.run { store.state.streamingReply?.parts.first?.text.string == "The user asks about order 1042;" })
    let thinking = try #require(store.state.streamingReply)
    #expect(thinking.parts.first?.kind == .reasoning)
    #expect(thinking.parts.first?.isOpen == true)
    #expect(thinking.text.string.isEmpty, "reasoning is not the answer")

    // Then the answer keeps the whole reasoning, ended, before its text
    #expect(await clock.run { store.state.isSettled && store.state.streamingReply == nil })
    let answer = try #require(store.state.messages.last)
    #expect(answer.reply == .completed)
    #expect(answer.text == "It has shipped.")
    #expect(
      answer.parts.first?.content
        == .reasoning(ReasoningPart(text: "The user asks about order 1042; look it up first.")))
    #expect(answer.parts.dropFirst().map(\.text) == ["It has shipped."])
  }

  @Test("cited sources land on the answer as its sources, titled, the URL when untitled")
  func sources() async throws {
    // Given an agent that answers citing two pages, one without a title
    let (store, _, clock) = try Self.make([
      "Order 1042 has shipped.|<source https://example.com/help/shipping Shipping policy>"
        + "|<source https://example.com/help/tracking>"
    ])
    defer { store.close() }

    // When the user asks and the answer completes
    store.sendMessage("Where is order 1042?")
    #expect(await clock.run { store.state.isSettled && store.state.streamingReply == nil })

    // Then the answer cites both, in order, as links a host can show under it
    let answer = try #require(store.state.messages.last)
    #expect(answer.text == "Order 1042 has shipped.")
    let shipping = URL(string: "https://example.com/help/shipping")!
    let tracking = URL(string: "https://example.com/help/tracking")!
    #expect(
      answer.sources == [
        KnowledgeSource(id: shipping.absoluteString, title: "Shipping policy", url: shipping, origin: .external),
        KnowledgeSource(id: tracking.absoluteString, title: tracking.absoluteString, url: tracking, origin: .external),
      ])
  }

  @Test("a tool that fails ends its call failed with the agent's message, and the answer goes on")
  func failedTool() async throws {
    // Given an agent whose first tool works and whose second fails
    let (store, _, clock) = try Self.make([
      #"<tool lookupOrder>|<result lookupOrder {"status":"shipped"}>|<tool checkStock>"#
        + "|<fail checkStock The stock service did not answer.>|Shipped; I could not check the stock."
    ])
    defer { store.close() }

    // When the user asks and the answer completes
    store.sendMessage("Where is order 1042?")
    #expect(await clock.run { store.state.isSettled && store.state.streamingReply == nil })

    // Then the first call succeeded, the second failed saying why, and the answer is complete
    let answer = try #require(store.state.messages.last)
    #expect(answer.reply == .completed)
    #expect(answer.text == "Shipped; I could not check the stock.")
    #expect(answer.toolCalls.map(\.name) == ["lookupOrder", "checkStock"])
    #expect(answer.toolCalls.first?.outcome == .succeeded(["status": "shipped"]))
    guard case .failed(let error) = answer.toolCalls.last?.outcome else {
      Issue.record("checkStock should have failed, not \(String(describing: answer.toolCalls.last?.outcome))")
      return
    }
    #expect(error.code == .toolFailed)
    #expect(error.message == "The stock service did not answer.")
  }

  /// The answer that asks to cancel order 1042, and the run that continues it.
  static let approvalReplies = [
    "I can cancel it |once you approve. |<tool cancelOrder>|<approve cancelOrder Cancel order 1042?>",
    #"<result cancelOrder {"cancelled":true}>|Done: |order 1042 is cancelled."#,
  ]

  @Test("an approval waits for the user; approved, the next queued reply continues the same answer")
  func approvedContinues() async throws {
    // Given an agent that asks the user to approve cancelling the order
    let (store, backend, clock) = try Self.make(Self.approvalReplies)
    defer { store.close() }
    store.sendMessage("Please cancel order 1042")

    // When its run ends, then the answer waits for the approval, the call held until the user says
    #expect(await clock.run { store.state.isSettled && store.state.streamingReply == nil })
    let waiting = try #require(store.state.messages.last)
    guard case .awaitingInput(let requests) = waiting.reply else {
      Issue.record("the answer should wait for the approval, not be \(String(describing: waiting.reply))")
      return
    }
    #expect(
      requests == [
        InputRequest(id: "approve-cancelOrder-1", kind: .toolApproval("cancelOrder"), message: "Cancel order 1042?")
      ])
    #expect(waiting.toolCalls.map(\.outcome) == [.awaitingApproval])
    #expect(backend.continuations.isEmpty, "nothing goes on before the user answers")

    // When the user approves
    store.send(.answerInput("approve-cancelOrder-1", .approved))

    // Then the run continues the same answer: the call succeeds and the text goes on after what it had
    #expect(await clock.run { store.state.isSettled && store.state.messages.last?.reply == .completed })
    let answer = try #require(store.state.messages.last)
    #expect(answer.clientID == waiting.clientID && answer.serverID == "s-1-a", "the same answer, not a new one")
    #expect(answer.text == "I can cancel it once you approve. Done: order 1042 is cancelled.")
    #expect(answer.toolCalls.map(\.outcome) == [.succeeded(["cancelled": true])])
    #expect(store.state.messages.count == 2)
    // And the continuation carried the user's answer
    #expect(backend.continuations.map(\.answer) == ["s-1-a"])
    #expect(backend.continuations.first?.inputAnswers.map(\.answer) == [.approved])
  }

  @Test("a denied call stays denied: the continuation's result for it changes nothing")
  func deniedStaysDenied() async throws {
    // Given an answer waiting for the approval of cancelling the order
    let (store, backend, clock) = try Self.make([
      Self.approvalReplies[0], #"<result cancelOrder {"cancelled":true}>|All right, |I left it as it is."#,
    ])
    defer { store.close() }
    store.sendMessage("Please cancel order 1042")
    #expect(await clock.run { store.state.messages.last?.reply?.isAwaiting == true && store.state.isSettled })

    // When the user denies it
    store.send(.answerInput("approve-cancelOrder-1", .denied(reason: "Not now")))

    // Then the answer goes on, and the call never ran
    #expect(await clock.run { store.state.isSettled && store.state.messages.last?.reply == .completed })
    let answer = try #require(store.state.messages.last)
    #expect(answer.text == "I can cancel it once you approve. All right, I left it as it is.")
    #expect(answer.toolCalls.map(\.outcome) == [.denied(reason: "Not now")])
    #expect(backend.continuations.first?.inputAnswers.map(\.answer) == [.denied(reason: "Not now")])
  }

  @Test("an app tool whose result goes back in a new run: the next queued reply continues the answer")
  func appToolResultContinues() async throws {
    // Given a store whose tool results go back in the next run, and an agent that calls the app's tool
    var policy = ChatPolicy()
    policy.toolResultDelivery = .nextRun
    let (store, backend, clock) = try Self.make(
      ["Let me look. |<tool lookupOrder client>", "It has shipped."], policy: policy,
      tools: ["lookupOrder": { _ in ["status": "shipped"] }])
    defer { store.close() }

    // When the user asks, the run ends waiting for the tool, and the app's tool answers
    store.sendMessage("Where is order 1042?")

    // Then the continuation carries the tool's result and finishes the same answer
    #expect(await clock.run { store.state.isSettled && store.state.messages.last?.reply == .completed })
    let answer = try #require(store.state.messages.last)
    #expect(answer.text == "Let me look. It has shipped.")
    #expect(answer.toolCalls.map(\.outcome) == [.succeeded(["status": "shipped"])])
    #expect(backend.continuations.first?.toolResults.map(\.outcome) == [.succeeded(["status": "shipped"])])
  }
}
