import ConversationTesting
import Foundation
import Testing

@testable import ConversationStore

/// The stores a client hands out reach every call of the host's backend, resumption included.
@Suite("ChatClient resumes a dropped reply", .hangGuard)
struct ChatClientResumeTests {
  @Test("a reply whose stream drops mid-answer is resumed from its cursor through the client's backend")
  func droppedReplyResumes() async throws {
    // Given a client's conversation with a reply streaming numbered events
    var harness = try await ClientHarness.start(identity: UserIdentity(userID: "u-1"))
    let chat = harness.client.conversation("conv-1")
    _ = await chat.state(where: { $0.connection == .connected || $0.connection == .syncing })
    chat.sendMessage("Where is order 42?")
    let (_, stream) = try await harness.nextSend()
    let events = Array(ReplyResumeTests.positioned(0..<9))
    for event in events { stream.yield(event) }
    _ = await chat.state(where: { $0.streamingReply?.text.string == "It shipped" })

    // When the stream drops
    stream.finish(throwing: ChatError(.network, "The connection was lost."))
    _ = await chat.state(where: { $0.streamingReply?.resumption != nil })
    await harness.client.settled()
    harness.clock.advance(by: 2)

    // Then the backend is asked for the rest from the last event shown, and the answer completes
    guard case .resume(let cursor, let resumed) = await harness.nextCall() else {
      Issue.record("the client's store did not ask the backend to resume")
      return await harness.client.close()
    }
    #expect(cursor.position == .sequence(9))
    for event in ReplyResumeTests.positioned(9..<ReplyResumeTests.script.count) { resumed.yield(event) }
    resumed.finish()
    let done = await chat.state(where: { $0.messages.last?.reply == .completed })
    #expect(done?.messages.last?.text == "It shipped today.")
    await harness.client.close()
  }
}
