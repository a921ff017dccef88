import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// Tools the app runs: a client tool call becomes an effect, its outcome is shown and submitted.
@Suite("App-side tools")
struct ClientToolTests {
  static let lookup = ToolCall(id: "t1", name: "lookupOrder", input: ["id": 1042], execution: .client)

  @Test("a client tool call runs its handler, shows it running, then shows and submits the result")
  func toolRunsAndSubmits() {
    let (chat, reply) = StreamingTests.replying()
    let run = chat.nextRequestID
    let effects = chat.send(.toolCallStarted(reply, Self.lookup))
    #expect(effects == [.runTool(run, Self.lookup, deadline: 25)])
    #expect(chat.state.agentActivity == .runningTool("lookupOrder"))
    #expect(chat.state.streamingReply?.toolCalls.first?.outcome == .running, "a UI can say: looking up order 1042")

    let submit = chat.nextRequestID
    let submitted = chat.send(.toolRan(run, .succeeded(["status": "shipped"])))
    #expect(submitted == [.submitToolResult(submit, "conv-1", reply: reply, "t1", .succeeded(["status": "shipped"]))])
    #expect(chat.state.streamingReply?.toolCalls.first?.outcome == .succeeded(["status": "shipped"]))
    chat.send(.requestSucceeded(submit))
    #expect(chat.state.requests.keys.sorted { $0.sequence < $1.sequence } == [reply])
  }

  @Test("a call the server executes runs nothing here")
  func serverToolsRunNothing() {
    let (chat, reply) = StreamingTests.replying()
    var serverCall = Self.lookup
    serverCall.execution = .server
    #expect(chat.send(.toolCallStarted(reply, serverCall)) == [])
  }

  @Test("a result over the policy's size is refused and the agent is told so")
  func resultTooLarge() {
    let (chat, reply) = StreamingTests.replying()
    let run = chat.nextRequestID
    chat.send(.toolCallStarted(reply, Self.lookup))
    let effects = chat.send(.toolRan(run, .succeeded(.string(String(repeating: "x", count: 20_001)))))
    guard case .submitToolResult(_, _, _, _, .failed(let error)) = effects.first else {
      Issue.record("expected an error result to be submitted, got \(effects)")
      return
    }
    #expect(error.code == .toolResultTooLarge)
  }

  @Test("stopping the reply cancels its running tool; the late result lands nowhere", arguments: ["stop", "signOut"])
  func stopCancelsTools(_ how: String) {
    let (chat, reply) = StreamingTests.replying()
    let run = chat.nextRequestID
    chat.send(.toolCallStarted(reply, Self.lookup))
    let effects = chat.send(how == "stop" ? .stopReply : .signOut)
    #expect(effects.contains(.cancel(run)))
    let before = chat.state
    #expect(chat.send(.toolRan(run, .succeeded(["late": true]))) == [])
    #expect(chat.state == before)
  }

  @Test("a reply that finishes while a tool still runs cancels the tool")
  func finishCancelsTools() {
    let (chat, reply) = StreamingTests.replying()
    let run = chat.nextRequestID
    chat.send(.toolCallStarted(reply, Self.lookup))
    let effects = chat.send(.replyFinished(reply, message: .server("Done.", id: "a1", at: 3)))
    #expect(effects == [.cancel(run)])
  }

  @Test("the client tool-call limit comes from the policy")
  func limitFromPolicy() {
    let chat = Chat(.existing(), policy: ChatPolicy(clientToolCallLimit: 1))
    let reply = chat.userSends("Q", id: "c1")
    chat.send(.replyStarted(reply, agent: nil, at: time(1)))
    chat.send(.toolCallStarted(reply, Self.lookup))
    chat.send(.toolCallStarted(reply, ToolCall(id: "t2", name: "lookupOrder", execution: .client)))
    #expect(chat.state.userError?.code == .toolLoopLimit)
    #expect(chat.state.requests.isEmpty, "the reply and its running tool were stopped")
  }
}
