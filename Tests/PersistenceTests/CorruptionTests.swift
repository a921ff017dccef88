import ConversationState
import ConversationTesting
import Foundation
import Testing

@testable import Persistence

/// The events a `ChatStorage` reported, in order.
private final class ReportedEvents: Sendable {
  private let events = StateLock<[StorageEvent]>([])

  var all: [StorageEvent] { events.withLock { $0 } }

  func record(_ event: StorageEvent) { events.withLock { $0.append(event) } }
}

/// The whole file at `path`, or nil when there is none (or it is not a file).
func storedBytes(_ path: String) -> [UInt8]? {
  FileManager.default.contents(atPath: path).map { Array($0) }
}

/// A small store, written one call at a time as an app writes it, with what each call left stored.
private struct Fixture {
  static let scope = StorageScope(workspace: "acme", userID: "u-1042")
  static let reply = StreamingReply(
    requestID: RequestID(epoch: IdentityEpoch(), sequence: 1), clientID: "reply-1", startedAt: .story(6))

  let directory: String
  let root: String
  let events = ReportedEvents()
  let storage: ChatStorage
  let scope: ScopeDirectory
  let installation: InstallationID
  /// The conversation after each `persist`, and the file's size then.
  private(set) var conversationSteps: [(size: Int, restored: Restored)] = []
  /// The outbox after each call, and the file's size then.
  private(set) var outboxSteps: [(size: Int, restored: Restored)] = []
  let list: ConversationListState
  let approvals = [
    ApprovalGrant(toolName: "search_orders", grantedAt: .story(7)),
    ApprovalGrant(toolName: "refund", grantedAt: .story(8)),
  ]

  var conversationPath: String { ConversationWriter.path(in: scope.directory + "/conversations", for: "c1") }
  var outboxPath: String { scope.directory + "/outbox" }
  var listPath: String { scope.directory + "/list" }
  var approvalsPath: String { scope.directory + "/approvals" }
  var installationPath: String { root + "/installation" }

  init() throws {
    directory = try temporaryStoreDirectory("corruption")
    root = directory + "/root"
    storage = try ChatStorage(root: root) { [events] in events.record($0) }
    scope = try storage.scope(Self.scope)
    installation = try storage.installationID()

    // Five messages, a draft, and a reply streamed in two chunks and then finished.
    let file = try scope.conversation("c1", replyWriteInterval: 0)
    var state = ConversationState.existing(
      [
        .server("Hello! How can I help?", id: "s1", at: 1),
        .confirmed("My order never arrived.", clientID: "u1", serverID: "s2", at: 2),
        .server("Sorry about that, let me check. 📦", id: "s3", at: 3),
        .confirmed("Order 1042, to Zürich.", clientID: "u2", serverID: "s4", at: 4),
        .server("Found it: it ships tomorrow.", id: "s5", at: 5),
      ], id: "c1")
    var steps: [(size: Int, restored: Restored)] = []
    func persist(_ changes: ChangeSet<ClientMessageID>) throws {
      try file.persist(state, changes: changes, at: .story(100))
      steps.append((file.fileSize, .conversation(state)))
    }
    try persist(.reset)
    state.draft = "Could you also check"
    try persist(ChangeSet())
    state.streamingReply = Self.reply
    try persist(ChangeSet())
    state.streamingReply!.text.append("Partial ")
    try persist(ChangeSet())
    state.streamingReply!.text.append("answer, and the rest.")
    try persist(ChangeSet())
    state.messages.commit(
      Message(
        clientID: "reply-1", serverID: "s6", role: .assistant, text: "Partial answer, and the rest.",
        createdAt: .story(6), delivery: .sent, reply: .completed))
    state.unreadCount += 1  // the answer is after the read cursor, as the reducer would count it
    state.streamingReply = nil
    state.title = "Order 1042"
    try persist(ChangeSet(inserted: ["reply-1"]))
    conversationSteps = steps

    // Four operations queued, one of them then completed.
    let outbox = try scope.outbox()
    var outboxSteps: [(size: Int, restored: Restored)] = []
    let outboxPath = scope.directory + "/outbox"
    let operations: [OutboxOperation.Kind] = [
      .markRead(upTo: "s5"), .send(OutgoingMessage(clientID: "u3", text: "Thanks!", createdAt: .story(7))),
      .rateAnswer("reply-1", .up), .rateConversation(.up, comment: "Quick and kind"),
    ]
    for (index, kind) in operations.enumerated() {
      let operation = OutboxOperation(
        id: OutboxOperationID(rawValue: "op-\(index)"), conversationID: "c1", kind: kind, enqueuedAt: .story(7))
      try outbox.enqueue(operation, at: .story(8))
      outboxSteps.append((storedBytes(outboxPath)?.count ?? 0, .outbox(outbox.operations)))
    }
    try outbox.complete(["op-1"])
    outboxSteps.append((storedBytes(outboxPath)?.count ?? 0, .outbox(outbox.operations)))
    self.outboxSteps = outboxSteps

    var list = ConversationListState()
    list.conversations = ConversationList([
      ConversationSummary(id: "c1", title: "Order 1042", lastActivityAt: .story(6), lastMessagePreview: "Partial"),
      ConversationSummary(id: "c0", title: "Returns", status: .ended, lastActivityAt: .story(-50)),
    ])
    list.hasLoaded = true
    list.hasMore = true
    list.cursor = "page-2"
    try scope.conversationList.save(list)
    self.list = list
    try scope.standingApprovals.save(approvals)
  }

  func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

/// What a journal holds when opened: a conversation (nil when there is none) or the outbox's operations.
private enum Restored: Equatable {
  case conversation(ConversationState?)
  case outbox([OutboxOperation])
}

/// What opening a journal found.
private struct Opened {
  var restored: Restored
  var error: PersistenceError?
  var droppedTailBytes: Int
}

/// The two files written by appending, whose every byte these tests cut and flip.
private enum Journal: String, CaseIterable, CustomTestStringConvertible {
  case conversation
  case outbox

  var testDescription: String { rawValue }

  func path(in fixture: Fixture) -> String {
    switch self {
    case .conversation: return fixture.conversationPath
    case .outbox: return fixture.outboxPath
    }
  }

  func steps(of fixture: Fixture) -> [(size: Int, restored: Restored)] {
    switch self {
    case .conversation: return fixture.conversationSteps
    case .outbox: return fixture.outboxSteps
    }
  }

  /// Opens the journal as a launch does.
  func open(_ fixture: Fixture) throws -> Opened {
    switch self {
    case .conversation:
      let file = try fixture.scope.conversation("c1")
      return Opened(
        restored: .conversation(file.restored), error: file.restoreError, droppedTailBytes: file.droppedTailBytes)
    case .outbox:
      let outbox = try fixture.scope.outbox()
      return Opened(
        restored: .outbox(outbox.operations), error: outbox.restoreError, droppedTailBytes: outbox.droppedTailBytes)
    }
  }

  /// Opens the journal as a launch does, then writes one more thing through the file it opened (a message, an
  /// operation); returns what it found and what should now be stored.
  func openAndWrite(_ fixture: Fixture) throws -> (found: Opened, stored: Restored) {
    switch self {
    case .conversation:
      let file = try fixture.scope.conversation("c1")
      var state = file.restored ?? ConversationState(conversationID: "c1")
      let message = Message.server("Written after opening.", id: "s-after", at: 99)
      state.messages.commit(message)
      state.unreadCount += 1  // an agent's message after the read cursor, as the reducer counts it
      try file.persist(state, changes: ChangeSet(inserted: [message.clientID]), at: .story(200))
      return (
        Opened(
          restored: .conversation(file.restored), error: file.restoreError, droppedTailBytes: file.droppedTailBytes),
        .conversation(state)
      )
    case .outbox:
      let outbox = try fixture.scope.outbox()
      let found = Opened(
        restored: .outbox(outbox.operations), error: outbox.restoreError, droppedTailBytes: outbox.droppedTailBytes)
      let operation = OutboxOperation(
        id: "op-after", conversationID: "c1", kind: .markRead(upTo: "s-after"), enqueuedAt: .story(200))
      try outbox.enqueue(operation, at: .story(200))
      return (found, .outbox(outbox.operations))
    }
  }

  /// Puts `contents` where the journal is, with nothing of an earlier case left beside it.
  func place(_ contents: some Collection<UInt8>, in fixture: Fixture) throws {
    try clear(in: fixture)
    #expect(FileManager.default.createFile(atPath: path(in: fixture), contents: Data(contents)))
  }

  /// Removes the journal and everything named after it (files moved aside, temporary files). For a
  /// conversation, the message archive too: these cases put journal contents in place as a kill could
  /// have left them, and an archive written from a longer journal would hold what that kill never wrote.
  func clear(in fixture: Fixture) throws {
    let path = path(in: fixture)
    let directory = FileSystem.parentDirectory(of: path)
    let name = String(path.dropFirst(directory.count + 1))
    let archive = self == .conversation ? MessageArchive.fileName : nil
    for entry in try FileManager.default.contentsOfDirectory(atPath: directory)
    where entry.hasPrefix(name) || archive.map(entry.hasPrefix) == true {
      do {
        try FileManager.default.removeItem(atPath: directory + "/" + entry)
      } catch  where !FileManager.default.fileExists(atPath: directory + "/" + entry) {
        // SQLite deletes the archive's `-wal` file when its last connection closes, which a scope released
        // a moment ago may do between the listing and this removal.
      }
    }
  }
}

/// One record's frame in a store file: where it starts, where its payload starts, where it ends.
private struct Frame {
  var start: Int
  var payload: Int
  var end: Int
}

/// The frames of an intact store file, read from their length fields (independently of the reader under test).
private func frames(of bytes: [UInt8]) -> [Frame] {
  var frames: [Frame] = []
  var offset = RecordFile.headerSize
  while offset < bytes.count {
    let length = bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
    frames.append(
      Frame(start: offset, payload: offset + RecordFile.frameSize, end: offset + RecordFile.frameSize + length))
    offset += RecordFile.frameSize + length
  }
  precondition(offset == bytes.count, "the fixture's file is not a sequence of frames")
  return frames
}

/// What the format promises when one bit of a store file flips.
private enum FlipOutcome {
  /// In the header, in any record's length or its check, or in a record that is not the last: moved aside.
  case corrupt
  /// In the last record's payload or its checksum (a torn write looks like that): dropped, from `start` on.
  case tornTail(start: Int)

  init(offset: Int, in bytes: [UInt8], flipped: [UInt8], frames: [Frame]) {
    guard let index = frames.firstIndex(where: { $0.start <= offset && offset < $0.end }) else {
      self = .corrupt  // the header
      return
    }
    let frame = frames[index]
    // A length is checked on its own, so a flipped length can never pass for a record cut short.
    guard offset >= frame.start + 8 else {
      self = .corrupt
      return
    }
    self = index == frames.count - 1 ? .tornTail(start: frame.start) : .corrupt
  }
}

/// What each record boundary of `bytes` opens as: the file cut there, opened.
private func openedAtBoundaries(_ journal: Journal, _ bytes: [UInt8], in fixture: Fixture) throws -> [Int: Opened] {
  var opened: [Int: Opened] = [:]
  for boundary in [RecordFile.headerSize] + frames(of: bytes).map(\.end) {
    try journal.place(bytes[..<boundary], in: fixture)
    opened[boundary] = try journal.open(fixture)
  }
  return opened
}

/// The five files of a store.
private enum StoreFile: String, CaseIterable, CustomTestStringConvertible {
  case conversation
  case outbox
  case list
  case approvals
  case installation

  var testDescription: String { rawValue }

  func path(in fixture: Fixture) -> String {
    switch self {
    case .conversation: return fixture.conversationPath
    case .outbox: return fixture.outboxPath
    case .list: return fixture.listPath
    case .approvals: return fixture.approvalsPath
    case .installation: return fixture.installationPath
    }
  }

  var kind: String {
    switch self {
    case .conversation: return ConversationRecord.fileKind
    case .outbox: return OutboxJournal.kind
    case .list: return ConversationListFile.kind
    case .approvals: return StandingApprovalsFile.kind
    case .installation: return InstallationFile.kind
    }
  }

  var newestVersion: UInt32 {
    switch self {
    case .conversation: return ConversationRecord.formatVersion
    case .outbox: return OutboxJournal.version
    case .list: return ConversationListFile.version
    case .approvals: return StandingApprovalsFile.version
    case .installation: return InstallationFile.version
    }
  }

  /// A record that frames and checksums well and is valid JSON, but not what this file's records hold.
  var wrongShapeRecord: [UInt8] {
    switch self {
    case .conversation: return [1] + Array(#"{"title": 42, "status": ["ongoing"]}"#.utf8)  // a meta record
    case .outbox: return [1] + Array(#"{"id": 42, "kind": "teleport"}"#.utf8)  // a queued operation
    case .list: return Array(#"{"conversations": "none", "hasMore": "yes"}"#.utf8)
    case .approvals: return Array(#"[{"toolName": 42}]"#.utf8)
    // The installation record is the ID as text; what cannot be one is empty or over 64 bytes.
    case .installation:
      return Array(#"{"installation": {"id": "6f1c0de2-95a8-4d47-a1f3-3c2f2b1e9d7a", "created": 1750000000}}"#.utf8)
    }
  }

  /// Opens the file as a launch does; returns the error it reported (the installation reports none: it moves a
  /// bad file aside and creates a new ID) and whether nothing of the fixture came back.
  func open(_ fixture: Fixture) throws -> (error: PersistenceError?, restoredNothing: Bool) {
    switch self {
    case .conversation:
      let file = try fixture.scope.conversation("c1")
      return (file.restoreError, file.restored == nil)
    case .outbox:
      let outbox = try fixture.scope.outbox()
      return (outbox.restoreError, outbox.operations.isEmpty)
    case .list:
      do {
        return (nil, try fixture.scope.conversationList.load() == nil)
      } catch {
        return (error, true)
      }
    case .approvals:
      do {
        return (nil, try fixture.scope.standingApprovals.load().isEmpty)
      } catch {
        return (error, true)
      }
    case .installation:
      return (nil, try fixture.storage.installationID() != fixture.installation)
    }
  }

  /// Whether the file opens as the fixture wrote it.
  func opensAsWritten(_ fixture: Fixture) throws -> Bool {
    switch self {
    case .conversation, .outbox:
      let journal = self == .conversation ? Journal.conversation : .outbox
      let opened = try journal.open(fixture)
      return opened.error == nil && opened.restored == journal.steps(of: fixture).last?.restored
    case .list: return try fixture.scope.conversationList.load() == fixture.list
    case .approvals: return try fixture.scope.standingApprovals.load() == fixture.approvals
    case .installation: return try fixture.storage.installationID() == fixture.installation
    }
  }
}

/// What replaces a store file.
private enum Damage: String, CaseIterable, CustomTestStringConvertible {
  case garbage
  case empty
  case directory
  case otherKind
  case newerVersion
  case wrongShape

  var testDescription: String { rawValue }

  var reported: PersistenceError.Kind {
    switch self {
    case .garbage, .empty, .otherKind, .wrongShape: return .corrupt
    case .directory: return .notAFile
    case .newerVersion: return .unsupportedVersion
    }
  }

  /// The damaged file's bytes; nil for a directory.
  func contents(for file: StoreFile) -> [UInt8]? {
    var random = SplitMix(seed: 42)
    var bytes: [UInt8]
    switch self {
    case .garbage: return (0..<300).map { _ in UInt8.random(in: 0...255, using: &random) }
    case .empty: return []
    case .directory: return nil
    case .otherKind:
      bytes = RecordFile.header(kind: file == .outbox ? ConversationRecord.fileKind : OutboxJournal.kind, version: 1)
      RecordFile.frame([5], into: &bytes)
    case .newerVersion:
      bytes = RecordFile.header(kind: file.kind, version: file.newestVersion + 1)
      RecordFile.frame(file.wrongShapeRecord, into: &bytes)
    case .wrongShape:
      bytes = RecordFile.header(kind: file.kind, version: file.newestVersion)
      RecordFile.frame(file.wrongShapeRecord, into: &bytes)
    }
    return bytes
  }
}

@Suite("Corrupt and torn files")
struct CorruptionTests {
  @Test("a journal cut at any byte opens as the records before the cut, or is moved aside", arguments: Journal.allCases)
  fileprivate func truncationAtEveryByte(journal: Journal) throws {
    // Given a journal written call by call, and what the file holds at each record boundary
    let fixture = try Fixture()
    defer { fixture.remove() }
    let bytes = try #require(storedBytes(journal.path(in: fixture)))
    let atBoundary = try openedAtBoundaries(journal, bytes, in: fixture)
    // (each call's own boundary holds exactly the state that call persisted)
    for step in journal.steps(of: fixture) {
      #expect(
        atBoundary[step.size]?.error == nil && atBoundary[step.size]?.restored == step.restored, "at \(step.size)")
    }

    let boundaries = [RecordFile.headerSize] + frames(of: bytes).map(\.end)
    for cut in 0...bytes.count {
      // When the file is cut at this byte (a kill or a power cut in the middle of an append) and opened
      try journal.place(bytes[..<cut], in: fixture)
      let (found, stored) = try journal.openAndWrite(fixture)

      // Then it opens as the whole records before the cut, the torn bytes dropped…
      let boundary = boundaries.last { $0 <= cut }
      if let boundary, let expected = atBoundary[boundary], expected.error == nil {
        #expect(found.error == nil, "cut at \(cut)")
        #expect(found.droppedTailBytes == cut - boundary, "cut at \(cut)")
        #expect(found.restored == expected.restored, "cut at \(cut)")
      } else {
        // …or, when not even a header (or, for a conversation, its meta record) is left, as corrupt, moved aside
        #expect(found.error?.kind == .corrupt, "cut at \(cut)")
        #expect(found.error?.movedAsideTo.flatMap(storedBytes) == Array(bytes[..<cut]), "cut at \(cut)")
      }
      // And opening it again finds it clean, holding what was kept and what was written after
      let again = try journal.open(fixture)
      #expect(again.error == nil && again.droppedTailBytes == 0 && again.restored == stored, "cut at \(cut)")
    }
  }

  @Test(
    "a flipped bit in the header or an earlier record is corruption; in the last record, a torn tail",
    arguments: Journal.allCases)
  fileprivate func bitFlips(journal: Journal) throws {
    // Given a journal, its frames, and what each record boundary opens as
    let seed = SplitMix.testSeed()
    var random = SplitMix(seed: seed)
    let fixture = try Fixture()
    defer { fixture.remove() }
    let bytes = try #require(storedBytes(journal.path(in: fixture)))
    let frames = frames(of: bytes)
    let atBoundary = try openedAtBoundaries(journal, bytes, in: fixture)

    for _ in 0..<400 {
      // When one bit somewhere in the file flips
      let offset = Int.random(in: 0..<bytes.count, using: &random)
      var flipped = bytes
      flipped[offset] ^= 1 << UInt8.random(in: 0..<8, using: &random)
      try journal.place(flipped, in: fixture)
      let (found, stored) = try journal.openAndWrite(fixture)
      let context =
        "byte \(offset), \(bytes[offset]) → \(flipped[offset]); seed \(seed) (replay with PERSISTENCE_SEED=\(seed))"

      // Then the checksums catch it, and what the format says of that byte is what happens
      switch FlipOutcome(offset: offset, in: bytes, flipped: flipped, frames: frames) {
      case .corrupt:
        #expect(found.error?.kind == .corrupt, "\(context)")
        #expect(found.error?.movedAsideTo.flatMap(storedBytes) == flipped, "\(context)")
      case .tornTail(let start):
        // The record's bytes to the end are dropped; what is before it opens as it was written.
        let expected = atBoundary[start]
        #expect(found.error?.kind == expected?.error?.kind, "\(context)")
        if expected?.error == nil {
          #expect(found.droppedTailBytes == bytes.count - start, "\(context)")
          #expect(found.restored == expected?.restored, "\(context)")
        }
      }
      // And opening it again finds it clean, holding what was kept and what was written after
      let again = try journal.open(fixture)
      #expect(again.error == nil && again.droppedTailBytes == 0 && again.restored == stored, "\(context)")
    }
  }

  @Test(
    "a damaged file is moved aside as it is, the rest of the store still opens, and the file starts clean",
    arguments: StoreFile.allCases, Damage.allCases)
  fileprivate func damagedFile(file: StoreFile, damage: Damage) async throws {
    // Given a store with a conversation, an outbox, a list and an installation ID
    let fixture = try Fixture()
    defer { fixture.remove() }
    // When one file is replaced by damage
    let path = file.path(in: fixture)
    try FileManager.default.removeItem(atPath: path)
    let damaged = damage.contents(for: file)
    if let damaged {
      #expect(FileManager.default.createFile(atPath: path, contents: Data(damaged)))
    } else {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    }
    let opened = try file.open(fixture)

    // Then opening it reports the damage, with nothing of it restored…
    let aside = path + ".corrupt-1"
    if file != .installation {
      #expect(opened.error?.kind == damage.reported)
      #expect(opened.error?.movedAsideTo == aside)
    }
    #expect(opened.restoredNothing)
    await fixture.storage.eventsDelivered()
    #expect(fixture.events.all.contains(.movedAside(kind: damage.reported, file: path)))
    // …and the damaged file is moved aside as it was, never deleted
    var isDirectory: ObjCBool = false
    #expect(FileManager.default.fileExists(atPath: aside, isDirectory: &isDirectory))
    #expect(isDirectory.boolValue == (damaged == nil))
    if let damaged { #expect(storedBytes(aside) == damaged) }
    // And the other files open as they were written
    for other in StoreFile.allCases where other != file {
      #expect(try other.opensAsWritten(fixture), "\(other)")
    }
    // And opening it again finds it clean, and it can be written and read back again
    switch file {
    case .conversation, .outbox:
      let journal = file == .conversation ? Journal.conversation : .outbox
      let (found, stored) = try journal.openAndWrite(fixture)
      #expect(found.error == nil && found.restored == (file == .conversation ? .conversation(nil) : .outbox([])))
      let again = try journal.open(fixture)
      var expected = stored
      if case .conversation(var state?) = stored {
        // The archive kept the messages the damaged journal held: older history to page in, not lost.
        state.history.hasStoredHistory = true
        expected = .conversation(state)
      }
      #expect(again.error == nil && again.restored == expected)
    case .list:
      #expect(try fixture.scope.conversationList.load() == nil)
      try fixture.scope.conversationList.save(fixture.list)
      #expect(try fixture.scope.conversationList.load() == fixture.list)
    case .approvals:
      #expect(try fixture.scope.standingApprovals.load().isEmpty)
      try fixture.scope.standingApprovals.save(fixture.approvals)
      #expect(try fixture.scope.standingApprovals.load() == fixture.approvals)
    case .installation:
      let created = try fixture.storage.installationID()
      #expect(created != fixture.installation)
      #expect(try ChatStorage(root: fixture.root).installationID() == created)
    }
    #expect(!FileManager.default.fileExists(atPath: path + ".corrupt-2"))
  }

  @Test("a flipped high bit in an earlier record's length is corruption, not a torn tail to truncate away")
  fileprivate func flippedLengthOfAnEarlierRecord() throws {
    // Given a conversation journal of several records
    let fixture = try Fixture()
    defer { fixture.remove() }
    let bytes = try #require(storedBytes(fixture.conversationPath))
    let third = frames(of: bytes)[2]

    // When the top bit of the third record's length flips (it now runs far past the end of the file)
    var flipped = bytes
    flipped[third.start + 3] ^= 0x80
    try Journal.conversation.place(flipped, in: fixture)
    let file = try fixture.scope.conversation("c1")

    // Then it is reported as corrupt and moved aside whole, as a flip in any other byte of that record is
    #expect(file.restoreError?.kind == .corrupt)
    #expect(file.restoreError?.movedAsideTo.flatMap(storedBytes) == flipped)
  }

  @Test("a write torn between a finished reply's message and the end of its stream restores the reply once")
  fileprivate func tornReplyFinish() throws {
    // Given the fixture's last persist, which appended the finished reply's message, the meta and the end of the
    // stream in one write
    let fixture = try Fixture()
    defer { fixture.remove() }
    let bytes = try #require(storedBytes(fixture.conversationPath))
    let message = try #require(frames(of: bytes).last { bytes[$0.payload] == 2 })

    // When that write is torn right after the message's record (a power cut: a kill does not tear one write)
    try Journal.conversation.place(bytes[..<message.end], in: fixture)
    let restored = try #require(try fixture.scope.conversation("c1").restored)

    // Then the reply comes back once: streaming (the write is lost) or committed, not both
    #expect(restored.streamingReply == nil || !restored.messages.contains(Fixture.reply.clientID))
  }
}
