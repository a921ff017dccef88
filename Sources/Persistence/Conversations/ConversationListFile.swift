public import ConversationState
import Foundation

/// The first rows of the conversation list, so the list shows at once after a relaunch (then refresh it).
///
/// The list is small and changes as a whole (rows move to the top), so it is rewritten atomically rather
/// than journaled; write it when a list snapshot settles, not per event.
public struct ConversationListFile: Sendable {
  static let kind = "LIST"
  static let version: UInt32 = 1
  /// Rows kept: the first pages a list screen shows.
  public static let maximumRows = 200

  let path: String
  let events: StorageEvents

  /// Stores the first `maximumRows` rows of `state`. When rows were left out, the stored list has no cursor
  /// and `hasMore` set, so the next page after a restore is loaded again from the start of what is missing.
  public func save(_ state: ConversationListState) throws(PersistenceError) {
    var stored = ConversationListState(epoch: state.epoch)
    stored.conversations = ConversationList(state.conversations.prefix(Self.maximumRows))
    let truncated = stored.conversations.count < state.conversations.count
    stored.hasMore = truncated || state.hasMore
    stored.cursor = truncated ? nil : state.cursor
    stored.hasLoaded = state.hasLoaded
    var bytes = RecordFile.header(kind: Self.kind, version: Self.version)
    RecordFile.frame(JSONBlob.encode(stored), into: &bytes)
    try FileSystem.writeAtomically(bytes, to: path)
  }

  /// The stored list, nil when there is none. An unreadable file is moved aside and the error thrown (with
  /// `movedAsideTo` set); the next load finds nothing.
  public func load() throws(PersistenceError) -> ConversationListState? {
    do throws(PersistenceError) {
      guard let bytes = try FileSystem.contents(of: path) else { return nil }
      return try bytes.withRawBytes { (raw) throws(PersistenceError) -> ConversationListState in
        let contents = try RecordFile.read(raw, kind: Self.kind, newestVersion: Self.version, path: path)
        guard contents.records.count == 1, !contents.hasTornTail, let range = contents.records.first else {
          throw .corrupt(path, "not exactly one record")
        }
        do {
          return try JSONBlob.decode(ConversationListState.self, Array(raw[range]))
        } catch {
          throw .corrupt(path, "the list does not decode")
        }
      }
    } catch  where error.isUnreadableContent {
      var reported = error
      reported.movedAsideTo = try FileSystem.moveAside(path)
      events.report(.movedAside(kind: error.kind, file: path))
      throw reported
    }
  }
}
