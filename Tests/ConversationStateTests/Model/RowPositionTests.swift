import ConversationState
import ConversationTesting
import Foundation
import Testing

@Suite("Row positions and change-set unions")
struct RowPositionTests {
  @Test("index(of:) agrees with the display order after history pages, live messages and outgoing ones")
  func positionsMatchDisplayOrder() {
    var random = SplitMix64(seed: 5)
    var list = MessageList()
    for step in 0..<1_500 {
      let id = Int.random(in: 0..<600, using: &random)
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<6:
        // Older and newer times alike: pages put in front, live traffic at the end.
        list.commit(
          Message(
            clientID: ClientMessageID("c\(id)"), serverID: ServerMessageID("s\(id)"), role: .assistant,
            text: "m\(id)", createdAt: Date(timeIntervalSince1970: Double(Int.random(in: 0..<1_000, using: &random)))))
      case 6..<8:
        list.appendOutgoing(
          Message(
            clientID: ClientMessageID("o\(step)"), role: .user, text: "o", createdAt: .story(0), delivery: .pending))
      default:
        list.remove(ClientMessageID("c\(id)"))
      }
    }
    for (position, message) in list.enumerated() {
      #expect(list.index(of: message.clientID) == position)
    }
    #expect(list.index(of: "not-there") == nil)
  }

  @Test("the streaming reply is the last row, found by its client ID")
  func replyIsLastRow() {
    var state = ConversationState.existing([.server("Hi", id: "s1", at: 1), .server("Hello", id: "s2", at: 2)])
    let request = state.beginRequest(.send("c1"))
    state.streamingReply = StreamingReply(requestID: request, clientID: "reply-1", startedAt: .story(3))
    #expect(state.rows.count == 3)
    #expect(state.rows.map(\.id) == ["srv-s1", "srv-s2", "reply-1"])
    #expect(state.rowIndex(of: "reply-1") == 2)
    #expect(state.rowIndex(of: "srv-s2") == 1)
    guard case .reply(let reply) = state.rows.last else {
      Issue.record("the last row should be the reply")
      return
    }
    #expect(reply.clientID == "reply-1")
  }

  @Test(
    "a union of two change sets is what one change set over both steps says",
    arguments: [
      // (first, then, union)
      (ChangeSet<String>(inserted: ["a"]), ChangeSet<String>(removed: ["a"]), ChangeSet<String>()),
      (ChangeSet(removed: ["a"]), ChangeSet(inserted: ["a"]), ChangeSet(updated: ["a"])),
      (ChangeSet(inserted: ["a"]), ChangeSet(updated: ["a"]), ChangeSet(inserted: ["a"])),
      (ChangeSet(updated: ["a"]), ChangeSet(removed: ["a"]), ChangeSet(removed: ["a"])),
      (ChangeSet(updated: ["a"]), ChangeSet(inserted: ["b"]), ChangeSet(inserted: ["b"], updated: ["a"])),
      (ChangeSet(inserted: ["a"]), .reset, .reset),
      (.reset, ChangeSet(inserted: ["a"]), .reset),
    ])
  func union(_ first: ChangeSet<String>, _ then: ChangeSet<String>, _ expected: ChangeSet<String>) {
    #expect(first.union(then) == expected)
  }

  @Test("the union of two steps' change sets has the inserts and removals of both steps at once, and updates no fewer")
  func unionMatchesDiff() {
    var random = SplitMix64(seed: 9)
    var list = MessageList((0..<50).map { .server("m\($0)", id: "s\($0)", at: Double($0)) })
    for _ in 0..<200 {
      let start = list
      var middle = list
      Self.mutate(&middle, &random)
      var end = middle
      Self.mutate(&end, &random)
      let union = middle.changes(since: start).union(end.changes(since: middle))
      let direct = end.changes(since: start)
      #expect(union.inserted == direct.inserted && union.removed == direct.removed)
      // A row that moved and moved back is reloaded once more than needed: never one fewer.
      #expect(union.updated.isSuperset(of: direct.updated))
      #expect(union.updated.allSatisfy { end.contains($0) })
      list = end
    }
  }

  static func mutate(_ list: inout MessageList, _ random: inout SplitMix64) {
    let id = Int.random(in: 0..<80, using: &random)
    switch Int.random(in: 0..<3, using: &random) {
    case 0: list.commit(.server("m\(id)", id: "s\(id)", at: Double(id)))
    case 1: list.remove(ClientMessageID("srv-s\(id)"))
    default: list.update(ClientMessageID("srv-s\(id)")) { $0.text += "!" }
    }
  }
}
