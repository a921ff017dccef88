import ConversationStore
import ConversationTesting
import Foundation
import Testing

/// App-side tools through a real store: handlers by name, deadlines on the store's clock, cancellation.
@Suite("App-side tools at runtime")
struct ToolRuntimeTests {
  static func make(
    _ reply: String, tools: [String: ConversationRuntime<ConversationReducer>.ToolHandler]
  ) throws -> (ChatStore, ScriptedBackend, TestClock) {
    let clock = TestClock()
    let backend = try ScriptedBackend(clock: clock, replies: [reply], interval: 0.1)
    let store = ChatStore(
      ConversationState(conversationID: "c1"), backend: backend, environment: .deterministic(clock: clock),
      tools: tools)
    return (store, backend, clock)
  }

  static let ask = #"Let me look.|<ask lookupOrder {"id":1042}>| It shipped.|<finish>"#

  @Test("the agent asks, the app's handler runs (shown as running), the result goes back and the reply goes on")
  func handlerRuns() async throws {
    let started = StateLock(false)
    let release = StateLock<CheckedContinuation<Void, Never>?>(nil)
    let (store, backend, clock) = try Self.make(
      Self.ask,
      tools: [
        "lookupOrder": { arguments in
          started.withLock { $0 = true }
          await withCheckedContinuation { continuation in release.withLock { $0 = continuation } }
          return ["order": arguments["id"] ?? .null, "status": "shipped"]
        }
      ])
    store.sendMessage("Where is order 1042?")
    #expect(await clock.run { started.withLock { $0 } })
    #expect(store.state.streamingReply?.toolCalls.first?.outcome == .running)
    #expect(store.state.agentActivity == .runningTool("lookupOrder"))
    while release.withLock({ $0 }) == nil { await Task.yield() }
    release.withLock { $0 }?.resume()
    #expect(await clock.run { store.state.isSettled })
    #expect(store.state.messages.last?.text == "Let me look. It shipped.")
    #expect(backend.submittedToolResults["lookupOrder-1"] == .succeeded(["order": 1042, "status": "shipped"]))
    store.close()
  }

  @Test(
    "a missing handler, a throwing one and one past the deadline are reported to the agent, never a hang",
    arguments: ["missing", "throwing", "slow"])
  func failuresReported(_ kind: String) async throws {
    var tools: [String: ConversationRuntime<ConversationReducer>.ToolHandler] = [:]
    switch kind {
    case "throwing": tools["lookupOrder"] = { _ in throw ChatError(.toolFailed, "database down") }
    case "slow":
      tools["lookupOrder"] = { _ in
        try await Task.sleep(for: .seconds(3_600))
        return .null
      }
    default: break
    }
    let (store, backend, clock) = try Self.make(Self.ask, tools: tools)
    store.sendMessage("Where is order 1042?")
    #expect(await clock.run(step: 1) { store.state.isSettled })
    guard case .failed(let error) = backend.submittedToolResults["lookupOrder-1"] else {
      Issue.record("expected a failed result submitted, got \(backend.submittedToolResults)")
      return
    }
    let expected: ChatError.Code = kind == "missing" ? .toolNotFound : kind == "slow" ? .timeout : .toolFailed
    #expect(error.code == expected)
    #expect(store.state.messages.last?.reply == .completed, "the reply went on")
    store.close()
  }

  @Test("stopping the reply cancels the running handler; its result is never submitted")
  func stopCancelsHandler() async throws {
    let cancelled = StateLock(false)
    let started = StateLock(false)
    let (store, backend, clock) = try Self.make(
      Self.ask,
      tools: [
        "lookupOrder": { _ in
          started.withLock { $0 = true }
          do { try await Task.sleep(for: .seconds(3_600)) } catch { cancelled.withLock { $0 = true } }
          return ["late": true]
        }
      ])
    store.sendMessage("Where is order 1042?")
    #expect(await clock.run { started.withLock { $0 } })
    store.send(.stopReply)
    let deadline = Date().addingTimeInterval(5)
    while !cancelled.withLock({ $0 }) && Date() < deadline { try await Task.sleep(for: .milliseconds(2)) }
    #expect(cancelled.withLock { $0 }, "the handler's task was cancelled")
    #expect(backend.submittedToolResults.isEmpty)
    store.close()
  }
}
