import ConversationState
import ConversationTesting
import Foundation
import Testing

@testable import Persistence

@Suite("Format migration")
struct MigrationTests {
  /// Writes conversation `conv-1`'s file in `scope` as format `version` wrote it: its header, then each
  /// payload framed. Returns where it is and its bytes.
  static func writeConversationFile(version: UInt32, payloads: [[UInt8]], in scope: ScopeDirectory) throws
    -> (path: String, bytes: [UInt8])
  {
    var bytes = RecordFile.header(kind: ConversationRecord.fileKind, version: version)
    for payload in payloads { RecordFile.frame(payload, into: &bytes) }
    let directory = scope.directory + "/conversations"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = ConversationWriter.path(in: directory, for: "conv-1")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return (path, bytes)
  }

  @Test("a format-1 file (draft inside the meta record) reads back, and is rewritten in the newest format")
  func version1To2() async throws {
    // Given a conversation file written by format version 1, whose meta record carries the draft
    let root = ScratchRoot()
    let scope = try root.scope()
    var state = ConversationState.existing([.server("Hi", id: "s1", at: 1)])
    state.draft = "unsent words"
    var meta = ConversationMeta(state)
    meta.draft = state.draft
    let records = [ConversationRecord.meta(meta)] + state.messages.map(ConversationRecord.message)
    let path = try Self.writeConversationFile(version: 1, payloads: records.map { $0.encode(version: 1) }, in: scope)
      .path

    // When this version opens it
    let events = EventLog()
    let storage = try root.storage(onEvent: events.record)
    let file = try storage.scope(StorageScope(workspace: "acme", userID: "u1"))
      .conversation("conv-1")

    // Then the draft and messages are restored, and the file is now the newest format (and reads the same)
    #expect(file.restored?.draft == "unsent words")
    #expect(file.restored?.messages.count == 1)
    await storage.eventsDelivered()
    #expect(events.all.contains(.migrated(file: path, from: 1, to: ConversationRecord.formatVersion)))
    let header = try #require(FileManager.default.contents(atPath: path))
    #expect(header[8] == ConversationRecord.formatVersion, "the format version in the header")
    #expect(try scope.conversation("conv-1").restored?.draft == "unsent words")
  }

  @Test("a format-2 file (no parts) with a reply mid-stream reads back and is rewritten in the newest format")
  func version2To3() async throws {
    // Given a format-2 file, as the release before parts wrote it: a committed answer and a reply that was
    // streaming when the app stopped (format 2 and 3 write a message without parts the same way)
    let root = ScratchRoot()
    let scope = try root.scope()
    var state = ConversationState.existing([.server("Hi", id: "s1", at: 1)])
    state.streamingReply = StreamingReply(
      requestID: RequestID(epoch: IdentityEpoch(), sequence: 4), clientID: "reply-r4", text: StreamedText("Half an a"),
      startedAt: .story(2))
    let header = try #require(state.streamingReply.map { ReplyHeader($0) })
    #expect(!String(decoding: JSONBlob.encode(header), as: UTF8.self).contains("parts"), "a format-2 header")
    let records =
      [ConversationRecord.meta(ConversationMeta(state))] + state.messages.map(ConversationRecord.message)
      + [.reply(header, from: 0, text: "Half an a")]
    let path = try Self.writeConversationFile(version: 2, payloads: records.map { $0.encode(version: 2) }, in: scope)
      .path

    // When this version opens it
    let events = EventLog()
    let storage = try root.storage(onEvent: events.record)
    let file = try storage.scope(StorageScope(workspace: "acme", userID: "u1")).conversation("conv-1")

    // Then the answer and the half-streamed reply come back without parts, and the file is the newest format
    #expect(file.restored?.messages.map(\.text) == ["Hi"])
    #expect(file.restored?.messages.first?.parts == [])
    #expect(file.restored?.streamingReply?.text.string == "Half an a")
    #expect(file.restored?.streamingReply?.parts == [])
    await storage.eventsDelivered()
    #expect(events.all.contains(.migrated(file: path, from: 2, to: ConversationRecord.formatVersion)))
    #expect(try #require(FileManager.default.contents(atPath: path))[8] == ConversationRecord.formatVersion)
  }

  /// A message as format 3 wrote it: an answer cut short was `interrupted` with its error (tag 3, then the
  /// error), where format 4 writes `failed` (tag 4, then the error) and the rest alike.
  static func format3Interrupted(_ message: Message, _ error: ChatError) -> [UInt8] {
    var plain = message
    plain.reply = nil
    var failed = message
    failed.reply = .failed(error)
    let before = ConversationRecord.message(plain).encode(version: 3)
    var bytes = ConversationRecord.message(failed).encode(version: 3)
    let tag = zip(before, bytes).prefix { $0 == $1 }.count
    bytes[tag] = 3
    return bytes
  }

  @Test(
    "a format-3 answer cut short reads back as its outcome",
    arguments: [
      (ChatError(.cancelled, "Stopped."), ReplyState.cancelled),
      (ChatError(.incompleteStream, "The reply stopped before it was finished."), .truncated),
      (
        ChatError(.invalidEvent, "A delta for a part that ended."),
        .rejected(ChatError(.invalidEvent, "A delta for a part that ended."))
      ),
      (
        ChatError(.providerError, "overloaded", status: 503),
        .failed(ChatError(.providerError, "overloaded", status: 503))
      ),
    ])
  func version3Outcomes(error: ChatError, outcome: ReplyState) throws {
    // Given a format-3 file whose answer was interrupted by this error
    let root = ScratchRoot()
    let scope = try root.scope()
    let state = ConversationState.existing([.server("Hi", id: "s1", at: 1)])
    var answer = Message.server("Half", id: "s2", at: 2)
    answer.reply = nil
    let payloads =
      [ConversationRecord.meta(ConversationMeta(state)).encode(version: 3)]
      + state.messages.map { ConversationRecord.message($0).encode(version: 3) }
      + [Self.format3Interrupted(answer, error)]
    _ = try Self.writeConversationFile(version: 3, payloads: payloads, in: scope)

    // When this version opens it
    let restored = try #require(try scope.conversation("conv-1").restored)

    // Then the answer keeps its text and has the outcome that error means now
    #expect(restored.messages[serverID: "s2"]?.text == "Half")
    #expect(restored.messages[serverID: "s2"]?.reply == outcome)
  }

  @Test("outcomes, questions, a continuation mid-stream and the agent's state survive a relaunch")
  func outcomesRoundTrip() throws {
    // Given answers with each outcome, the latest waiting for an approval, the agent's state, and a
    // continuation run streaming with a question answered
    let root = ScratchRoot()
    let scope = try root.scope()
    let outcomes: [ReplyState] = [
      .completed, .cancelled, .truncated, .failed(ChatError(.network, "offline")),
      .rejected(ChatError(.invalidEvent, "bad order")), .awaitingToolResults(["call-2"]),
      .awaitingInput([
        InputRequest(id: "int-1", kind: .toolApproval("call-1"), message: "Refund $20?", answer: .approved),
        InputRequest(id: "int-2", kind: .question(["type": "string"])),
      ]),
    ]
    let answers = outcomes.enumerated().map { index, outcome in
      var answer = Message.server("answer \(index)", id: "s\(index)", at: Double(index + 1))
      answer.reply = outcome
      return answer
    }
    var state = ConversationState.existing(answers)
    state.agentState = ["plan": ["step 1", "step 2"], "done": false]
    var reply = StreamingReply(
      requestID: RequestID(epoch: IdentityEpoch(), sequence: 9), clientID: "reply-r9", text: StreamedText("Earlier. "),
      startedAt: .story(20))
    reply.inputRequests = [InputRequest(id: "q", kind: .question(.null), answer: .answered("yes"))]
    reply.continuing = ContinuationSeed(
      streamedUTF8Count: 9, toolCallCount: 0, partCount: 0, usage: Usage(inputTokens: 5, outputTokens: 7))
    state.streamingReply = reply
    try scope.conversation("conv-1").persist(state, changes: .reset, at: .story(21))

    // When the app is relaunched
    let restored = try #require(try root.scope().conversation("conv-1").restored)

    // Then every outcome, the agent's state and the continuation are as they were
    #expect(restored.messages.map(\.reply) == outcomes)
    #expect(restored.agentState == state.agentState)
    #expect(restored.streamingReply?.inputRequests == reply.inputRequests)
    #expect(restored.streamingReply?.continuing == reply.continuing)
  }

  @Test("parts survive a relaunch: an answer's reasoning with its encrypted value, and a reply mid-stream")
  func partsRoundTrip() throws {
    // Given an answer in parts and a reply streaming reasoning and text
    let root = ScratchRoot()
    let scope = try root.scope()
    var answer = Message.server("Shipped.", id: "s2", at: 3)
    answer.toolCalls = [ToolCall(id: "call-1", name: "lookupOrder", execution: .server, outcome: .succeeded("ok"))]
    answer.parts = [
      MessagePart(id: "r", .reasoning(ReasoningPart(text: "Check the order.", encryptedValue: "enc-123"))),
      MessagePart(id: "call-1", .toolCall("call-1")),
      MessagePart(id: "t", .text("Shipped.")),
      MessagePart(id: "d", .data(DataPart(kind: "tracking", value: ["carrier": "UPS"]))),
      MessagePart(
        id: "f", .file(FilePart(url: URL(string: "https://example.com/label.pdf")!, mediaType: "application/pdf"))),
    ]
    var state = ConversationState.existing([.server("Hi", id: "s1", at: 1), answer])
    var reply = StreamingReply(
      requestID: RequestID(epoch: IdentityEpoch(), sequence: 5), clientID: "reply-r5", text: StreamedText("Sure"),
      startedAt: .story(4))
    reply.parts = [
      StreamingPart(id: "think", kind: .reasoning, text: StreamedText("Thinking"), isOpen: true),
      StreamingPart(id: "say", kind: .text, text: StreamedText("Sure"), isOpen: true),
    ]
    state.streamingReply = reply
    try scope.conversation("conv-1").persist(state, changes: .reset, at: .story(5))

    // When the app is relaunched
    let restored = try #require(try root.scope().conversation("conv-1").restored)

    // Then every part is back as it was, the reply's open parts still open
    #expect(restored.messages[serverID: "s2"]?.parts == answer.parts)
    #expect(restored.streamingReply?.parts == reply.parts)
    #expect(restored.streamingReply?.streamedUTF8Count == "Sure".utf8.count + "Thinking".utf8.count)
  }

  @Test("a cited source's document ID and both links survive a relaunch, in the answer's sources and parts")
  func sourcesRoundTrip() throws {
    // Given an answer citing two passages of one document, one with both links and one with a title only
    let root = ScratchRoot()
    let scope = try root.scope()
    let passage = KnowledgeSource(
      id: "src-1", documentID: "doc-9", title: "Returns policy", url: URL(string: "https://help.example.com/returns"),
      internalURL: URL(string: "https://admin.example.com/articles/9/edit"))
    let bare = KnowledgeSource(id: "src-2", documentID: "doc-9", title: "Returns policy: refunds")
    var answer = Message.server("Return it within 30 days.", id: "s2", at: 3)
    answer.parts = [
      MessagePart(id: "text-0", .text("Return it within 30 days.")), MessagePart(id: "src-1", .source(passage)),
      MessagePart(id: "src-2", .source(bare)),
    ]
    answer.completeFromParts()
    try scope.conversation("conv-1").persist(
      ConversationState.existing([.server("Hi", id: "s1", at: 1), answer]), changes: .reset, at: .story(5))

    // When the app is relaunched
    let restored = try #require(try root.scope().conversation("conv-1").restored)

    // Then both sources are back with every field, in order
    #expect(restored.messages[serverID: "s2"]?.sources == [passage, bare])
    #expect(restored.messages[serverID: "s2"]?.parts == answer.parts)
  }

  @Test("a file of a newer format version is moved aside, not misread")
  func newerVersionIsRefused() throws {
    let root = ScratchRoot()
    let scope = try root.scope()
    let (_, bytes) = try Self.writeConversationFile(
      version: ConversationRecord.formatVersion + 1, payloads: [[1, 2, 3]], in: scope)

    let file = try scope.conversation("conv-1")

    #expect(file.restored == nil)
    #expect(file.restoreError?.kind == .unsupportedVersion)
    let aside = try #require(file.restoreError?.movedAsideTo)
    #expect(FileManager.default.contents(atPath: aside) == Data(bytes))
  }

  @Test("an archive of every older format opens with its messages, and is marked the newest format")
  func olderArchiveOpens() throws {
    for older in 1..<MessageArchive.formatVersion {
      // Given a scope whose archive holds a conversation's messages, with the tables an older format wrote
      // (before format 3, no column for messages off screen) and marked as that format
      let root = ScratchRoot()
      let scope = try root.scope()
      let state = ConversationState.existing((0..<3).map { .server("message \($0)", id: "s\($0)", at: Double($0)) })
      try scope.conversation("conv-1").persist(state, changes: .reset, at: .story(0))
      let directory = scope.directory + "/conversations"
      let old = try MessageArchive(directory: directory).database
      if older < 3 { try old.execute("ALTER TABLE message DROP COLUMN off_screen") }
      try old.execute("PRAGMA user_version = \(older)")

      // When this version opens it
      let archive = try MessageArchive(directory: directory)

      // Then nothing was lost or moved aside, and it is now the newest format.
      let texts = try archive.newest(in: "conv-1", limit: 10).messages.map(\.text)
      #expect(texts == ["message 0", "message 1", "message 2"], "format \(older)")
      #expect(try archive.count(in: "conv-1", offScreen: true) == 0, "format \(older): every message on screen")
      let version = try archive.database.statement("PRAGMA user_version")
      #expect(try version.step() && version.int64(0) == MessageArchive.formatVersion, "format \(older)")
      version.reset()
    }
  }

  @Test("the journal and the archive store one message layout, the newest")
  func oneMessageLayout() {
    // A message's bytes are the same in a journal record and an archive row: each format says which layout
    // its versions store, and the newest of both is the one `Message.encode(into:)` writes.
    #expect(ConversationRecord.messageLayout(format: ConversationRecord.formatVersion) == MessageLayout.version)
    #expect(MessageArchive.messageLayout(format: MessageArchive.formatVersion) == MessageLayout.version)
  }
}
