// persistence-stress <root-dir> <seed>
//
// The writer the crash-safety test kills. It opens the store at <root-dir>, resumes from whatever is stored
// there, and then writes forever (messages, streamed replies, drafts, outbox operations, and their upload one by
// one or in numbered batches), deterministically from <seed> and the run number. After each call that returned, which is when what it wrote
// is durable, it reports it on stdout:
//
//   run <n> messages <count> outbox <count>   resumed; IDs of this run start with r<n>-
//   message <clientID>                         a committed message is durable
//   removing <clientID>…                       about to drop these oldest messages (the history stays short),
//                                              with the sibling paths of forks among them
//   removed <clientID>…                        they are durably gone
//   outbox <opID>                              an enqueued operation is durable
//   completing <opID>…                         about to complete these (a kill may or may not keep them)
//   completed <opID>…                          they are durably gone
//   batch <id> <epoch> <first> <opID>…         a batch is durably in flight (new, or the one a run left)
//   finishing <id> / finished <id>             the server took the batch; its operations are durably gone
//
// Edits (the newest few messages leave the screen as a new message's sibling) and switches between siblings
// are in the workload: what leaves the screen stays durable in the conversation's branches.
//
// Each report is one write(2) of less than PIPE_BUF bytes, so a kill never tears one. Anything it finds wrong
// on resume (a stored file that cannot be read, a message whose text is not the one written) ends it with a
// non-zero status and the reason on stderr: only SIGKILL is an expected end.
import ConversationState
import ConversationTesting
import Foundation
import Persistence

/// Text fixed by an ID alone, so a reader can check every stored message byte for byte: the ID, a colon, then
/// a length and an alphabet (ASCII, accents, emoji, CJK, newlines) picked by the ID's hash. One in eight is
/// a few kilobytes, so the journal grows to its compaction threshold in a long run.
public enum StressText {
  public static func expected(for id: String) -> String {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01B3 }
    let count = hash % 8 == 0 ? 1_000 + Int((hash >> 8) % 4_000) : Int((hash >> 8) % 160)
    let alphabet: [Character] = ["a", "b", "é", "😀", " ", "\n", "z", "中", "👩‍👩‍👧"]
    var text = id + ":"
    for index in 0..<count { text.append(alphabet[(index + Int(hash >> 40)) % alphabet.count]) }
    return text
  }
}

extension SplitMix64 {
  /// A number in 0..<bound.
  mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

private func report(_ lines: [String]) {
  let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
  var written = 0
  while written < bytes.count {
    let count = bytes.withUnsafeBytes { write(1, $0.baseAddress! + written, $0.count - written) }
    if count < 0 && errno == EINTR { continue }
    if count <= 0 { exit(5) }  // the reader is gone
    written += count
  }
}

private func fail(_ reason: String) -> Never {
  FileHandle.standardError.write(Data("persistence-stress: \(reason)\n".utf8))
  exit(3)
}

private struct Stress {
  let file: ConversationFile
  let outbox: Outbox
  var state: ConversationState
  var random: SplitMix64
  let run: UInt64
  var step = 0

  /// Logical message times: increasing within a run and across runs.
  var now: Date { Date(timeIntervalSince1970: 1_750_000_000 + Double(run) * 10_000_000 + Double(step)) }

  mutating func nextID(_ kind: String) -> String {
    step += 1
    return "r\(run)-\(kind)\(step)"
  }

  /// Half the time the exact change set, else a reset (the file then diffs against what it last wrote).
  mutating func changes(inserted id: ClientMessageID) -> ChangeSet<ClientMessageID> {
    random.below(2) == 0 ? ChangeSet(inserted: [id]) : .reset
  }

  mutating func commitMessage() throws(PersistenceError) {
    let id = nextID("m")
    let message = Message(
      clientID: ClientMessageID(id), serverID: ServerMessageID("s-\(id)"), role: .user,
      text: StressText.expected(for: id), createdAt: now, delivery: .sent)
    state.messages.commit(message)
    try file.persist(state, changes: changes(inserted: message.clientID), at: Date())
    report(["message \(id)"])
  }

  mutating func streamReply() throws(PersistenceError) {
    let id = nextID("a")
    state.streamingReply = StreamingReply(
      requestID: RequestID(epoch: IdentityEpoch(), sequence: UInt64(step)), clientID: ClientMessageID(id),
      startedAt: now)
    try file.persist(state, changes: ChangeSet(), at: Date())
    var rest = Substring(StressText.expected(for: id))
    while !rest.isEmpty {
      let delta = rest.prefix(1 + random.below(40))
      rest = rest.dropFirst(delta.count)
      state.streamingReply!.text.append(String(delta))
      try file.persist(state, changes: ChangeSet(), at: Date())
      usleep(UInt32(random.below(1_000)))  // tokens arrive over time: kills land mid-reply, chunks get written
    }
    try finishReply()
  }

  /// Commits the streamed reply as a message with its whole text (the text it was always going to have).
  mutating func finishReply() throws(PersistenceError) {
    guard let reply = state.streamingReply else { return }
    let id = reply.clientID
    state.messages.commit(
      Message(
        clientID: id, serverID: ServerMessageID("s-\(id.rawValue)"), role: .assistant,
        text: StressText.expected(for: id.rawValue), createdAt: reply.startedAt, delivery: .sent, reply: .completed))
    state.streamingReply = nil
    try file.persist(state, changes: changes(inserted: id), at: Date())
    report(["message \(id)"])
  }

  /// Drops the oldest messages, as an app does when it keeps only the recent part of a long conversation; keeps
  /// the time each run spends reading the history back bounded. The list is rebuilt, so the file gets either
  /// the removals as a change set or, with a reset, a whole rewrite by atomic rename.
  mutating func trimHistory() throws(PersistenceError) {
    let dropped = state.messages.prefix(1 + random.below(100)).map(\.clientID)
    state.messages = MessageList(state.messages.dropFirst(dropped.count))
    let siblings = state.branches.dropForks(showing: Set(dropped)).map(\.clientID)
    let names = (dropped + siblings).map(\.rawValue).joined(separator: " ")
    report(["removing \(names)"])
    let changes: ChangeSet<ClientMessageID> = random.below(2) == 0 ? ChangeSet(removed: Set(dropped)) : .reset
    try file.persist(state, changes: changes, at: Date())
    report(["removed \(names)"])
  }

  /// An edit or a regeneration: the newest few messages leave the screen as the sibling of a new one.
  mutating func branch() throws(PersistenceError) {
    let committed = state.messages.committedCount
    guard committed >= 2 else { return try commitMessage() }
    let index = committed - 1 - random.below(Swift.min(4, committed - 1))
    let after = state.messages[index - 1].clientID
    let replaced = state.messages.removeCommitted(from: state.messages[index].clientID)
    let id = nextID("e")
    state.branches.keep(replaced, after: after, replacedBy: ClientMessageID(id))
    state.messages.commit(
      Message(
        clientID: ClientMessageID(id), serverID: ServerMessageID("s-\(id)"), role: .user,
        text: StressText.expected(for: id), createdAt: now, delivery: .sent))
    let changes: ChangeSet<ClientMessageID> =
      random.below(2) == 0 ? ChangeSet(inserted: [ClientMessageID(id)], removed: Set(replaced.map(\.clientID))) : .reset
    try file.persist(state, changes: changes, at: Date())
    report(["message \(id)"])
  }

  /// Shows another sibling at a fork on screen, as the user's ‹ › does.
  mutating func switchBranch() throws(PersistenceError) {
    let forks = state.branches.forks.filter { state.messages.contains($0.shown) }
    guard !forks.isEmpty else { return try branch() }
    let fork = forks[random.below(forks.count)]
    let index = (fork.shownIndex + 1 + random.below(fork.paths.count - 1)) % fork.paths.count
    let leaving = state.messages.removeCommitted(from: fork.shown)
    guard let coming = state.branches.show(index, atForkShowing: fork.shown, keeping: leaving) else {
      fail("the fork showing \(fork.shown) did not switch to \(index)")
    }
    for message in coming { state.messages.commit(message) }
    let changes: ChangeSet<ClientMessageID> =
      random.below(2) == 0
      ? ChangeSet(inserted: Set(coming.map(\.clientID)), removed: Set(leaving.map(\.clientID))) : .reset
    try file.persist(state, changes: changes, at: Date())
  }

  mutating func editDraft() throws(PersistenceError) {
    state.draft = random.below(4) == 0 ? "" : StressText.expected(for: "draft-\(random.below(1_000))")
    try file.persist(state, changes: ChangeSet(), at: Date())
  }

  mutating func enqueue() throws(PersistenceError) {
    let id = nextID("op")
    let kind: OutboxOperation.Kind
    switch random.below(3) {
    case 0: kind = .markRead(upTo: ServerMessageID("s-\(id)"))
    case 1: kind = .send(OutgoingMessage(clientID: ClientMessageID(id), text: String(id.reversed()), createdAt: now))
    default: kind = .rateAnswer(ServerMessageID("s-\(id)"), random.below(2) == 0 ? .up : .down)
    }
    let evicted = try outbox.enqueue(
      OutboxOperation(id: OutboxOperationID(rawValue: id), conversationID: "c1", kind: kind, enqueuedAt: Date()),
      at: Date())
    // Evictions are not reported; the outbox is kept far below its bounds so there are none.
    guard evicted.isEmpty else { fail("unexpected eviction of \(evicted.map(\.id))") }
    report(["outbox \(id)"])
  }

  /// Uploads a few of the oldest operations, one by one or as a numbered batch.
  mutating func upload() throws(PersistenceError) {
    if random.below(2) == 0 { try uploadSome() } else { try uploadBatch() }
  }

  /// The server accepts some of the oldest operations; the rest wait again.
  mutating func uploadSome() throws(PersistenceError) {
    // Keep the outbox short so it never reaches its bounds: upload more when it grows.
    let batch = outbox.markUploading(limit: 1 + random.below(outbox.operations.count > 100 ? 20 : 4))
    let accepted = batch.filter { _ in random.below(3) != 0 }.map(\.id)
    outbox.release(batch.map(\.id).filter { !accepted.contains($0) })
    guard !accepted.isEmpty else { return }
    let names = accepted.map(\.rawValue).joined(separator: " ")
    report(["completing \(names)"])
    try outbox.complete(accepted)
    report(["completed \(names)"])
  }

  /// Uploads the batch in flight (the one a killed run left, unchanged) or a new one; a third of the uploads
  /// fail and leave it in flight for the next try.
  mutating func uploadBatch() throws(PersistenceError) {
    let id = nextID("b")
    guard let batch = try outbox.beginBatch(limit: 1 + random.below(10), makeID: { id }) else { return }
    let operations = batch.operations.map(\.id.rawValue).joined(separator: " ")
    report(["batch \(batch.id) \(batch.epoch) \(batch.firstSequence) \(operations)"])
    guard random.below(3) != 0 else { return }
    report(["finishing \(batch.id)"])
    try outbox.finishBatch(batch.id)
    report(["finished \(batch.id)"])
  }

  /// A change to the follow-up queue, as the user makes it or the queue drains: one turn written (while the
  /// agent answers), the first sent (it becomes a message), or one taken out. Reported "…ing" before the
  /// write and "…ed" after it, so a kill between the two may find either.
  mutating func changeQueue() throws(PersistenceError) {
    let turns = state.followUps.turns
    switch random.below(turns.count > 8 ? 2 : 4) {
    case 0 where !turns.isEmpty:
      let turn = state.followUps.turns.removeFirst()
      state.messages.commit(
        Message(
          clientID: turn.clientID, serverID: ServerMessageID("s-\(turn.clientID.rawValue)"), role: .user,
          text: turn.text, createdAt: now, delivery: .sent))
      report(["dequeuing \(turn.clientID)"])
      try file.persist(state, changes: changes(inserted: turn.clientID), at: Date())
      report(["dequeued \(turn.clientID)", "message \(turn.clientID)"])
    case 1 where !turns.isEmpty:
      let turn = state.followUps.turns.remove(at: random.below(turns.count))
      report(["unqueuing \(turn.clientID)"])
      try file.persist(state, changes: ChangeSet(), at: Date())
      report(["unqueued \(turn.clientID)"])
    default:
      let id = nextID("q")
      state.followUps.turns.append(
        OutgoingMessage(clientID: ClientMessageID(id), text: StressText.expected(for: id), createdAt: now))
      report(["queuing \(id)"])
      try file.persist(state, changes: ChangeSet(), at: Date())
      report(["queued \(id)"])
    }
  }

  /// Remembers an approval of one of a few tools, or revokes one.
  mutating func changeGrants() throws(PersistenceError) {
    let tool = "tool-\(random.below(4))"
    if let index = state.approvalGrants.firstIndex(where: { $0.toolName == tool }) {
      state.approvalGrants.remove(at: index)
      report(["revoking \(tool)"])
      try file.persist(state, changes: ChangeSet(), at: Date())
      report(["revoked \(tool)"])
    } else {
      state.approvalGrants.append(ApprovalGrant(toolName: tool, grantedAt: now))
      report(["granting \(tool)"])
      try file.persist(state, changes: ChangeSet(), at: Date())
      report(["granted \(tool)"])
    }
  }

  mutating func act() throws(PersistenceError) {
    if state.messages.count > 100 { return try trimHistory() }
    switch random.below(25) {
    case 22, 23: try changeQueue()
    case 24: try changeGrants()
    case 20: try branch()
    case 21: try switchBranch()
    case 0..<7: try commitMessage()
    case 7..<10: try streamReply()
    case 10..<11: try editDraft()
    case 11..<16: try enqueue()
    default: try upload()
    }
  }
}

private func runStress() throws(PersistenceError) {
  let arguments = CommandLine.arguments
  guard arguments.count == 3, let seed = UInt64(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: persistence-stress <root-dir> <seed>\n".utf8))
    exit(64)
  }
  let storage = try ChatStorage(root: arguments[1])
  let scope = try storage.scope(StorageScope(workspace: "stress", userID: "u1"))
  // A short interval so streamed text is written many times per reply, and kills land between chunks.
  let file = try scope.conversation("c1", replyWriteInterval: 0.002)
  let outbox = try scope.outbox()
  if let error = file.restoreError ?? outbox.restoreError { fail("restore failed: \(error)") }
  var state = file.restored ?? ConversationState(conversationID: "c1")
  for message in Array(state.messages) + state.branches.messagesOffScreen
  where message.text != StressText.expected(for: message.clientID.rawValue) {
    fail("message \(message.clientID) was restored with other text")
  }
  if let violation = state.branches.violations.first { fail("the restored branches are unsound: \(violation)") }
  // The archive holds what the journal holds, newest first: a kill between the journal's write and the
  // archive's (or inside the archive's transaction) was made good by opening, from the archive's mark on.
  let committed = state.messages.filter(\.isCommitted)
  let archived = try file.storedMessages(
    before: MessageOrderKey(createdAt: .distantFuture, tieBreak: ""), limit: committed.count
  ).messages
  if archived.map(\.clientID) != committed.map(\.clientID) || archived.map(\.text) != committed.map(\.text) {
    fail("the archive's newest \(committed.count) messages are not the journal's")
  }
  if let reply = state.streamingReply,
    !StressText.expected(for: reply.clientID.rawValue).hasPrefix(reply.text.string)
  {
    fail("the streamed reply \(reply.clientID) was restored with other text")
  }
  // The run number lives in the stored meta (requestSequence), durable before any ID of this run is used, so
  // IDs never repeat across runs on one root.
  let run = state.requestSequence + 1
  state.requestSequence = run
  try file.persist(state, changes: ChangeSet(), at: Date())
  var stress = Stress(
    file: file, outbox: outbox, state: state, random: SplitMix64(seed: seed ^ (run &* 0x9E37_79B9_7F4A_7C15)),
    run: run)
  report(["run \(run) messages \(state.messages.count) outbox \(outbox.operations.count)"])
  // What this run starts from, which the ledger takes as the truth from here on (the last run's last change
  // may or may not have become durable; the test checked this against both).
  report([
    (["restored-queue"] + state.followUps.turns.map(\.clientID.rawValue)).joined(separator: " "),
    (["restored-grants"] + state.approvalGrants.map(\.toolName)).joined(separator: " "),
  ])
  try stress.finishReply()  // a reply the last run was streaming when it was killed
  while true { try stress.act() }
}

do {
  try runStress()
} catch {
  fail("\(error)")
}
