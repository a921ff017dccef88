public import ConversationState
import Foundation

/// The first rows of the conversation list, so the list shows at once after a relaunch (then refresh it).
///
/// The list is small and changes as a whole (rows move to the top), so it is rewritten atomically rather
/// than journaled; write it when a list snapshot settles, not per event.
public struct ConversationListFile: Sendable {
  /// Rows kept: the first pages a list screen shows.
  public static let maximumRows = 200

  static let kind = "LIST"
  static let version: UInt32 = 1

  let file: SingleRecordFile<ConversationListState>

  init(path: String, events: StorageEvents) {
    file = SingleRecordFile(path: path, kind: Self.kind, version: Self.version, events: events)
  }

  /// Stores the first `maximumRows` rows of `state`, with the changes and deletions not confirmed yet. When rows were left out, the stored list has no cursor
  /// and `hasMore` set, so the next page after a restore is loaded again from the start of what is missing.
  public func save(_ state: ConversationListState) throws(PersistenceError) {
    var stored = ConversationListState(epoch: state.epoch)
    stored.conversations = ConversationList(state.conversations.prefix(Self.maximumRows))
    let truncated = stored.conversations.count < state.conversations.count
    stored.hasMore = truncated || state.hasMore
    stored.cursor = truncated ? nil : state.cursor
    stored.hasLoaded = state.hasLoaded
    // The user's changes and deletions not confirmed yet go out again after a relaunch (`resumeEdits`).
    stored.edits = state.edits.filter { stored.conversations[$0.conversationID] != nil }
    stored.deleting = state.deleting
    stored.deleted = state.deleted
    stored.showsArchived = state.showsArchived
    stored.requestSequence = state.requestSequence
    try file.save(stored)
  }

  /// Whether `save` keeps the same of `lhs` and `rhs`: the fields it writes, compared as cheaply as the
  /// list allows (two versions of one list in O(changes)). A caller that saves every snapshot skips the
  /// ones for which this holds; a field `save` starts keeping belongs here too.
  public static func keepsSame(_ lhs: ConversationListState, _ rhs: ConversationListState) -> Bool {
    lhs.epoch == rhs.epoch && lhs.hasMore == rhs.hasMore && lhs.cursor == rhs.cursor
      && lhs.hasLoaded == rhs.hasLoaded && lhs.edits == rhs.edits && lhs.deleting == rhs.deleting
      && lhs.deleted == rhs.deleted && lhs.showsArchived == rhs.showsArchived
      && lhs.requestSequence == rhs.requestSequence && lhs.conversations == rhs.conversations
  }

  /// The stored list, nil when there is none. An unreadable file is moved aside and the error thrown (with
  /// `movedAsideTo` set); the next load finds nothing.
  public func load() throws(PersistenceError) -> ConversationListState? { try file.load("the list") }
}
