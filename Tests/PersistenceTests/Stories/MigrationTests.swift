import ConversationState
import ConversationTesting
import Foundation
import Testing

@testable import Persistence

@Suite("Format migration")
struct MigrationTests {
  @Test("a format-1 file (draft inside the meta record) reads back, and is rewritten in format 2")
  func version1To2() async throws {
    // Given a conversation file written by format version 1, whose meta record carries the draft
    let root = ScratchRoot()
    let scope = try root.scope()
    var state = ConversationState.existing([.server("Hi", id: "s1", at: 1)])
    state.draft = "unsent words"
    var meta = ConversationMeta(state)
    meta.draft = state.draft
    var bytes = RecordFile.header(kind: ConversationRecord.fileKind, version: 1)
    RecordFile.frame(ConversationRecord.meta(meta).encode(version: 1), into: &bytes)
    for message in state.messages {
      RecordFile.frame(ConversationRecord.message(message).encode(version: 1), into: &bytes)
    }
    let directory = scope.directory + "/conversations"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = ConversationWriter.path(in: directory, for: "conv-1")
    try Data(bytes).write(to: URL(fileURLWithPath: path))

    // When this version opens it
    let events = EventLog()
    let storage = try root.storage(onEvent: events.record)
    let file = try storage.scope(StorageScope(workspace: "acme", userID: "u1"))
      .conversation("conv-1")

    // Then the draft and messages are restored, and the file is now format 2 (and still reads the same)
    #expect(file.restored?.draft == "unsent words")
    #expect(file.restored?.messages.count == 1)
    await storage.eventsDelivered()
    #expect(events.all.contains(.migrated(file: path, from: 1, to: 2)))
    let header = try #require(FileManager.default.contents(atPath: path))
    #expect(header[8] == 2, "the format version in the header")
    #expect(try scope.conversation("conv-1").restored?.draft == "unsent words")
  }

  @Test("a file of a newer format version is moved aside, not misread")
  func newerVersionIsRefused() throws {
    let root = ScratchRoot()
    let scope = try root.scope()
    var bytes = RecordFile.header(kind: ConversationRecord.fileKind, version: ConversationRecord.formatVersion + 1)
    RecordFile.frame([1, 2, 3], into: &bytes)
    let directory = scope.directory + "/conversations"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = ConversationWriter.path(in: directory, for: "conv-1")
    try Data(bytes).write(to: URL(fileURLWithPath: path))

    let file = try scope.conversation("conv-1")

    #expect(file.restored == nil)
    #expect(file.restoreError?.kind == .unsupportedVersion)
    let aside = try #require(file.restoreError?.movedAsideTo)
    #expect(FileManager.default.contents(atPath: aside) == Data(bytes))
  }
}
