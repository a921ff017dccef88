import ConversationState
import ConversationTesting
import Foundation
import Testing

@Suite("MessageList")
struct MessageListTests {
  static func message(_ id: Int, at seconds: Double? = nil) -> Message {
    Message(
      clientID: ClientMessageID("c\(id)"), serverID: ServerMessageID("s\(id)"), role: .assistant, text: "m\(id)",
      createdAt: Date(timeIntervalSince1970: seconds ?? Double(id)))
  }

  @Test(
    "random commits, removals and edits keep server order, unique IDs, working indexes and the awaiting count",
    arguments: [11, 12, 13] as [UInt64])
  func randomOperations(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    var list = MessageList()
    var model: [Int: Message] = [:]
    func outcome() -> ReplyState {
      Int.random(in: 0..<4, using: &random) == 0 ? .awaitingToolResults([ToolCallID("call")]) : .completed
    }
    for step in 0..<3_000 {
      let id = Int.random(in: 0..<800, using: &random)
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<6:
        var message = Self.message(id, at: Double(Int.random(in: 0..<1_000, using: &random)))
        message.reply = outcome()
        list.commit(message)
        model[id] = message
      case 6:
        #expect((list.remove(ClientMessageID("c\(id)")) != nil) == (model.removeValue(forKey: id) != nil))
      case 7:
        let ids = Set((0..<Int.random(in: 1..<12, using: &random)).map { _ in Int.random(in: 0..<800, using: &random) })
        let expected = ids.compactMap { model.removeValue(forKey: $0) }.sorted { $0.orderKey < $1.orderKey }
        #expect(list.remove(Set(ids.map { ClientMessageID("c\($0)") })) == expected)
      default:
        let reply = outcome()
        let found = list.update(ClientMessageID("c\(id)")) {
          $0.text = "edit \(step)"
          $0.reply = reply
        }
        #expect(found == (model[id] != nil))
        model[id]?.text = "edit \(step)"
        model[id]?.reply = reply
      }
    }
    let expected = model.values.sorted { $0.orderKey < $1.orderKey }
    #expect(Array(list) == expected)
    #expect(list.awaitingCount == expected.filter { $0.reply?.isAwaiting == true }.count)
    #expect(list.awaitingCount > 0, "the operations left some answers waiting")
    for message in expected {
      #expect(list[clientID: message.clientID] == message)
      #expect(list[serverID: message.serverID!] == message)
      // Read in place, as the reducer reads one field: the same message as the subscript's copy.
      #expect(list.read(clientID: message.clientID) { $0 } == message)
      #expect(list.read(serverID: message.serverID!, \.text) == message.text)
    }
    let gone = (0..<800).first { model[$0] == nil }!
    #expect(list.read(clientID: ClientMessageID("c\(gone)")) { $0 } == nil)
    #expect(list.read(serverID: ServerMessageID("s\(gone)")) { $0 } == nil)
  }

  @Test("an outgoing message is read in place by its client ID; it has no server ID to be read by")
  func readsOutgoing() {
    var list = MessageList()
    list.commit(Self.message(1))
    let outgoing = Message(
      clientID: "draft-1", role: .user, text: "on its way", createdAt: .distantFuture, delivery: .pending)
    list.appendOutgoing(outgoing)
    #expect(list.read(clientID: "draft-1", \.text) == "on its way")
    #expect(list.read(clientID: "c1", \.text) == "m1")
  }

  /// A window of 20 committed messages: 1–10 came as history pages (in front), 11–20 live, plus one
  /// outgoing message.
  static func window() -> MessageList {
    var list = MessageList((11...20).map { message($0) })
    for id in (1...10).reversed() { list.commit(message(id)) }
    list.appendOutgoing(
      Message(clientID: "mine", role: .user, text: "hi", createdAt: Date(timeIntervalSince1970: 99), delivery: .pending)
    )
    return list
  }

  @Test(
    "a trim drops a run at either end (or scattered messages) in one call, as one-by-one removal would",
    arguments: [
      Array(1...4), Array(1...14), Array(17...20), Array(6...20), [2, 9, 12, 19], Array(1...20),
    ])
  func bulkRemoval(ids: [Int]) {
    let before = Self.window()
    var list = before
    let removed = list.remove(Set(ids.map { ClientMessageID("c\($0)") }))
    var oneByOne = before
    for id in ids { oneByOne.remove(ClientMessageID("c\(id)")) }
    #expect(removed.map(\.clientID) == ids.map { ClientMessageID("c\($0)") })
    #expect(Array(list) == Array(oneByOne))
    #expect(list.changes(since: before).removed == Set(ids.map { ClientMessageID("c\($0)") }))
    for message in list where message.isCommitted {
      #expect(list[clientID: message.clientID] == message)
      #expect(list[serverID: message.serverID!] == message)
      #expect(list.index(of: message.clientID) == list.firstIndex(of: message))
    }
  }

  @Test("a pending message confirmed by the server moves into server order, once")
  func confirmMovesIntoOrder() {
    var list = MessageList([Self.message(1), Self.message(3)])
    let pending = Message(
      clientID: "mine", role: .user, text: "hi", createdAt: Date(timeIntervalSince1970: 99), delivery: .pending)
    list.appendOutgoing(pending)
    #expect(list.map(\.text) == ["m1", "m3", "hi"])

    var confirmed = pending
    confirmed.serverID = "s2"
    confirmed.delivery = .sent
    confirmed.createdAt = Date(timeIntervalSince1970: 2)
    #expect(list.commit(confirmed) == .replaced(previous: pending))
    #expect(list.map(\.text) == ["m1", "hi", "m3"])
    #expect(list.commit(confirmed) == .unchanged)
    #expect(list.count == 3)
    #expect(list.outgoing.isEmpty)
  }

  @Test("change sets name exactly what was inserted, updated and removed since a snapshot")
  func changeSets() {
    var list = MessageList((1...2_000).map { Self.message($0) })
    let snapshot = list
    list.commit(Self.message(2_001))
    list.update("c5") { $0.text = "edited" }
    list.remove("c1999")
    list.commit(Self.message(0))

    let changes = list.changes(since: snapshot)
    #expect(changes.inserted == ["c2001", "c0"])
    #expect(changes.updated.contains("c5"))
    #expect(changes.removed == ["c1999"])
    #expect(!changes.isReset)
    #expect(list.changes(since: list).isEmpty)
    #expect(list.changes(since: MessageList()).isReset, "an unrelated list is a reset")
  }

  @Test(
    "switching the newest messages back and forth under a subscriber names exactly the switched ones in each frame",
    arguments: [3, 31, 32, 33, 1_000, 1_024, 1_025])
  func branchSwitchFrames(history: Int) {
    var list = MessageList((1...history).map { Self.message($0) })
    // Two versions of the newest answer: the one shown (1 message) and another line of 2 messages after the
    // same parent, as a branch switch removes the shown line and puts the other one in its place.
    let lines = [[Self.message(history)], [Self.message(history + 1), Self.message(history + 2)]]
    var drawn = list
    for frame in 1...8 {
      let shown = lines[(frame + 1) % 2]
      let next = lines[frame % 2]
      #expect(list.removeCommitted(from: shown[0].clientID) == shown)
      for message in next { list.commit(message) }
      let changes = list.changes(since: drawn)
      #expect(changes.inserted == Set(next.map(\.clientID)), "frame \(frame)")
      #expect(changes.removed == Set(shown.map(\.clientID)), "frame \(frame)")
      #expect(changes.updated.isEmpty, "frame \(frame)")
      #expect(list != drawn)
      #expect(Array(list) == (1..<history).map { Self.message($0) } + next)
      #expect(list == MessageList((1..<history).map { Self.message($0) } + next))
      drawn = list
      #expect(list.changes(since: drawn).isEmpty)
    }
  }

  @Test("lists with the same messages are equal however they were built, and round-trip through JSON")
  func equalityAndCodable() throws {
    var appended = MessageList()
    for id in 1...50 { appended.commit(Self.message(id)) }
    var prepended = MessageList()
    for id in (1...50).reversed() { prepended.commit(Self.message(id)) }
    #expect(appended == prepended)
    let decoded = try JSONDecoder().decode(MessageList.self, from: JSONEncoder().encode(appended))
    #expect(decoded == appended)
  }

  @Test("a server copy with a different client ID replaces the entry holding its server ID")
  func sameServerIDDifferentClientID() {
    var list = MessageList([Self.message(1)])
    var copy = Self.message(1)
    copy.clientID = "other"
    copy.text = "newer"
    list.commit(copy)
    #expect(list.map(\.clientID) == ["other"])
    #expect(list[serverID: "s1"]?.text == "newer")
  }
}
