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
    /// Every message the journal holds, as last written, in the order first written, and the index of the
    /// record that last wrote each; and the record that removed each entry of `removed`.
    var messages: [Message]
    var messageRecords: [Int]
    var removals: [Int]
    /// Where each record ends, and the file's fingerprint there (`RecordFile.Contents`).
    var recordEnds: [Int]
    var chains: [UInt64]
    /// The prefix of the journal as it was read, whole.
    var mark: JournalMark

    /// What the journal wrote after `mark`, which the archive may lack: every message and removal when the
    /// mark names no prefix of this journal past its header (or is nil). A mark names a prefix when it ends
    /// at a record's end and the fingerprints there agree. O(log records) to find the prefix, then
    /// O(messages).
    /// `isWhole` when the mark names no prefix of this file (a rewrite killed before its rename stored the
    /// mark of a file that never landed): then everything is unarchived, and the archive may hold what that
    /// file had and this one never did.
    func unarchived(since mark: JournalMark?) -> (messages: [Message], removed: [ClientMessageID], isWhole: Bool) {
      guard let mark, let index = Self.index(ending: mark.length, in: recordEnds), chains[index] == mark.chain else {
        return (messages, removed, true)
      }
      return (
        messages.indices.filter { messageRecords[$0] > index }.map { messages[$0] },
        removed.indices.filter { removals[$0] > index }.map { removed[$0] }, false
      )
    }

    private static func index(ending end: Int, in ends: [Int]) -> Int? {
      var low = 0
      var high = ends.count
      while low < high {
        let middle = (low + high) / 2
        if ends[middle] < end { low = middle + 1 } else { high = middle }
      }
      return low < ends.count && ends[low] == end ? low : nil
    }
  }

  /// The stored conversation, nil when there is no file. Throws for a file that cannot be read as one.
  static func load(_ path: String) throws(PersistenceError) -> Loaded? {
    guard let bytes = try FileSystem.contents(of: path) else { return nil }
    return try bytes.withRawBytes { (raw) throws(PersistenceError) -> Loaded in
      let contents = try RecordFile.read(
        raw, kind: ConversationRecord.fileKind, newestVersion: ConversationRecord.formatVersion, path: path)
      var meta: ConversationMeta?
      var messages: [Message] = []
      var messageRecords: [Int] = []
      var positions: [ClientMessageID: Int] = [:]
      var removed = Set<Int>()
      var removedIDs: [ClientMessageID] = []
      var removedRecords: [Int] = []
      var header: ReplyHeader?
      var text = StreamedText()
      var draft: String?
      var branches: ConversationBranches?
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
            messageRecords[position] = index
          } else {
            positions[message.clientID] = messages.count
            messages.append(message)
            messageRecords.append(index)
          }
        case .removed(let clientID):
          if let position = positions.removeValue(forKey: clientID) { removed.insert(position) }
          removedIDs.append(clientID)
          removedRecords.append(index)
        case .reply(let value, let from, let chunk):
          if from == 0 || header?.clientID != value.clientID { text = StreamedText() }
          guard from == text.utf8Count else { throw .corrupt(path, "record \(index) continues a reply at a gap") }
          header = value
          text.append(chunk)
        case .replyEnded:
          header = nil
          text = StreamedText()
        case .draft(let value): draft = value
        case .branches(let value): branches = value
        }
      }
      guard let meta else { throw .corrupt(path, "no meta record") }
      var state = ConversationState()
      meta.apply(to: &state)
      if let draft { state.draft = draft }
      if let branches { state.branches = branches }
      // Most files were compacted and hold each message once: then the array goes in as it is.
      if !removed.isEmpty {
        let kept = messages.indices.filter { !removed.contains($0) }
        messages = kept.map { messages[$0] }
        messageRecords = kept.map { messageRecords[$0] }
      }
      state.messages = MessageList(messages)
      // A follow-up sent just before a kill: its message record is written before the meta record that takes
      // it out of the queue, and a torn append may keep only the first. The message is the truth; the turn
      // must not be sent again.
      if state.hasFollowUps { state.followUps.turns.removeAll { positions[$0.clientID] != nil } }
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
      let gone = removedIDs.indices.filter { positions[removedIDs[$0]] == nil }
      return Loaded(
        state: state, version: contents.version, intactLength: contents.intactLength,
        droppedTailBytes: raw.count - contents.intactLength, reply: header,
        removed: gone.map { removedIDs[$0] }, messages: messages, messageRecords: messageRecords,
        removals: gone.map { removedRecords[$0] }, recordEnds: contents.records.map(\.upperBound),
        chains: contents.chains, mark: JournalMark(length: contents.intactLength, chain: contents.chain))
    }
  }
}
