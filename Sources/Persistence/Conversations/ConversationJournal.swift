import ConversationState
import Foundation

/// Reading a conversation file back into a state.
enum ConversationJournal {
  struct Loaded {
    var state: ConversationState
    var version: UInt32
    var intactLength: Int
    var droppedTailBytes: Int
    /// The reply as stored, with how much of its text the file holds.
    var reply: ReplyHeader?
    /// Messages the journal says are gone, which the archive may still hold after a crash.
    var removed: [ClientMessageID]
  }

  /// The stored conversation, nil when there is no file. Throws for a file that cannot be read as one.
  static func load(_ path: String) throws(PersistenceError) -> Loaded? {
    guard let bytes = try FileSystem.contents(of: path) else { return nil }
    return try bytes.withRawBytes { (raw) throws(PersistenceError) -> Loaded in
      let contents = try RecordFile.read(
        raw, kind: ConversationRecord.fileKind, newestVersion: ConversationRecord.formatVersion, path: path)
      var meta: ConversationMeta?
      var messages: [Message] = []
      var positions: [ClientMessageID: Int] = [:]
      var removed = Set<Int>()
      var removedIDs: [ClientMessageID] = []
      var header: ReplyHeader?
      var text = StreamedText()
      var draft: String?
      for (index, range) in contents.records.enumerated() {
        let record: ConversationRecord
        do {
          record = try ConversationRecord(
            decoding: UnsafeRawBufferPointer(rebasing: raw[range]), version: contents.version)
        } catch {
          throw .corrupt(path, "record \(index) does not decode")
        }
        switch record {
        case .meta(let value): meta = value
        case .message(let message):
          if let position = positions[message.clientID] {
            messages[position] = message
          } else {
            positions[message.clientID] = messages.count
            messages.append(message)
          }
        case .removed(let clientID):
          if let position = positions.removeValue(forKey: clientID) { removed.insert(position) }
          removedIDs.append(clientID)
        case .reply(let value, let from, let chunk):
          if from == 0 || header?.clientID != value.clientID { text = StreamedText() }
          guard from == text.utf8Count else { throw .corrupt(path, "record \(index) continues a reply at a gap") }
          header = value
          text.append(chunk)
        case .replyEnded:
          header = nil
          text = StreamedText()
        case .draft(let value): draft = value
        }
      }
      guard let meta else { throw .corrupt(path, "no meta record") }
      var state = ConversationState()
      meta.apply(to: &state)
      if let draft { state.draft = draft }
      // Most files were compacted and hold each message once: then the array goes in as it is.
      if !removed.isEmpty {
        let kept = messages.indices.filter { !removed.contains($0) }.map { messages[$0] }
        messages = kept
      }
      state.messages = MessageList(messages)
      // A reply whose message is already committed was finished by an append a crash cut between its
      // records: the committed message is the truth, the reply record a leftover.
      if let reply = header,
        positions[reply.clientID] != nil
          || reply.serverID.map({ id in
            messages.contains { $0.serverID == id }
          }) == true
      {
        header = nil
      }
      state.streamingReply = header.map { $0.reply(text: text) }
      return Loaded(
        state: state, version: contents.version, intactLength: contents.intactLength,
        droppedTailBytes: raw.count - contents.intactLength, reply: header,
        removed: removedIDs.filter { positions[$0] == nil })
    }
  }
}
