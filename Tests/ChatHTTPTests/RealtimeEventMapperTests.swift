import ChatHTTP
import ConversationStore
import Foundation
import ServerSentEvents
import Testing

@Suite("Realtime frames into the store's realtime events")
struct RealtimeEventMapperTests {
  static let now = Date(timeIntervalSince1970: 1_764_558_000)

  static func map(_ type: String, _ data: String) throws(ChatError) -> RealtimeUpdate? {
    try RealtimeEventMapper.map(ServerSentEvent(type: type, data: data, lastEventID: "9"), receivedAt: now)
  }

  @Test(
    "each documented event type names its conversation and becomes its store event",
    arguments: [
      (
        "message.created",
        #"{"conversation_id": "conv-1", "message": {"id": "m-1", "role": "assistant", "text": "Hi", "created_at": "2026-12-01T03:00:00Z"}}"#
      ),
      ("message.deleted", #"{"conversation_id": "conv-1", "message_id": "m-1"}"#),
      ("typing.started", #"{"conversation_id": "conv-1", "participant_id": "fin"}"#),
      ("typing.stopped", #"{"conversation_id": "conv-1", "participant_id": "fin"}"#),
      ("conversation.status", #"{"conversation_id": "conv-1", "status": "taken_over"}"#),
      ("conversation.title", #"{"conversation_id": "conv-1", "title": "Order 1042"}"#),
      ("feedback.offered", #"{"conversation_id": "conv-1", "question": "How did we do?", "agent_name": "Fin"}"#),
      ("reply.started", #"{"conversation_id": "conv-1", "message_id": "m-2"}"#),
      ("reply.delta", #"{"conversation_id": "conv-1", "message_id": "m-2", "delta": "It "}"#),
    ])
  func mapped(type: String, data: String) throws {
    let update = try Self.map(type, data)

    guard case .event("conv-1", let event) = update else {
      Issue.record("\(type) gave \(String(describing: update))")
      return
    }
    switch (type, event) {
    case ("message.created", .messageCreated(let message)):
      #expect(message.serverID == "m-1" && message.clientID == "srv-m-1" && message.role == .assistant)
    case ("message.deleted", .messageDeleted("m-1")), ("typing.stopped", .typingStopped("fin")),
      ("conversation.status", .statusChanged(.takenOver)), ("conversation.title", .titleChanged("Order 1042")),
      ("reply.delta", .replyDelta("m-2", "It ")):
      break
    case ("typing.started", .typingStarted("fin", let at)), ("reply.started", .replyStarted("m-2", nil, let at)):
      #expect(at == Self.now, "a time the server left out is the device's")
    case ("feedback.offered", .feedbackOffered(let prompt)):
      #expect(prompt == FeedbackPrompt(question: "How did we do?", agentName: "Fin"))
    default:
      Issue.record("\(type) became \(event)")
    }
  }

  @Test("a message that left the server's line for a branch is not a deletion: the store keeps its own tree")
  func leftForABranch() throws {
    // Given the user edited a question, then switched back to it before the server's events came
    // When the server says the old question left its line, kept as a branch
    let update = try Self.map("message.deleted", #"{"conversation_id": "conv-1", "message_id": "m-3", "branch": true}"#)

    // Then the store is told nothing (a deletion would take the question off the screen it is on again)
    #expect(update == nil)
    #expect(
      try Self.map("message.deleted", #"{"conversation_id": "conv-1", "message_id": "m-3", "branch": false}"#)
        == .event("conv-1", .messageDeleted("m-3")))
  }

  @Test("an unknown type is nothing; a malformed or incomplete one is INVALID_EVENT")
  func unknownAndMalformed() {
    #expect((try? Self.map("presence.changed", "{}")) == .some(nil))
    for (type, data) in [
      ("message.created", "{oops"), ("message.created", #"{"conversation_id": "c"}"#),
      ("conversation.status", #"{"conversation_id": "c", "status": "sleeping"}"#),
      ("typing.started", #"{"participant_id": "fin"}"#),
    ] {
      #expect(throws: ChatError.self, "\(type) \(data)") { try Self.map(type, data) }
      do {
        _ = try Self.map(type, data)
      } catch {
        #expect(error.code == .invalidEvent)
      }
    }
  }
}
