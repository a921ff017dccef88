public import ConversationState

/// One scope's directory: its conversations, its conversation list and its outbox.
///
/// Get it from `ChatStorage.scope(_:)`. Open each file once per process and keep it while the conversation
/// (or list, or outbox) is in use: a file object is the only writer of its file.
public struct ScopeStorage: Sendable {
  /// Whose data this is.
  public let scope: StorageScope
  /// The scope's directory (mode 0700).
  public let directory: String
  let events: StorageEvents

  /// The file of conversation `conversationID` (nil: the new conversation not yet created on the server,
  /// which moves to its ID's file once it has one). Reads what is stored; an unreadable file is moved aside
  /// and reported in `restoreError`, and the conversation starts clean.
  ///
  /// `replyWriteInterval` (seconds of the clock passed to `persist`) spaces the writes of streamed text.
  public func conversation(_ conversationID: ConversationID?, replyWriteInterval: Double = 0.25)
    throws(PersistenceError) -> ConversationFile
  {
    let directory = "\(directory)/conversations"
    try FileSystem.createDirectory(directory)
    return try ConversationFile(
      directory: directory, conversationID: conversationID, replyWriteInterval: replyWriteInterval, events: events)
  }

  /// Deletes the stored copy of one conversation (for example when the server says it no longer exists).
  public func removeConversation(_ conversationID: ConversationID?) throws(PersistenceError) {
    try FileSystem.removeTree(ConversationWriter.path(in: "\(directory)/conversations", for: conversationID))
  }

  /// The stored conversation list (see `ConversationListFile`).
  public var conversationList: ConversationListFile { ConversationListFile(path: "\(directory)/list", events: events) }

  /// The scope's durable outbox, read from disk (an unreadable one is moved aside and reported in its
  /// `restoreError`).
  public func outbox(limits: OutboxLimits = OutboxLimits()) throws(PersistenceError) -> Outbox {
    try Outbox(path: "\(directory)/outbox", limits: limits, events: events)
  }
}
