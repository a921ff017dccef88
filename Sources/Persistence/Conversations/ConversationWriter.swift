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
  /// Every committed message ever persisted, for paging older history and search (see `MessageArchive`).
  let archive: SharedArchive
  /// How many of the newest committed messages the journal keeps (and a reopened conversation shows);
  /// older ones are in the archive.
  let window: Int
  /// Messages read from the archive for the store (older pages), as read: when they come back from the
  /// store unchanged they are already stored, and are not written again.
  private var served: [ClientMessageID: Message] = [:]
  private var descriptor: Int32 = -1
  private(set) var fileSize = 0
  /// The journal's fingerprint at `fileSize` (`RecordFile.Contents.chains`): with it, each archive write
  /// records how much of the journal the archive holds (`JournalMark`).
  private var chain: UInt64 = 0
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
  static let compactionFloor = 1 << 18

  init(
    directory: String, path: String, replyWriteInterval: Double, events: StorageEvents, archive: SharedArchive,
    window: Int
  ) {
    self.directory = directory
    self.path = path
    self.replyWriteInterval = replyWriteInterval
    self.events = events
    self.archive = archive
    self.window = max(1, window)
  }

  /// `state` with only the newest `window` committed messages (and every outgoing one): what the journal
  /// keeps and a reopened conversation shows. A conversation without an ID keeps everything: it has no
  /// archive rows until the server names it.
  func windowed(_ state: ConversationState) -> ConversationState {
    guard state.conversationID != nil else { return state }
    var committed = 0
    for message in state.messages where message.isCommitted { committed += 1 }
    guard committed > window else { return state }
    var kept: [Message] = []
    kept.reserveCapacity(window + state.messages.outgoing.count)
    var skip = committed - window
    for message in state.messages {
      if message.isCommitted && skip > 0 {
        skip -= 1
        continue
      }
      kept.append(message)
    }
    var state = state
    state.messages = MessageList(kept)
    return state
  }

  static func path(in directory: String, for conversationID: ConversationID?) -> String {
    let name = conversationID.map { StorageName.escaped($0.rawValue) } ?? "new"
    return "\(directory)/\(name).conv"
  }

  /// Continues the file that was loaded: drops a torn tail, and rewrites a file of an older format version.
  /// What the journal wrote after the archive's mark goes into the archive again first (a crash may have
  /// come between the two writes; the journal's copy is the newer). Returns the state as a reopened
  /// conversation shows it.
  mutating func resume(from loaded: ConversationJournal.Loaded?) throws(PersistenceError) -> ConversationState? {
    guard let loaded else { return nil }
    if let id = loaded.state.conversationID {
      let mark = loaded.mark
      let stored = try archive.with { archive throws(PersistenceError) in try archive.mark(in: id) }
      if stored != mark {
        // A message the journal removed because it left the screen for a branch is kept, as off screen.
        let unarchived = loaded.unarchived(since: stored)
        let offScreen = loaded.state.branches.messagesOffScreen
        let hidden = Set(offScreen.map(\.clientID))
        // A rewrite killed between its archive's transaction and its rename archived a file that never
        // landed: what it had that this journal does not (an edit made and confirmed in that run) goes,
        // from this journal's oldest message on (older ones are history the journal let go of).
        let replacing = unarchived.isWhole ? loaded.state.messages.first(where: \.isCommitted)?.orderKey : nil
        try archive.with { archive throws(PersistenceError) in
          try archive.write(
            unarchived.messages, offScreen: offScreen, removing: unarchived.removed.filter { !hidden.contains($0) },
            in: id, mark: mark, replacingFrom: replacing, offScreenIsComplete: unarchived.isWhole)
        }
      }
    }
    let shown = windowed(loaded.state)
    if loaded.version < ConversationRecord.formatVersion {
      try rewrite(loaded.state, at: Date(timeIntervalSince1970: 0))
      written = shown
      events.report(.migrated(file: path, from: loaded.version, to: ConversationRecord.formatVersion))
      return shown
    }
    if loaded.droppedTailBytes > 0 && truncate(path, off_t(loaded.intactLength)) != 0 {
      throw .io("truncate", path: path)
    }
    try openForAppending()
    fileSize = loaded.intactLength
    chain = loaded.mark.chain
    compactedSize = loaded.intactLength
    written = shown
    meta = ConversationMeta(loaded.state)
    draft = loaded.state.draft
    if let header = loaded.reply, let restored = loaded.state.streamingReply {
      reply = (header, restored.text.utf8Count, restored.streamedUTF8Count, Date(timeIntervalSince1970: 0))
    }
    return shown
  }

  /// Whether `message`, gone from `state`, was only dropped from memory (`trimHistory` at the older end,
  /// `trimNewerHistory` at the newer): it stays stored. Anything else gone was deleted.
  static func wasTrimmed(_ message: Message, in state: ConversationState) -> Bool {
    guard message.isCommitted else { return false }
    let key = message.orderKey
    if let before = state.history.trimmedBefore, key < before { return true }
    if let gap = state.history.newerGap, key > gap.after, key <= gap.through { return true }
    return false
  }

  /// Up to `limit` archived messages just before (`newer` false) or after `key`, oldest first, remembered
  /// as served.
  mutating func storedMessages(from key: MessageOrderKey, newer: Bool, limit: Int) throws(PersistenceError)
    -> (messages: [Message], hasMore: Bool)
  {
    guard let id = (latest ?? written)?.conversationID else { return ([], false) }
    let page =
      newer
      ? try archive.with { archive throws(PersistenceError) in try archive.messages(after: key, in: id, limit: limit) }
      : try archive.with { archive throws(PersistenceError) in try archive.messages(before: key, in: id, limit: limit) }
    for message in page.messages { served[message.clientID] = message }
    return page
  }

  mutating func persist(_ state: ConversationState, changes: ChangeSet<ClientMessageID>, at now: Date)
    throws(PersistenceError)
  {
    latest = state
    guard let written, descriptor >= 0, Self.path(in: directory, for: state.conversationID) == path else {
      return try rewrite(state, at: now)
    }
    // A change of branches moves messages between the list and the branches record. Appended, those are
    // several records, and a kill that tears the append could keep the removals and lose the branches (the
    // kill test found it): a rewrite replaces the file whole, by atomic rename. Branches change when the user
    // edits or switches, not per frame.
    if state.branches != written.branches { return try rewrite(state, at: now) }
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
    var archived: [Message] = []
    var unarchived: [ClientMessageID] = []
    for clientID in changed {
      if let message = state.messages[clientID: clientID] {
        // An older page the archive served, back unchanged: stored already, in the archive only.
        if let copy = served[clientID], copy == message { continue }
        served[clientID] = nil
        records.append(.message(message))
        archived.append(message)
      } else {
        // Gone from the list: whatever the archive served of it is no longer what is stored (a removed
        // message that comes back, a branch switched away and back, must be written again).
        served[clientID] = nil
        guard let old = written.messages[clientID: clientID], !Self.wasTrimmed(old, in: state) else { continue }
        records.append(.removed(clientID))
        unarchived.append(clientID)
      }
    }
    let newMeta = ConversationMeta(state)
    if newMeta != meta { records.append(.meta(newMeta)) }
    if state.draft != draft { records.append(.draft(state.draft)) }
    records += replyRecords(of: state, at: now, force: false)
    try append(records)
    if let id = state.conversationID {
      do throws(PersistenceError) {
        // Only a write that archives something moves the mark: one per reply chunk or draft would cost a
        // transaction each, and a mark that lags only makes the next open read a longer tail.
        let moves = !unarchived.isEmpty || archived.contains(where: \.isCommitted)
        let mark = moves ? JournalMark(length: fileSize, chain: chain) : nil
        try archive.with { archive throws(PersistenceError) in
          try archive.write(archived, removing: unarchived, in: id, mark: mark)
        }
      } catch {
        // The journal has it; the next persist rewrites, which archives everything first.
        self.written = nil
        throw error
      }
    }
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
    var chain = self.chain
    for record in records { RecordFile.frame(record.encode(), into: &bytes, chain: &chain) }
    do throws(PersistenceError) {
      try FileSystem.writeAll(bytes, to: descriptor, path: path)
      guard fdatasync(descriptor) == 0 else { throw PersistenceError.io("fdatasync", path: path) }
    } catch {
      written = nil
      throw error
    }
    fileSize += bytes.count
    self.chain = chain
  }

  /// Writes the whole conversation to a fresh file and renames it over the journal (compaction, the first
  /// write, a migration, or the conversation getting its server ID and so its file name).
  private mutating func rewrite(_ state: ConversationState, at now: Date) throws(PersistenceError) {
    let previous = written
    written = nil
    close()
    let newPath = Self.path(in: directory, for: state.conversationID)
    var bytes = RecordFile.header(kind: ConversationRecord.fileKind, version: ConversationRecord.formatVersion)
    var chain = RecordFile.chain(ofHeader: bytes)
    let newMeta = ConversationMeta(state)
    RecordFile.frame(ConversationRecord.meta(newMeta).encode(), into: &bytes, chain: &chain)
    if !state.draft.isEmpty {
      RecordFile.frame(ConversationRecord.draft(state.draft).encode(), into: &bytes, chain: &chain)
    }
    if !state.branches.isEmpty {
      RecordFile.frame(ConversationRecord.branches(state.branches).encode(), into: &bytes, chain: &chain)
    }
    var writer = ByteWriter(capacity: 512)
    for message in windowed(state).messages {
      writer.bytes.removeAll(keepingCapacity: true)
      writer.byte(2)
      message.encode(into: &writer)
      RecordFile.frame(writer.bytes, into: &bytes, chain: &chain)
    }
    reply = nil
    for record in replyRecords(of: state, at: now, force: true) {
      RecordFile.frame(record.encode(), into: &bytes, chain: &chain)
    }
    if let id = state.conversationID {
      // The journal is about to forget every committed message but the newest `window`: the archive
      // must hold them, durably, first. The mark names the file about to be written; should a crash come
      // before its rename, it names no prefix of the old one, and the next open reconciles it whole.
      // Every message off screen is written as such (a rewrite is how branches change, and how an older
      // file migrates: format 5 kept them only in the journal); one that left the conversation from off
      // screen is deleted.
      let offScreen = state.branches.messagesOffScreen
      let hidden = Set(offScreen.map(\.clientID))
      var gone =
        previous?.messages.filter {
          !state.messages.contains($0.clientID) && !hidden.contains($0.clientID) && !Self.wasTrimmed($0, in: state)
        }
        .map(\.clientID) ?? []
      if let previous {
        gone += previous.branches.messagesOffScreen.lazy.map(\.clientID).filter {
          !hidden.contains($0) && !state.messages.contains($0)
        }
      }
      for clientID in gone { served[clientID] = nil }
      let mark = JournalMark(length: bytes.count, chain: chain)
      try archive.with { archive throws(PersistenceError) in
        try archive.write(Array(state.messages), offScreen: offScreen, removing: gone, in: id, mark: mark)
        try archive.checkpoint()
      }
    }
    try FileSystem.writeAtomically(bytes, to: newPath)
    if newPath != path { unlink(path) }
    path = newPath
    try openForAppending()
    fileSize = bytes.count
    self.chain = chain
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
