public import ConversationState
public import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One conversation on disk: what was stored when it was opened, and the writer that keeps it current.
///
/// Open it with `ScopeDirectory.conversation(_:)`, seed a store with `restored` (then send `.relaunched`, which
/// fails what was sending and interrupts what was streaming), and hand every snapshot to `persist`:
///
/// ```swift
/// let file = try scope.conversation("c42")
/// let store = ChatStore(file.restored ?? ConversationState(conversationID: "c42"), backend: backend)
/// store.send(.relaunched)
/// for await snapshot in store.snapshots() {
///   try file.persist(snapshot.state, changes: snapshot.changes, at: Date())
/// }
/// ```
///
/// The file is a journal: each `persist` appends only what changed (a message, the meta, the draft, a chunk
/// of the streamed reply) and syncs it to disk before returning; when the journal has grown to about twice
/// what a fresh copy would take, it is rewritten whole by an atomic rename. Streamed text is written at most
/// every `replyWriteInterval` seconds and when the reply ends, never per delta.
public final class ConversationFile: Sendable {
  /// The conversation as stored when this file was opened, nil when there was none (or it was unreadable,
  /// see `restoreError`). It is what the last run wrote: requests, typing and errors are not stored.
  ///
  /// It holds the newest committed messages (as many as `ScopeDirectory.conversation`'s `window`) and every
  /// outgoing one, whatever the history's length: opening costs O(window). `history.hasStoredHistory`
  /// says whether older ones are stored; read them with `storedMessages(before:limit:)`.
  public let restored: ConversationState?
  /// Why the stored conversation could not be read, when it could not: the file was moved aside (never
  /// deleted; `movedAsideTo` says where) and this conversation starts clean.
  public let restoreError: PersistenceError?
  /// Bytes of a torn last write (a kill in the middle of an append) that were dropped when opening: the
  /// write that was in progress when the app died, never one `persist` had returned from.
  public let droppedTailBytes: Int

  private let writer: StateLock<ConversationWriter>

  init(
    directory: String, conversationID: ConversationID?, replyWriteInterval: Double, window: Int,
    events: StorageEvents
  ) throws(PersistenceError) {
    let path = ConversationWriter.path(in: directory, for: conversationID)
    var restored: ConversationState?
    var restoreError: PersistenceError?
    var dropped = 0
    var loaded: ConversationJournal.Loaded?
    do throws(PersistenceError) {
      loaded = try ConversationJournal.load(path)
    } catch  where error.isUnreadableContent {
      var reported = error
      reported.movedAsideTo = try FileSystem.moveAside(path)
      events.report(.movedAside(kind: error.kind, file: path))
      restoreError = reported
    }
    if let loaded {
      dropped = loaded.droppedTailBytes
      if dropped > 0 { events.report(.tornTailDropped(file: path, bytes: dropped)) }
    }
    let archive = try SharedArchive.open(in: directory, events: events)
    var writer = ConversationWriter(
      directory: directory, path: path, replyWriteInterval: replyWriteInterval, events: events,
      archive: archive, window: window)
    restored = try writer.resume(from: loaded)
    if var state = restored, let id = state.conversationID {
      let newestHere = state.messages.last(where: \.isCommitted)?.orderKey
      if let newestStored = try archive.with({ archive throws(PersistenceError) in
        try archive.newest(in: id, limit: 1).messages.first?.orderKey
      }),
        newestHere.map({ newestStored > $0 }) ?? true
      {
        // The journal was last written while the user read older history (`HistoryPaging.newerGap`): its
        // window is not the newest one. The archive has the newest.
        let newest = try archive.with { archive throws(PersistenceError) in try archive.newest(in: id, limit: window) }
        for message in newest.messages
        where !state.messages.contains(message.clientID) {
          state.messages.commit(message)
        }
        state = writer.windowed(state)
      }
      // The count is of the messages shown (the server's own, `serverUnreadCount`, covers the rest); the
      // journal's is of the run that wrote it, which may have shown more.
      var unread = 0
      for message in state.messages where ReadCursor.isUnread(message, against: state.readCursor) { unread += 1 }
      state.unreadCount = unread
      let oldest = state.messages.first(where: \.isCommitted)?.orderKey
      state.history.hasStoredHistory = try archive.with { archive throws(PersistenceError) in
        try archive.messages(
          before: oldest ?? MessageOrderKey(createdAt: .distantFuture, tieBreak: ""), in: id, limit: 0
        ).hasMore
      }
      if archive.wasReplaced {
        // Older history stored here is gone: paging starts again from the server's newest page, and what
        // is shown is merged with it.
        state.history.cursor = nil
        state.history.hasMoreHistory = true
        state.history.hasLoadedFirstPage = false
      }
      restored = state
    }
    self.restored = restored
    self.restoreError = restoreError
    self.droppedTailBytes = dropped
    self.writer = StateLock(writer)
  }

  /// Up to `limit` stored messages just before `key` in server order, oldest first, and whether more are
  /// stored before them: the older pages of a conversation opened at its newest
  /// (`HistoryPaging.hasStoredHistory`). O(limit) whatever the history's length. `ChatClient` calls it for
  /// `fetchStoredHistory`; a host that runs its own store does the same.
  public func storedMessages(before key: MessageOrderKey, limit: Int) throws(PersistenceError)
    -> (messages: [Message], hasMore: Bool)
  {
    try writer.withLock { writer throws(PersistenceError) in
      try writer.storedMessages(from: key, newer: false, limit: limit)
    }
  }

  /// Up to `limit` stored messages just after `key` in server order, oldest first, and whether more are
  /// stored after them: the newer pages a window trimmed at its newest end reads back
  /// (`HistoryPaging.newerGap`). O(limit) whatever the history's length.
  public func storedMessages(after key: MessageOrderKey, limit: Int) throws(PersistenceError)
    -> (messages: [Message], hasMore: Bool)
  {
    try writer.withLock { writer throws(PersistenceError) in
      try writer.storedMessages(from: key, newer: true, limit: limit)
    }
  }

  /// Writes what changed in `state` since the last call and syncs it to disk; `changes` is the snapshot's
  /// change set (a reset is fine: the file then works out the change itself, from the last state written).
  /// `now` is the local clock, used only to space the writes of streamed text.
  ///
  /// When this returns, everything in `state` except streamed text newer than `replyWriteInterval` is on disk.
  /// On a failure nothing already stored is lost; the next call rewrites the file whole.
  public func persist(_ state: ConversationState, changes: ChangeSet<ClientMessageID>, at now: Date)
    throws(PersistenceError)
  {
    try writer.withLock { writer throws(PersistenceError) in try writer.persist(state, changes: changes, at: now) }
  }

  /// Writes the streamed text held back by the write interval (from the last state given to `persist`).
  /// Call it when the app goes to the background or a reply pauses.
  public func flush(at now: Date) throws(PersistenceError) {
    try writer.withLock { writer throws(PersistenceError) in try writer.flush(at: now) }
  }

  /// How many bytes the file has now (for diagnostics and tests).
  public var fileSize: Int { writer.withLock { $0.fileSize } }

  deinit { writer.withLock { $0.close() } }
}

extension PersistenceError {
  /// A failure of what is in a file, as opposed to the system refusing a call: the file is moved aside.
  var isUnreadableContent: Bool {
    switch kind {
    case .corrupt, .unsupportedVersion, .notAFile: return true
    case .io, .notADirectory, .tooLarge: return false
    }
  }
}
