import ConversationState
import Foundation
import Testing

@testable import ChatHTTP

/// `parent_id` and `sibling_of` as Docs/HTTP-PROTOCOL.md's Branches section writes them: absent, a message's
/// ID, or null; or the message an edit replaced.
@Suite("A send's place on the wire")
struct PlacementWireTests {
  static func body(_ placement: MessagePlacement?) -> String {
    let body = SendBody(
      conversationId: "conv-1", clientId: "c-1", text: "hi", attachments: [], parentId: placement?.wireParent,
      siblingOf: placement?.wireSibling)
    return String(decoding: WireJSON.encode(body), as: UTF8.self)
  }

  static func operation(_ placement: MessagePlacement?) -> String {
    var outgoing = OutgoingMessage(clientID: "c-1", text: "hi", createdAt: Date(timeIntervalSince1970: 0))
    outgoing.placement = placement
    let operation = OutboxOperation(
      id: "send-c-1", conversationID: "conv-1", kind: .send(outgoing), enqueuedAt: Date(timeIntervalSince1970: 0))
    return String(decoding: WireJSON.encode(OutboxBatchBody.Operation(sequence: 1, operation)), as: UTF8.self)
  }

  @Test(
    "a send without a place names none, one after a message names it, an edit of the first message sends null, and an edit of the first message loaded names the message it replaces",
    arguments: [
      (MessagePlacement?.none, nil), (.after("m-5"), "\"parent_id\":\"m-5\""), (.first, "\"parent_id\":null"),
      (.beside("m-7"), "\"sibling_of\":\"m-7\""),
    ] as [(MessagePlacement?, String?)])
  func parentOnTheWire(_ placement: MessagePlacement?, _ expected: String?) {
    for json in [Self.body(placement), Self.operation(placement)] {
      if let expected {
        #expect(json.contains(expected), "\(json)")
      }
      // Never both: a server reads one place.
      let keys = ["parent_id", "sibling_of"].filter { json.contains("\"\($0)\"") }
      #expect(keys.count == (expected == nil ? 0 : 1), "\(json)")
    }
  }
}
