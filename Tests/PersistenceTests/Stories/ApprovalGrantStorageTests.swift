import ConversationState
import ConversationTesting
import Foundation
import Testing

@testable import Persistence

@Suite("Remembered approvals on disk", .hangGuard)
struct ApprovalGrantStorageTests {
  @Test("an approval remembered for the conversation is there after a relaunch, and gone once revoked")
  func grantsSurviveARelaunch() throws {
    // Given a conversation that remembers the user's approval of refunds
    let root = ScratchRoot()
    let file = try root.scope().conversation("conv-1")
    var state = ConversationState.existing([.server("Hi", id: "s1", at: 1)])
    state.approvalGrants = [ApprovalGrant(toolName: "refund", grantedAt: .story(2))]
    try file.persist(state, changes: .reset, at: .story(2))

    // When the app starts again
    let restored = try #require(try root.scope().conversation("conv-1").restored)

    // Then the grant is remembered, with when it was given
    #expect(restored.approvalGrants == [ApprovalGrant(toolName: "refund", grantedAt: .story(2))])

    // And once revoked and written, a relaunch finds none
    var revoked = restored
    revoked.approvalGrants = []
    try root.scope().conversation("conv-1").persist(revoked, changes: .reset, at: .story(3))
    #expect(try root.scope().conversation("conv-1").restored?.approvalGrants == [])
  }
}
