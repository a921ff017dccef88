/// Newer messages of a conversation that are stored on this device but not in memory: the ones
/// `ConversationAction.trimNewerHistory` dropped while the user reads older history.
///
/// Every message it dropped lies after `after` and at or before `through` in server order. Messages newer
/// than `through` (arrived since, or kept) are in memory as usual, so a timeline shows the loaded window,
/// then a gap, then whatever arrived while the user was reading; a host draws "newer messages" at the gap
/// and sends `loadNewerHistory` as the user scrolls down to it.
public struct StoredGap: Hashable, Sendable, Codable {
  /// The newest message still in memory before the gap: the next newer stored page starts after it.
  public var after: MessageOrderKey
  /// The newest message that was dropped: once a stored page reaches it, the gap is closed.
  public var through: MessageOrderKey

  /// A gap of the stored messages after `after`, up to and including `through`.
  public init(after: MessageOrderKey, through: MessageOrderKey) {
    self.after = after
    self.through = through
  }
}
