import ConversationState
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The mutable side of a `ConversationFile`: the open journal and what it holds, so each persist appends
/// only the difference.
struct ConversationWriter {
  let directory: String
  private(set) var path: String
  let replyWriteInterval: Double
  let events: StorageEvents
  private var descriptor: Int32 = -1
  private(set) var fileSize = 0
  /// The size of the file right after its last rewrite: the journal is compacted when it doubles.
  private var compactedSize = 0
  /// The last state whose messages, meta and draft are on disk; nil before the first write (or after a
  /// failed one, which forces a rewrite).
  private var written: ConversationState?
  private var meta: ConversationMeta?
  private var draft = ""
  /// The streamed reply on disk: its header, how many UTF-8 bytes of its text, and when it was written.
  /// The reply as last written: its header, its text's length, all it had streamed (text and parts) and when.
  private var reply: (header: ReplyHeader, utf8Count: Int, streamed: Int, at: Date)?
  /// The last state handed to `persist`, for `flush`.
  private var latest: ConversationState?

  /// Below this a journal is never compacted: rewriting a small file to save a few kilobytes is not worth it.
  static let compactionFloor = 1 << 20

  init(directory: String, path: String, replyWriteInterval: Double, events: StorageEvents) {
    self.directory = directory
    self.path = path
    self.replyWriteInterval = replyWriteInterval
    self.events = events
  }

  static func path(in directory: String, for conversationID: ConversationID?) -> String {
    let name = conversationID.map { StorageName.escaped($0.rawValue) } ?? "new"
    return "\(directory)/\(name).conv"
  }

  /// Continues the file that was loaded: drops a torn tail, and rewrites a file of an older format version.
  mutating func resume(from loaded: ConversationJournal.Loaded?) throws(PersistenceError) {
    guard let loaded else { return }
    if loaded.version < ConversationRecord.formatVersion {
      try rewrite(loaded.state, at: Date(timeIntervalSince1970: 0))
      events.report(.migrated(file: path, from: loaded.version, to: ConversationRecord.formatVersion))
      return
    }
    if loaded.droppedTailBytes > 0 && truncate(path, off_t(loaded.intactLength)) != 0 {
      throw .io("truncate", path: path)
    }
    try openForAppending()
    fileSize = loaded.intactLength
    compactedSize = loaded.intactLength
    written = loaded.state
    meta = ConversationMeta(loaded.state)
    draft = loaded.state.draft
    if let header = loaded.reply, let restored = loaded.state.streamingReply {
      reply = (header, restored.text.utf8Count, restored.streamedUTF8Count, Date(timeIntervalSince1970: 0))
    }
  }

  mutating func persist(_ state: ConversationState, changes: ChangeSet<ClientMessageID>, at now: Date)
    throws(PersistenceError)
  {
    latest = state
    guard let written, descriptor >= 0, Self.path(in: directory, for: state.conversationID) == path else {
      return try rewrite(state, at: now)
    }
    var changes = changes
    if changes.isReset { changes = state.messages.changes(since: written.messages) }
    if changes.isReset { return try rewrite(state, at: now) }
    var records: [ConversationRecord] = []
    // In the list's order (a Set's order differs between runs): the file is read back in record order, so
    // messages written offline together come back in the order they were sent.
    let changed = changes.inserted.union(changes.updated).union(changes.removed).sorted { lhs, rhs in
      (state.messages.index(of: lhs) ?? Int.max, lhs.rawValue) < (
        state.messages.index(of: rhs) ?? Int.max, rhs.rawValue
      )
    }
    for clientID in changed {
      if let message = state.messages[clientID: clientID] {
        records.append(.message(message))
      } else if written.messages.contains(clientID) {
        records.append(.removed(clientID))
      }
    }
    let newMeta = ConversationMeta(state)
    if newMeta != meta { records.append(.meta(newMeta)) }
    if state.draft != draft { records.append(.draft(state.draft)) }
    records += replyRecords(of: state, at: now, force: false)
    try append(records)
    self.written = state
    meta = newMeta
    draft = state.draft
    if fileSize > 2 * compactedSize && fileSize > Self.compactionFloor { try rewrite(state, at: now) }
  }

  mutating func flush(at now: Date) throws(PersistenceError) {
    guard let latest, descriptor >= 0 else { return }
    try append(replyRecords(of: latest, at: now, force: true))
  }

  /// What to write about the streamed reply: a start (or restart), a chunk of new text when the interval has
  /// passed (or `force`), or its end.
  private mutating func replyRecords(of state: ConversationState, at now: Date, force: Bool) -> [ConversationRecord] {
    guard let current = state.streamingReply else {
      guard reply != nil else { return [] }
      reply = nil
      return [.replyEnded]
    }
    let header = ReplyHeader(current, purpose: state.requests[current.requestID] ?? current.resumption?.purpose)
    let count = current.text.utf8Count
    let streamed = current.streamedUTF8Count
    if let stored = reply, stored.header.clientID == header.clientID, stored.header.requestID == header.requestID,
      stored.utf8Count <= count
    {
      let isDue = force || now.timeIntervalSince(stored.at) >= replyWriteInterval
      let grew = stored.streamed != streamed || stored.utf8Count < count
      // A part that only grew waits for the interval like the text; one that started or ended is written now.
      guard (grew && isDue) || stored.header.shape != header.shape else { return [] }
      reply = (header, count, streamed, now)
      return [.reply(header, from: stored.utf8Count, text: current.text.substring(fromUTF8: stored.utf8Count))]
    }
    reply = (header, count, streamed, now)
    return [.reply(header, from: 0, text: current.text.string)]
  }

  /// Appends the records in one write and syncs them. A failure leaves the journal to be rewritten whole.
  private mutating func append(_ records: [ConversationRecord]) throws(PersistenceError) {
    guard !records.isEmpty else { return }
    var bytes: [UInt8] = []
    for record in records { RecordFile.frame(record.encode(), into: &bytes) }
    do throws(PersistenceError) {
      try FileSystem.writeAll(bytes, to: descriptor, path: path)
      guard fdatasync(descriptor) == 0 else { throw PersistenceError.io("fdatasync", path: path) }
    } catch {
      written = nil
      throw error
    }
    fileSize += bytes.count
  }

  /// Writes the whole conversation to a fresh file and renames it over the journal (compaction, the first
  /// write, a migration, or the conversation getting its server ID and so its file name).
  private mutating func rewrite(_ state: ConversationState, at now: Date) throws(PersistenceError) {
    written = nil
    close()
    let newPath = Self.path(in: directory, for: state.conversationID)
    var bytes = RecordFile.header(kind: ConversationRecord.fileKind, version: ConversationRecord.formatVersion)
    let newMeta = ConversationMeta(state)
    RecordFile.frame(ConversationRecord.meta(newMeta).encode(), into: &bytes)
    if !state.draft.isEmpty { RecordFile.frame(ConversationRecord.draft(state.draft).encode(), into: &bytes) }
    var writer = ByteWriter(capacity: 512)
    for message in state.messages {
      writer.bytes.removeAll(keepingCapacity: true)
      writer.byte(2)
      message.encode(into: &writer)
      RecordFile.frame(writer.bytes, into: &bytes)
    }
    reply = nil
    for record in replyRecords(of: state, at: now, force: true) {
      RecordFile.frame(record.encode(), into: &bytes)
    }
    try FileSystem.writeAtomically(bytes, to: newPath)
    if newPath != path { unlink(path) }
    path = newPath
    try openForAppending()
    fileSize = bytes.count
    compactedSize = bytes.count
    written = state
    meta = newMeta
    draft = state.draft
    events.report(.rewritten(file: path, bytes: bytes.count))
  }

  private mutating func openForAppending() throws(PersistenceError) {
    descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    guard descriptor >= 0 else { throw .io("open", path: path) }
  }

  mutating func close() {
    if descriptor >= 0 { FileSystem.closeFile(descriptor) }
    descriptor = -1
  }
}
