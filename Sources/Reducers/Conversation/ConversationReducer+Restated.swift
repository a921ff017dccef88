import ConversationState
import Foundation

/// Messages a server restates beside a reply (AG-UI's `MESSAGES_SNAPSHOT`): a protocol with no history
/// endpoint says what the conversation holds this way. They are merged, never replacing what the device
/// shows: a held message keeps its client ID, time and place; a new one is placed in the order given.
extension ConversationReducer {
  func replyRestated(_ requestID: RequestID, _ messages: [Message], _ state: inout ConversationState)
    -> [ConversationEffect]
  {
    guard let purpose = state.requests[requestID], purpose.streamsReply, !messages.isEmpty else { return [] }
    // The time each given message has here, when the conversation holds it.
    let held = messages.map { message in message.serverID.flatMap { state.messages[serverID: $0]?.createdAt } }
    // With nothing held, the new ones go before everything here (a replayed thread is older than this send).
    let anchor = state.messages.firstCommitted?.createdAt ?? state.messages.first?.createdAt
    let step = 0.001
    var placed: [Message] = []
    placed.reserveCapacity(messages.count)
    for (index, message) in messages.enumerated() {
      var message = message
      if let time = held[index] {
        message.createdAt = time
      } else if let next = held[index...].firstIndex(where: { $0 != nil }), let time = held[next] {
        message.createdAt = time.addingTimeInterval(-step * Double(next - index))
      } else if let previous = held[..<index].lastIndex(where: { $0 != nil }), let time = held[previous] {
        message.createdAt = time.addingTimeInterval(step * Double(index - previous))
      } else if let anchor {
        message.createdAt = anchor.addingTimeInterval(-step * Double(messages.count - index))
      }
      message.reply = message.role == .assistant ? .completed : nil
      placed.append(message)
    }
    mergeFromServer(placed, &state)
    return []
  }
}
