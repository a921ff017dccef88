import ConversationState
import Foundation
import Reducers
import Testing

/// The agent's shared state (AG-UI's STATE_SNAPSHOT and STATE_DELTA): replaced whole, patched whole or not
/// at all, and asked for again when this client's copy has drifted from the agent's.
@Suite("Shared agent state")
struct AgentStateTests {
  static func pointer(_ text: String) throws -> JSONPointer { try JSONPointer(parsing: text) }

  @Test("a snapshot, then a patch: the state follows the agent and nothing is asked for")
  func snapshotThenPatch() throws {
    // Given an agent that described its plan
    let chat = Chat.existing()
    chat.send(.agentStateSnapshot(["plan": ["find order", "check refund"], "step": 0]))

    // When it patches it
    let effects = chat.send(
      .agentStateDelta([
        .replace(at: try Self.pointer("/step"), value: 1), .add(at: try Self.pointer("/plan/-"), value: "reply"),
      ]))

    // Then the state is the patched one
    #expect(effects == [])
    #expect(chat.state.agentState == ["plan": ["find order", "check refund", "reply"], "step": 1])
    #expect(!chat.state.needsAgentStateSnapshot)
  }

  @Test("a patch that does not apply leaves the state, says why, asks once for a snapshot, and waits for it")
  func driftedPatch() throws {
    // Given a state the agent and this client agree on
    let chat = Chat.existing()
    chat.send(.agentStateSnapshot(["step": 0]))

    // When a patch removes what is not there (the second operation of two)
    let effects = chat.send(
      .agentStateDelta([.replace(at: try Self.pointer("/step"), value: 1), .remove(at: try Self.pointer("/plan"))]))

    // Then nothing of it applied, the error is typed, and a snapshot is asked for
    #expect(chat.state.agentState == ["step": 0])
    #expect(chat.state.backgroundError?.code == .invalidEvent)
    #expect(chat.state.needsAgentStateSnapshot)
    #expect(effects == [.requestAgentStateSnapshot("conv-1")])

    // And later patches wait for the snapshot (they change a state this client does not have)
    #expect(chat.send(.agentStateDelta([.replace(at: try Self.pointer("/step"), value: 2)])) == [])
    #expect(chat.state.agentState == ["step": 0])

    // And the snapshot ends the wait
    chat.send(.agentStateSnapshot(["step": 2, "plan": []]))
    chat.send(.agentStateDelta([.replace(at: try Self.pointer("/step"), value: 3)]))
    #expect(chat.state.agentState == ["step": 3, "plan": []])
    #expect(!chat.state.needsAgentStateSnapshot)
  }

  @Test("a patch before any snapshot asks for one")
  func patchBeforeSnapshot() throws {
    let chat = Chat.existing()
    let effects = chat.send(.agentStateDelta([.add(at: try Self.pointer("/step"), value: 1)]))
    #expect(chat.state.agentState == nil)
    #expect(effects == [.requestAgentStateSnapshot("conv-1")])
  }
}
