import ConversationState
import Foundation
import Testing

@testable import ChatHTTP

/// `parent_id` as Docs/HTTP-PROTOCOL.md's Branches section writes it: absent, a message's ID, or null.
@Suite("A send's place on the wire")
struct PlacementWireTests {
  static func body(_ placement: MessagePlacement?) -> String {
    let body = SendBody(
      conversationId: "conv-1", clientId: "c-1", text: "hi", attachments: [], parentId: placement.map(WireParent.init))
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
    "a send without a place names none, one after a message names it, and an edit of the first message sends null",
    arguments: [
      (MessagePlacement?.none, nil), (.after("m-5"), "\"parent_id\":\"m-5\""), (.first, "\"parent_id\":null"),
    ] as [(MessagePlacement?, String?)])
  func parentOnTheWire(_ placement: MessagePlacement?, _ expected: String?) {
    for json in [Self.body(placement), Self.operation(placement)] {
      if let expected {
        #expect(json.contains(expected), "\(json)")
      } else {
        #expect(!json.contains("parent_id"), "\(json)")
      }
    }
  }
}
