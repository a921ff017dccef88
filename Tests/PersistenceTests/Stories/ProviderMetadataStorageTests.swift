import ConversationState
import ConversationTesting
import Foundation
import Testing

@testable import Persistence

/// What a protocol needs to send an answer back is stored with it: in the journal, and in the archive a
/// relaunch pages older messages from.
@Suite("Provider metadata in storage")
struct ProviderMetadataStorageTests {
  static let metadata: JSONValue = [
    "openai.responses": ["output": [["type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA=="]]]
  ]

  @Test("an answer's provider metadata survives a reopen, in the journal and in the archive")
  func survivesReopen() throws {
    // Given an answer that carries provider metadata among plain messages
    let root = ScratchRoot()
    var answer = Message.server("Here you go.", id: "s2", at: 2)
    answer.providerMetadata = Self.metadata
    let state = ConversationState.existing([.server("Hi", id: "s1", at: 1), answer, .server("Bye", id: "s3", at: 3)])

    // When it is persisted and opened again
    try root.scope().conversation("conv-1").persist(state, changes: .reset, at: .story(5))
    let reopened = try root.scope().conversation("conv-1")

    // Then the journal gave it back, and the archive too, and the plain messages carry none
    let restored = try #require(reopened.restored)
    #expect(restored.messages[serverID: "s2"]?.providerMetadata == Self.metadata)
    #expect(restored.messages[serverID: "s1"]?.providerMetadata == nil)
    let archived = try reopened.storedMessages(
      before: MessageOrderKey(createdAt: .distantFuture, tieBreak: ""), limit: 10)
    #expect(archived.messages.first { $0.serverID == "s2" }?.providerMetadata == Self.metadata)
    #expect(archived.messages.first { $0.serverID == "s3" }?.providerMetadata == nil)
  }
}
