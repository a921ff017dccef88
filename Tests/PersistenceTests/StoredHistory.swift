import ConversationState
import Persistence

/// Every message a conversation file holds: the window it opened with, and every older page the archive
/// has, oldest first.
func everyStoredMessage(_ file: ConversationFile) throws -> [Message] {
  var messages = Array(file.restored?.messages ?? MessageList())
  guard file.restored?.history.hasStoredHistory == true,
    var key = messages.first(where: \.isCommitted)?.orderKey
  else { return messages }
  while true {
    let page = try file.storedMessages(before: key, limit: 500)
    messages = page.messages + messages
    guard page.hasMore, let oldest = page.messages.first else { return messages }
    key = oldest.orderKey
  }
}
