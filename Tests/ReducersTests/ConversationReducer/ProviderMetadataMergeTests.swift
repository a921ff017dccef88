import ConversationState
import ConversationTesting
import Foundation
import Reducers
import Testing

/// What an agent's protocol kept on an answer (`Message.providerMetadata`: AG-UI's run and interrupts, a
/// Responses answer's output items) is this device's: a server's copy of the answer does not erase it.
@Suite("Provider metadata across a server's copy")
struct ProviderMetadataMergeTests {
  static let kept: JSONValue = ["ag-ui": ["runId": "run-7", "interrupts": ["int-1"]]]

  @Test("a copy of the answer without provider metadata keeps what the device had; one with its own replaces it")
  func serverCopyKeepsIt() {
    // Given an answer the agent's protocol annotated
    var answer = Message.server("Done.", id: "s2", at: 2)
    answer.providerMetadata = Self.kept
    let chat = Chat.existing([.server("Hi", id: "s1", at: 1), answer])

    // When a companion's copy of it arrives (an edit, a history page) without any
    chat.send(.realtime("conv-1", .messageEdited(.server("Done!", id: "s2", at: 2))))

    // Then the text is the server's and the metadata the device's
    #expect(chat.state.messages[serverID: "s2"]?.text == "Done!")
    #expect(chat.state.messages[serverID: "s2"]?.providerMetadata == Self.kept)

    // And a copy that carries its own replaces it
    var other = Message.server("Done!", id: "s2", at: 2)
    other.providerMetadata = ["ag-ui": ["runId": "run-8"]]
    chat.send(.realtime("conv-1", .messageEdited(other)))
    #expect(chat.state.messages[serverID: "s2"]?.providerMetadata == other.providerMetadata)
  }
}
