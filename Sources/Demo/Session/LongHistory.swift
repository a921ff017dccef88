import ConversationStore
import Foundation

/// `--long-history N`: a conversation of N stored messages, written once into the data folder, so the demo
/// shows one opening at its newest page at once and `/older` paging it from disk.
enum LongHistory {
  static let id: ConversationID = "c-long"
  static let limit = 1...1_000_000

  /// The conversation to open first: the long one when asked for (written first), else the welcome.
  static func opening(_ count: Int?, in storage: ChatStorage?, user: String?) -> ConversationID {
    guard let count, let storage else { return "c-welcome" }
    do throws(PersistenceError) {
      try seed(count, in: storage, user: user)
    } catch {
      FileHandle.standardError.write(Data("demo: cannot store the long conversation: \(error)\n".utf8))
      return "c-welcome"
    }
    return id
  }

  /// Writes the conversation into the scope the demo's client uses, unless one is stored there already.
  static func seed(_ count: Int, in storage: ChatStorage, user: String?) throws(PersistenceError) {
    let file = try storage.scope(StorageScope(workspace: "demo", userID: user)).conversation(id)
    guard file.restored == nil else { return }
    var state = ConversationState(conversationID: id)
    state.title = "A long conversation"
    let start = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01
    for index in 0..<count {
      let user = index.isMultiple(of: 2)
      state.messages.commit(
        Message(
          clientID: ClientMessageID("long-c\(index)"), serverID: ServerMessageID("long-s\(index)"),
          role: user ? .user : .assistant,
          text: user ? "Question \(index + 1) of \(count)" : "Answer \(index + 1) of \(count)",
          createdAt: start.addingTimeInterval(Double(index) * 60), delivery: .sent, reply: user ? nil : .completed))
    }
    if let last = state.messages.lastCommitted, let serverID = last.serverID {
      state.readCursor = ReadCursor(messageID: serverID, orderKey: last.orderKey)
    }
    state.history.hasLoadedFirstPage = true
    state.history.hasMoreHistory = false  // the server has no more: all of it is here
    try file.persist(state, changes: .reset, at: Date())
  }
}
