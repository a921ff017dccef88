import ConversationState
import ConversationTesting
import Foundation
import Testing

/// `ConversationState`, `StreamingReply` and `MessageList` keep their fields behind shared references; these
/// stories check that they still behave as plain values and encode as they did when the fields were stored
/// inline.
@Suite("State copies")
struct StateCopyTests {
  static func streaming(_ text: String) -> ConversationState {
    var state = ConversationState(conversationID: "c1")
    state.messages.commit(
      Message(clientID: "q1", serverID: "s1", role: .user, text: "Hi", createdAt: .story(0), delivery: .sent))
    state.streamingReply = StreamingReply(
      requestID: RequestID(epoch: state.epoch, sequence: 1), clientID: "r1", text: StreamedText(text),
      startedAt: .story(1))
    state.agentActivity = .generating
    return state
  }

  @Test("a snapshot held while the reply streams keeps the frame it showed")
  func heldSnapshotKeepsItsFrame() {
    // Given a frame a UI drew
    var state = Self.streaming("Hel")
    let drawn = state
    // When a delta arrives and the user types
    state.streamingReply?.text.append("lo")
    state.draft = "Tha"
    // Then the drawn frame is unchanged, and the new one differs in the reply row only
    #expect(drawn.streamingReply?.text.string == "Hel")
    #expect(drawn.draft == "")
    #expect(state.streamingReply?.text.string == "Hello")
    #expect(state != drawn)
    let changes = state.changes(since: drawn)
    #expect(changes.updated == ["r1"] && changes.inserted.isEmpty && changes.removed.isEmpty)
  }

  @Test("a change made to a copy leaves the original alone, field by field")
  func copiesAreIndependent() {
    // Given a state and a copy of it
    let original = Self.streaming("Hello")
    var copy = original
    // When every part of the copy changes: a cold field, the messages, the reply and the activity
    copy.title = "Billing"
    copy.requests[RequestID(epoch: copy.epoch, sequence: 9)] = .history
    copy.messages.commit(
      Message(clientID: "q2", serverID: "s2", role: .user, text: "More", createdAt: .story(2), delivery: .sent))
    copy.streamingReply?.toolCalls.append(
      ToolCall(id: "t1", name: "lookup", input: .object([:]), execution: .server))
    copy.agentActivity = .idle
    // Then the original still has what it had
    #expect(original.title == nil)
    #expect(original.requests.isEmpty)
    #expect(original.messages.map(\.clientID) == ["q1"])
    #expect(original.streamingReply?.toolCalls.isEmpty == true)
    #expect(original.agentActivity == .generating)
    #expect(copy.messages.map(\.clientID) == ["q1", "q2"])
    #expect(copy != original)
  }

  @Test("two copies of one version are equal and show no change; equal states built apart are equal too")
  func equality() {
    let state = Self.streaming("Hello")
    let copy = state
    #expect(copy == state)
    #expect(copy.changes(since: state).isEmpty)
    // Built apart: no shared storage, same fields (the messages' lineages differ, so rows reset)
    let rebuilt = Self.streaming("Hello")
    #expect(rebuilt.streamingReply == state.streamingReply)
    #expect(rebuilt.messages == state.messages)
    var other = rebuilt
    other.unreadCount = 1
    #expect(other != rebuilt)
  }

  @Test("a reply in parts: a frame where only its reasoning grew differs and names the reply's row")
  func reasoningDeltaIsAChange() throws {
    // Given a drawn frame of a reply thinking in one part while its text part waits
    var state = Self.streaming("")
    state.streamingReply?.restoreParts([
      StreamingPart(id: "think", kind: .reasoning, text: StreamedText("Let me"), isOpen: true),
      StreamingPart(id: "say", kind: .text, isOpen: true),
    ])
    let drawn = state
    // When a reasoning delta arrives, as the reducer applies one
    state.streamingReply?.parts[0].text.append(" check")
    state.streamingReply?.countPartBytes(" check".utf8.count)
    // Then the frame differs, in the reply's row only
    #expect(state != drawn)
    #expect(state.streamingReply != drawn.streamingReply)
    #expect(state.changes(since: drawn) == ChangeSet(updated: ["r1"]))
    // And the reply, encoded and decoded, equals the one streamed: the count the comparison reads first is
    // the one a decode derives from the parts
    let decoded = try JSONDecoder().decode(StreamingReply.self, from: JSONEncoder().encode(state.streamingReply))
    #expect(decoded == state.streamingReply)
  }

  @Test("the state encodes as one flat object with a key per field, and decodes back equal")
  func flatEncoding() throws {
    // Given a state with a reply, a title and a draft
    var state = Self.streaming("Hello")
    state.title = "Billing"
    state.draft = "Thanks"
    // When it is encoded
    let data = try JSONEncoder().encode(state)
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    // Then hot and cold fields sit side by side, the reply's fields in one object of its own
    for key in ["messages", "streamingReply", "agentActivity", "title", "draft", "epoch", "requests"] {
      #expect(object[key] != nil, "missing \(key)")
    }
    let reply = try #require(object["streamingReply"] as? [String: Any])
    #expect(reply["text"] as? String == "Hello")
    #expect(reply["clientID"] as? String == "r1")
    // And it decodes to an equal state
    #expect(try JSONDecoder().decode(ConversationState.self, from: data) == state)
  }

  @Test("a mirror shows the fields by name, as a state diff walks them")
  func mirrorNamesFields() {
    let state = Self.streaming("Hello")
    let labels = Mirror(reflecting: state).children.compactMap(\.label)
    #expect(labels.count == 45)
    #expect(
      Set(labels).isSuperset(of: [
        "messages", "streamingReply", "agentActivity", "title", "requests", "regenerateAfterReload",
      ]))
    let replyLabels = Mirror(reflecting: state.streamingReply!).children.compactMap(\.label)
    #expect(Set(replyLabels).isSuperset(of: ["text", "clientID", "requestID", "toolCalls"]))
  }

  @Test("a delta frame names the reply's row by its current ID, after the ID changed and after a decode")
  func deltaFrameNamesTheReplyRow() throws {
    // Given a streaming reply whose client ID was changed
    var state = Self.streaming("Hel")
    state.streamingReply?.clientID = "r2"
    let drawn = state
    // When a delta arrives
    state.streamingReply?.text.append("lo")
    // Then the frame updates that row, under its new ID
    #expect(state.changes(since: drawn) == ChangeSet(updated: ["r2"]))
    // And a state decoded from disk does the same for its next delta
    var decoded = try JSONDecoder().decode(ConversationState.self, from: JSONEncoder().encode(state))
    let shown = decoded
    decoded.streamingReply?.text.append("!")
    #expect(decoded.changes(since: shown) == ChangeSet(updated: ["r2"]))
    #expect(decoded.streamingReply?.text.string == "Hello!")
  }

  static func withReply(_ text: String?, request: UInt64 = 1) -> ConversationState {
    var state = ConversationState(conversationID: "c1")
    if let text {
      state.streamingReply = StreamingReply(
        requestID: RequestID(epoch: state.epoch, sequence: request), clientID: "r1", text: StreamedText(text),
        startedAt: .story(1))
    }
    return state
  }

  @Test(
    "states compare equal exactly when their replies do, with or without one",
    arguments: [
      (nil, nil, 1, true), ("Hi", nil, 1, false), (nil, "Hi", 1, false), ("Hi", "Hi", 1, true),
      ("Hi", "Ho", 1, false), ("Hi", "Hi", 2, false),
    ] as [(String?, String?, UInt64, Bool)])
  func equalityFollowsTheReply(left: String?, right: String?, rightRequest: UInt64, equal: Bool) {
    // Built apart, so no storage is shared and every field is compared
    let lhs = Self.withReply(left)
    let rhs = Self.withReply(right, request: rightRequest)
    #expect((lhs == rhs) == equal)
    #expect((rhs == lhs) == equal)
  }

  @Test("a frame where a message was committed and the reply grew lists both rows")
  func messageAndReplyInOneFrame() {
    // Given a drawn frame with a streaming reply
    var state = Self.streaming("Hel")
    let drawn = state
    // When a message arrives and the reply grows before the next frame
    state.messages.commit(Message.server("Hey", id: "s2", role: .humanAgent, at: 2))
    state.streamingReply?.text.append("lo")
    // Then the frame inserts the message and updates the reply's row
    let changes = state.changes(since: drawn)
    #expect(changes.inserted == ["srv-s2"] && changes.updated == ["r1"] && changes.removed.isEmpty)
    // And a frame with nothing new is empty
    #expect(state.changes(since: state).isEmpty)
  }
}
