import ConversationState
import ConversationTesting
import Foundation
import Testing

/// What a list view is told between the frames it draws: `MessageList.changes(since:)` against what it
/// could work out itself from the two lists' rows.
@Suite("MessageList change sets")
struct MessageListChangeSetTests {
  /// Given a conversation that a subscriber draws now and then, when messages are committed, confirmed,
  /// edited, taken back and switched away in any order, then each frame's change set names exactly the rows
  /// inserted and removed and every row whose message changed, and no other row in a frame where no row
  /// came, went or moved.
  @Test(
    "each frame's change set names what a list view must touch, whatever happened between frames",
    arguments: [21, 22, 23, 24] as [UInt64])
  func randomFrames(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    var list = MessageList((1...40).map { MessageListTests.message($0 * 10) })
    var drawn = list
    var outgoingSeen = 0
    var framesWithOnlyEdits = 0
    var framesWithMoves = 0
    for step in 0..<2_000 {
      let id = Int.random(in: 0..<600, using: &random)
      switch Int.random(in: 0..<12, using: &random) {
      case 0..<4:
        list.commit(MessageListTests.message(id, at: Double(Int.random(in: 0..<600, using: &random))))
      case 4:
        let clientID = ClientMessageID("draft-\(step)")
        outgoingSeen += 1
        list.appendOutgoing(
          Message(clientID: clientID, role: .user, text: "draft \(step)", createdAt: .distantFuture, delivery: .pending)
        )
      case 5:
        // The server confirms the oldest message still on its way: it moves into server order.
        if var confirmed = list.outgoing.first {
          confirmed.delivery = .sent
          confirmed.serverID = ServerMessageID("confirmed-\(step)")
          confirmed.createdAt = Date(timeIntervalSince1970: Double(Int.random(in: 0..<600, using: &random)))
          list.commit(confirmed)
        }
      case 6:
        list.remove(ClientMessageID("c\(id)"))
      case 7:
        // A branch switch: the newest messages leave from one of them on.
        if list.committedCount > 3 {
          let from = list[list.committedCount - Int.random(in: 1...3, using: &random)]
          _ = list.removeCommitted(from: from.clientID)
        }
      default:
        list.update(ClientMessageID("c\(id)")) { $0.text = "edit \(step)" }
      }
      guard Int.random(in: 0..<3, using: &random) == 0 else { continue }
      let changes = list.changes(since: drawn)
      let expected = Expected(from: Array(drawn), to: Array(list))
      #expect(!changes.isReset, "step \(step)")
      #expect(changes.inserted == expected.inserted, "step \(step)")
      #expect(changes.removed == expected.removed, "step \(step)")
      #expect(expected.changed.isSubset(of: changes.updated), "step \(step): a changed row was not named")
      // Where rows came, went or moved, a few more may be named (a reload too many: the list renumbers
      // the rows beside a change); where none did, exactly the changed ones are.
      if expected.inserted.isEmpty && expected.removed.isEmpty && expected.moved.isEmpty {
        #expect(changes.updated == expected.changed, "step \(step): a row that did not change was named")
        if !expected.changed.isEmpty { framesWithOnlyEdits += 1 }
      } else {
        framesWithMoves += 1
      }
      drawn = list
      #expect(list.changes(since: drawn).isEmpty)
    }
    #expect(outgoingSeen > 50 && framesWithOnlyEdits > 20 && framesWithMoves > 100, "the walk exercised every kind")
  }

  /// What a view can tell from the rows alone: by client ID, which appeared, which went, which hold a
  /// different message, and which are at another place among the committed messages.
  struct Expected {
    var inserted: Set<ClientMessageID> = []
    var removed: Set<ClientMessageID> = []
    var changed: Set<ClientMessageID> = []
    var moved: Set<ClientMessageID> = []

    init(from old: [Message], to new: [Message]) {
      func rows(_ messages: [Message]) -> [ClientMessageID: (message: Message, committedIndex: Int?)] {
        var committedIndex = 0
        var rows: [ClientMessageID: (Message, Int?)] = [:]
        for message in messages {
          rows[message.clientID] = (message, message.isCommitted ? committedIndex : nil)
          if message.isCommitted { committedIndex += 1 }
        }
        return rows
      }
      let before = rows(old)
      let after = rows(new)
      for (id, row) in after {
        guard let was = before[id] else {
          inserted.insert(id)
          continue
        }
        if was.message != row.message { changed.insert(id) }
        // Any shift of index counts: a row before it came or went, or it moved itself.
        if was.committedIndex != row.committedIndex { moved.insert(id) }
      }
      removed = Set(before.keys).subtracting(after.keys)
    }
  }
}
