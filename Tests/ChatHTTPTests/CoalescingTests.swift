import ConversationStore
import Testing

@testable import ChatHTTP

@Suite("Deltas that piled up reach the store as one")
struct CoalescingTests {
  @Test("a reply's adjacent deltas merge into one, in order, around what is not a delta")
  func replyDeltas() {
    let call = ToolCall(id: "t1", name: "lookup", execution: .server)
    let events: [ReplyEvent] = [
      .started(agent: nil), .delta("Hel"), .delta("lo"), .delta(", "), .toolCall(call), .delta("wor"), .delta("ld"),
    ]

    let merged = ReplyEvent.coalesced(events)

    #expect(merged == [.started(agent: nil), .delta("Hello, "), .toolCall(call), .delta("world")])
  }

  @Test("a part's adjacent deltas merge; deltas of another part, or plain text, stay apart")
  func partDeltas() {
    let events: [ReplyEvent] = [
      .partStarted("r", .reasoning), .partDelta("r", "Thin"), .partDelta("r", "king"), .partDelta("t", "Hi"),
      .partDelta("t", "!"), .partDelta("r", "…"), .delta("plain"), .partEnded("r", encryptedValue: "e"),
      .toolInputDelta("c", "{\"a\""), .toolInputDelta("c", ": 1}"),
    ]

    let merged = ReplyEvent.coalesced(events)

    #expect(
      merged == [
        .partStarted("r", .reasoning), .partDelta("r", "Thinking"), .partDelta("t", "Hi!"), .partDelta("r", "…"),
        .delta("plain"), .partEnded("r", encryptedValue: "e"), .toolInputDelta("c", "{\"a\": 1}"),
      ])
  }

  @Test("realtime deltas merge only within one reply of one conversation")
  func realtimeDeltas() {
    let updates: [RealtimeUpdate] = [
      .event("c1", .replyDelta("r1", "a")), .event("c1", .replyDelta("r1", "b")),
      .event("c2", .replyDelta("r1", "c")), .event("c2", .replyDelta("r2", "d")),
      .event("c2", .replyDelta("r2", "e")), .opened, .event("c2", .replyDelta("r2", "f")),
    ]

    let merged = RealtimeUpdate.coalesced(updates)

    #expect(
      merged == [
        .event("c1", .replyDelta("r1", "ab")), .event("c2", .replyDelta("r1", "c")),
        .event("c2", .replyDelta("r2", "de")), .opened, .event("c2", .replyDelta("r2", "f")),
      ])
  }

  @Test("a batch of a hundred thousand one-letter deltas is one delta holding every letter")
  func longRun() {
    let letters = (0..<100_000).map { String(UnicodeScalar(UInt8(97 + $0 % 26))) }

    let merged = ReplyEvent.coalesced(letters.map { .delta($0) })

    #expect(merged == [.delta(letters.joined())])
  }
}
