import ConversationState
import ConversationTesting
import Foundation
import PersistenceStress
import Testing

@testable import Persistence

/// The tests' seeded generator: a seed printed in a failure replays their random choices.
typealias SplitMix = SplitMix64

extension SplitMix64 {
  /// `PERSISTENCE_SEED` when set (to replay a failure), else a fresh one.
  static func testSeed() -> UInt64 {
    ProcessInfo.processInfo.environment["PERSISTENCE_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...999_999)
  }
}

/// A fresh directory under the system's temporary directory.
func temporaryStoreDirectory(_ name: String) throws -> String {
  let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return path
}

/// What the writer reported on stdout, across all its runs on one root.
private struct Ledger {
  var runs = 0
  var messages: Set<String> = []
  /// Messages a run was dropping when it was killed (durably gone or not: both are right).
  var removing: Set<String> = []
  var removed: Set<String> = []
  var enqueued: Set<String> = []
  /// Operations a run was completing when it was killed (durably gone or not: both are right).
  var completing: Set<String> = []
  var completed: Set<String> = []
  /// Every batch reported in flight, by ID, and the last one begun.
  var batches: [String: Batch] = [:]
  var lastBatch: String?
  var finishing: Set<String> = []
  var finished: Set<String> = []
  /// The follow-up queue as the writer last reported it durable, in order, and a change it began after that.
  var queue: [String] = []
  var queueChange: (verb: String, id: String)?
  /// The remembered approvals reported durable, and a change begun after that.
  var grants: Set<String> = []
  var grantChange: (verb: String, tool: String)?
  /// Broken promises seen in the reports themselves (a batch changed on retry, sequence numbers reused).
  var problems: [String] = []

  struct Batch: Equatable {
    var epoch: UInt64
    var first: Int
    var operations: [String]

    var end: Int { first + operations.count }
  }

  mutating func read(_ line: Substring) {
    let words = line.split(separator: " ").map(String.init)
    guard let verb = words.first else { return }
    let ids = words.dropFirst()
    switch verb {
    case "run": runs += 1
    case "message": messages.formUnion(ids)
    case "removing": removing.formUnion(ids)
    case "removed": removed.formUnion(ids)
    case "outbox": enqueued.formUnion(ids)
    case "completing": completing.formUnion(ids)
    case "completed": completed.formUnion(ids)
    case "batch": readBatch(Array(ids))
    case "finishing":
      finishing.formUnion(ids)
      for id in ids { completing.formUnion(batches[id]?.operations ?? []) }
    case "finished":
      finished.formUnion(ids)
      for id in ids { completed.formUnion(batches[id]?.operations ?? []) }
    case "queuing", "dequeuing", "unqueuing": queueChange = (verb, ids.first ?? "")
    case "queued", "dequeued", "unqueued":
      queue = Self.applying(queueChange, to: queue)
      queueChange = nil
    case "restored-queue":
      queue = Array(ids)
      queueChange = nil
    case "granting", "revoking": grantChange = (verb, ids.first ?? "")
    case "granted", "revoked":
      grants = Self.applying(grantChange, to: grants)
      grantChange = nil
    case "restored-grants":
      grants = Set(ids)
      grantChange = nil
    default: problems.append("the writer printed an unknown line: \(line)")
    }
  }

  /// `queue` with `change` made.
  static func applying(_ change: (verb: String, id: String)?, to queue: [String]) -> [String] {
    guard let change else { return queue }
    switch change.verb {
    case "queuing": return queue + [change.id]
    default: return queue.filter { $0 != change.id }
    }
  }

  /// `grants` with `change` made.
  static func applying(_ change: (verb: String, tool: String)?, to grants: Set<String>) -> Set<String> {
    guard let change else { return grants }
    return change.verb == "granting" ? grants.union([change.tool]) : grants.subtracting([change.tool])
  }

  /// Why the restored follow-up queue and grants break a promise, if they do: what the user queued is there,
  /// once and in order, as last reported durable or with the change begun after that made.
  func followUpProblem(queue restored: [String], grants restoredGrants: Set<String>) -> String? {
    if restored != queue && restored != Self.applying(queueChange, to: queue) {
      return "the follow-up queue came back as \(restored), reported \(queue) (then \(String(describing: queueChange)))"
    }
    if restoredGrants != grants && restoredGrants != Self.applying(grantChange, to: grants) {
      return "the remembered approvals came back as \(restoredGrants.sorted()), reported \(grants.sorted())"
    }
    return nil
  }

  /// Why `next`, the batch a launch would upload next, breaks a promise, if it does: a batch in flight comes back
  /// unchanged; once it was finishing, the next is a new one numbered right after it (or, when the finishing did
  /// not become durable, still the same one); nil only when nothing waits.
  func problem(withNext next: OutboxBatch?) -> String? {
    let last = lastBatch.flatMap { id in batches[id].map { (id: id, batch: $0) } }
    let batch = next.map {
      Batch(epoch: $0.epoch, first: $0.firstSequence, operations: $0.operations.map(\.id.rawValue))
    }
    let isSame = next?.id == last?.id && batch != nil && batch == last?.batch
    let isNew =
      next.map { batches[$0.id] == nil && batch?.epoch == 0 && batch?.first == (last?.batch.end ?? 1) } ?? true
    let keeps: Bool
    switch last {
    case let last? where !finishing.contains(last.id): keeps = isSame
    case let last? where !finished.contains(last.id): keeps = isSame || isNew
    default: keeps = isNew
    }
    if keeps { return nil }
    return "after batch \(last.map { "\($0.id) \($0.batch)" } ?? "none"), the next is \(String(describing: next))"
  }

  /// `<id> <epoch> <first> <operation>…`: a batch in flight. The same ID must come back unchanged; a new one
  /// may begin only once the last one was finishing, and numbers its operations right after it.
  private mutating func readBatch(_ words: [String]) {
    guard words.count >= 4, let epoch = UInt64(words[1]), let first = Int(words[2]) else {
      return problems.append("a batch line the test cannot read: \(words)")
    }
    let id = words[0]
    let batch = Batch(epoch: epoch, first: first, operations: Array(words[3...]))
    if let known = batches[id] {
      if known != batch { problems.append("batch \(id) came back changed: \(known) then \(batch)") }
      return
    }
    if let last = lastBatch, !finishing.contains(last) {
      problems.append("batch \(id) began while batch \(last) was in flight")
    }
    let expected = lastBatch.flatMap { batches[$0]?.end } ?? 1
    if epoch != 0 || first != expected {
      problems.append("batch \(id) is numbered from \(first) in epoch \(epoch), not from \(expected) in epoch 0")
    }
    batches[id] = batch
    lastBatch = id
  }

  /// Committed, and never dropped: these must be in the conversation.
  var kept: Set<String> { messages.subtracting(removing).subtracting(removed) }

  /// Enqueued, and never offered to the server: these must be in the outbox.
  var waiting: Set<String> { enqueued.subtracting(completing).subtracting(completed) }
}

/// The writer's end, and everything it printed.
private struct Run {
  var output: String
  var errors: String
  /// Whether SIGKILL ended it (and not an exit of its own).
  var killed: Bool
  /// Whether it had to be killed because it did not reach the moment within a minute (it hung).
  var hung: Bool
}

/// Kills a process that is still running a minute after it started: a writer that hangs fails the test instead
/// of hanging it.
private final class Watchdog: Sendable {
  private enum State {
    case armed
    case stopped
    case fired
  }

  private let state = StateLock(State.armed)

  init(_ process: pid_t) {
    DispatchQueue.global().asyncAfter(deadline: .now() + 60) { [self] in
      state.withLock { state in
        guard state == .armed else { return }
        state = .fired
        kill(process, SIGKILL)
      }
    }
  }

  /// Disarms it; whether it had fired.
  func stop() -> Bool {
    state.withLock { state in
      if state == .armed { state = .stopped }
      return state == .fired
    }
  }
}

/// When to kill the writer.
private enum Moment {
  /// This long after starting it: mostly while it loads and resumes what the last run left.
  case afterStart(microseconds: UInt32)
  /// This long after it reported that it resumed: in the middle of its writes.
  case afterResume(microseconds: UInt32)
  /// Once it has reported this many lines.
  case afterLines(Int)

  static func random(using random: inout SplitMix) -> Moment {
    switch Int.random(in: 0..<4, using: &random) {
    case 0: return .afterStart(microseconds: UInt32.random(in: 0..<400_000, using: &random))
    case 1: return .afterResume(microseconds: UInt32.random(in: 0..<50_000, using: &random))
    default: return .afterLines(Int.random(in: 1..<500, using: &random))
    }
  }
}

/// Starts `persistence-stress` on `root`, kills it with SIGKILL at `moment`, and returns what it printed, all of
/// it (what it wrote before the kill is still in the pipe).
private func runAndKill(_ binary: URL, root: String, seed: UInt64, at moment: Moment) throws -> Run {
  let process = Process()
  process.executableURL = binary
  process.arguments = [root, String(seed)]
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  let watchdog = Watchdog(process.processIdentifier)
  var printed: [UInt8] = []
  /// Reads from the pipe until `lines` lines have come, or the writer has ended.
  func read(lines: Int) {
    var buffer = [UInt8](repeating: 0, count: 4_096)
    var seen = 0
    while seen < lines {
      let count = buffer.withUnsafeMutableBytes {
        Foundation.read(output.fileHandleForReading.fileDescriptor, $0.baseAddress, $0.count)
      }
      if count <= 0 { return }
      printed += buffer[..<count]
      seen += buffer[..<count].count { $0 == 0x0A }
    }
  }
  switch moment {
  case .afterStart(let microseconds):
    usleep(microseconds)
  case .afterResume(let microseconds):
    read(lines: 1)
    usleep(microseconds)
  case .afterLines(let lines):
    read(lines: lines)
  }
  let hung = watchdog.stop()
  kill(process.processIdentifier, SIGKILL)
  process.waitUntilExit()
  printed += output.fileHandleForReading.readDataToEndOfFile()
  let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  return Run(
    output: String(decoding: printed, as: UTF8.self), errors: errorText,
    killed: process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL, hung: hung)
}

/// The `persistence-stress` binary SwiftPM built next to the test bundle (`.build/<config>/`).
private func stressBinary() -> URL? { BuiltProduct.url(named: "persistence-stress") }

/// What a launch after the kill finds in a copy of the root, against what the writer reported.
private struct Inspection {
  var problems: [String] = []
  /// The files (of `conversation`, `outbox`) that end in a torn append, dropped when they were opened.
  var tornFiles: Set<String> = []
  var replyStreaming = false

  init(root: String, ledger: Ledger) throws {
    let scope = try ChatStorage(root: root).scope(StorageScope(workspace: "stress", userID: "u1"))
    let file = try scope.conversation("c1")
    let outbox = try scope.outbox()
    if let error = file.restoreError { problems.append("the conversation did not open: \(error)") }
    if let error = outbox.restoreError { problems.append("the outbox did not open: \(error)") }
    if file.droppedTailBytes > 0 { tornFiles.insert("conversation") }
    if outbox.droppedTailBytes > 0 { tornFiles.insert("outbox") }

    // A message moved off screen to a sibling path (an edit, a regeneration, a switch) is kept in the
    // conversation's branches: durable all the same, and in one place only.
    let offScreen = file.restored?.branches.messagesOffScreen ?? []
    let messages = try everyStoredMessage(file) + offScreen
    let restored = Set(messages.map(\.clientID.rawValue))
    if restored.count != messages.count { problems.append("a message is in two places of the restored tree") }
    if let violation = file.restored?.branches.violations.first {
      problems.append("the restored branches are unsound: \(violation)")
    }
    // The archive, reconciled by the open, keeps exactly those off screen (searchable, never paged in).
    let archived = try MessageArchive(directory: scope.directory + "/conversations").messages(
      before: MessageOrderKey(createdAt: .distantFuture, tieBreak: ""), in: "c1", limit: 100_000, offScreen: true)
    if Set(archived.messages.map(\.clientID)) != Set(offScreen.filter(\.isCommitted).map(\.clientID)) {
      problems.append("the archive's messages off screen are not the restored branches'")
    }
    if let problem = ledger.followUpProblem(
      queue: file.restored?.followUps.turns.map(\.clientID.rawValue) ?? [],
      grants: Set(file.restored?.approvalGrants.map(\.toolName) ?? []))
    {
      problems.append(problem)
    }
    let queuedText = file.restored?.followUps.turns.filter {
      $0.text != StressText.expected(for: $0.clientID.rawValue)
    }
    if let altered = queuedText?.first { problems.append("queued turn \(altered.clientID) came back with other text") }
    let lost = ledger.kept.subtracting(restored)
    if !lost.isEmpty { problems.append("messages reported durable are gone: \(few(lost))") }
    let undead = ledger.removed.intersection(restored)
    if !undead.isEmpty { problems.append("messages reported removed are back: \(few(undead))") }
    let altered = Set(
      messages.filter { $0.text != StressText.expected(for: $0.clientID.rawValue) }.map(\.clientID.rawValue))
    if !altered.isEmpty { problems.append("messages restored with other text: \(few(altered))") }
    if let reply = file.restored?.streamingReply {
      replyStreaming = true
      if !StressText.expected(for: reply.clientID.rawValue).hasPrefix(reply.text.string) {
        problems.append("the streamed reply \(reply.clientID) was restored with other text")
      }
    }

    let operations = Set(outbox.operations.map(\.id.rawValue))
    let lostOperations = ledger.waiting.subtracting(operations)
    if !lostOperations.isEmpty { problems.append("operations reported enqueued are gone: \(few(lostOperations))") }
    let revived = ledger.completed.intersection(operations)
    if !revived.isEmpty { problems.append("operations reported completed are back: \(few(revived))") }

    // The batch a launch uploads next is the one in flight, unchanged, or a new one numbered right after it
    let next = try outbox.beginBatch(limit: 100) { "inspection" }
    if let problem = ledger.problem(withNext: next) { problems.append(problem) }
  }
}

/// The first few of `ids` and how many there are: enough to replay, short enough to read.
private func few(_ ids: Set<String>) -> String {
  let sorted = ids.sorted()
  return sorted.prefix(8).joined(separator: ", ") + (sorted.count > 8 ? " and \(sorted.count - 8) more" : "")
}

/// Appends a strict prefix of a record frame to `path` (when it exists): what a power cut in the middle of an
/// append leaves, and what SIGKILL alone almost never does (the kernel finishes a small write it started).
private func tearAppend(to path: String, random: inout SplitMix) -> Bool {
  guard let handle = FileHandle(forWritingAtPath: path) else { return false }
  defer { try? handle.close() }
  let length = Int.random(in: 1...300, using: &random)
  // A torn append is a prefix of a whole frame: its length and the length's check as written, then bytes.
  var frame = withUnsafeBytes(of: UInt32(length).littleEndian) { Array($0) }
  frame += withUnsafeBytes(of: RecordFile.lengthChecksum(UInt32(length)).littleEndian) { Array($0) }
  frame += (0..<4 + length).map { _ in UInt8.random(in: 0...255, using: &random) }
  let cut = Int.random(in: 1..<frame.count, using: &random)
  handle.seekToEndOfFile()
  handle.write(Data(frame[..<cut]))
  return true
}

@Suite("Crash safety")
struct CrashSafetyTests {
  @Test("a writer killed at random moments loses nothing it reported durable, and resumes")
  func killedWriterLosesNothingDurable() async throws {
    guard let binary = stressBinary() else {
      Issue.record(
        "persistence-stress is not next to the test bundle (\(CommandLine.arguments[0])); build it with swift build")
      return
    }
    // Given a fresh root, a seed, and a number of kills (PERSISTENCE_KILLS, 12 unless set)
    let kills = ProcessInfo.processInfo.environment["PERSISTENCE_KILLS"].flatMap { Int($0) } ?? 12
    let seed = SplitMix.testSeed()
    var random = SplitMix(seed: seed)
    let directory = try temporaryStoreDirectory("crash-safety")
    let root = directory + "/root"
    let copy = directory + "/after-kill"
    var ledger = Ledger()
    var failed = false
    var (tornTails, tornByUs, midReply, checkedMessages, checkedOperations) = (0, 0, 0, 0, 0)
    for round in 1...kills {
      // When the writer runs on the root (resuming what the last run left) and is killed at a random moment
      let moment = Moment.random(using: &random)
      let replay = "seed \(seed) (replay: PERSISTENCE_SEED=\(seed)), kill \(round) of \(kills) at \(moment), in \(root)"
      let run = try await offThePool { try runAndKill(binary, root: root, seed: seed, at: moment) }
      for line in run.output.split(separator: "\n") { ledger.read(line) }

      // Then it was the kill that ended it: the writer found nothing wrong in what it resumed from
      #expect(run.killed, "the writer ended by itself: \(run.errors); \(replay)")
      #expect(!run.hung, "the writer hung: it was still running a minute after it started; \(replay)")
      // And a copy of the root, opened as the next launch opens it, holds everything reported durable
      try? FileManager.default.removeItem(atPath: copy)
      if FileManager.default.fileExists(atPath: root) { try FileManager.default.copyItem(atPath: root, toPath: copy) }
      let inspection = try Inspection(root: copy, ledger: ledger)
      let problems = ledger.problems + inspection.problems
      #expect(problems.isEmpty, "\(problems.joined(separator: "; ")); \(replay)")
      // (a failure is kept as it is: later rounds would only repeat it)
      if !run.killed || run.hung || !problems.isEmpty {
        failed = true
        break
      }
      checkedMessages += ledger.kept.count
      checkedOperations += ledger.waiting.count
      tornTails += inspection.tornFiles.isEmpty ? 0 : 1
      midReply += inspection.replyStreaming ? 1 : 0

      // Sometimes the kill was a power cut that tore the last append: the next run must drop the torn bytes
      // before it appends, else its records follow garbage and the next inspection finds the file corrupt. (Only
      // a file whose last append is whole: a run truncates a torn one before it appends again, so torn appends
      // never stack.)
      let scope = try ChatStorage(root: root).scope(StorageScope(workspace: "stress", userID: "u1"))
      let journals = [
        ("conversation", ConversationWriter.path(in: scope.directory + "/conversations", for: "c1")),
        ("outbox", scope.directory + "/outbox"),
      ]
      for (name, path) in journals
      where !inspection.tornFiles.contains(name) && Int.random(in: 0..<3, using: &random) == 0 {
        tornByUs += tearAppend(to: path, random: &random) ? 1 : 0
      }
    }

    // And the kills did exercise something: runs resumed, and the inspections had messages and operations to find
    #expect(ledger.runs > 1 && checkedMessages > 0 && checkedOperations > 0, "seed \(seed)")
    print(
      "crash safety, seed \(seed): \(kills) kills, \(ledger.runs) runs resumed; reported durable: "
        + "\(ledger.messages.count) messages (\(ledger.removed.count) removed since), \(ledger.enqueued.count) "
        + "operations (\(ledger.completed.count) completed since), \(ledger.batches.count) batches "
        + "(\(ledger.finished.count) finished); \(midReply) kills left a reply streaming, "
        + "\(tornTails) found a torn append (\(tornByUs) torn on purpose)")
    // Kept for a look when something was lost; the seed replays the run.
    if !failed { try? FileManager.default.removeItem(atPath: directory) }
  }
}
