/// The branches of a conversation that are not on screen: where the conversation forks, and the paths the
/// user can switch to there (`ConversationState.branches`).
///
/// A conversation is a tree whose active path is `ConversationState.messages`. Where a regeneration made a
/// new answer, the old answer and what followed it stay here as a sibling path; switching shows one path
/// and keeps the others. Each fork knows the first message of the path on screen (`shown`), so a message's
/// place among its siblings is found without walking the messages:
///
/// ```swift
/// if let place = state.branches.place(of: message.clientID) {
///   siblingPicker(index: place.index, count: place.count)  // "‹ 2/3 ›" is index 1 of 3
/// }
/// ```
///
/// The paths that are not shown are whole values here, each with the forks inside it, and are stored with
/// the conversation's other fields; the path on screen is only in `messages`.
public struct ConversationBranches: Hashable, Sendable, Codable {
  /// The forks along the path on screen.
  public internal(set) var forks: [Fork] = []

  public init() {}

  /// One place the conversation forks.
  public struct Fork: Hashable, Sendable, Codable {
    /// The message every path here follows; nil when they are the conversation's first messages, or when that
    /// message was not loaded when the fork was made (an edit of the first message loaded).
    public var after: ClientMessageID?
    /// The first message of the path on screen.
    public var shown: ClientMessageID
    /// Every sibling path, in the order they were made; the one on screen, at `shownIndex`, is empty here
    /// (its messages are `ConversationState.messages`' from `shown` on).
    public var paths: [Path]
    /// Which of `paths` is on screen.
    public var shownIndex: Int
  }

  /// A path that is not on screen: its messages, in order, and the forks within it.
  public struct Path: Hashable, Sendable, Codable {
    public var messages: [Message]
    public var forks: [Fork]

    public init(messages: [Message] = [], forks: [Fork] = []) {
      self.messages = messages
      self.forks = forks
    }
  }

  /// A message's place among its siblings: `index` of `count`, from 0.
  public struct Place: Hashable, Sendable {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
      self.index = index
      self.count = count
    }
  }

  /// Whether there is nothing but the path on screen.
  public var isEmpty: Bool { forks.isEmpty }

  /// The place among its siblings of `message`, when it starts the path on screen at a fork; nil for a message
  /// without siblings. O(forks).
  public func place(of message: ClientMessageID) -> Place? {
    guard let fork = forks.first(where: { $0.shown == message }) else { return nil }
    return Place(index: fork.shownIndex, count: fork.paths.count)
  }

  /// The first message of the sibling path kept just before the one `message` starts on screen (what an edit
  /// replaced); nil when `message` starts no path at a fork.
  package func sibling(of message: ClientMessageID) -> Message? {
    guard let at = forkIndex(shown: message) else { return nil }
    let fork = forks[at]
    let before = fork.shownIndex > 0 ? fork.shownIndex - 1 : fork.shownIndex + 1
    return fork.paths.indices.contains(before) ? fork.paths[before].messages.first : nil
  }

  /// The index of the fork whose path on screen starts at `message`.
  func forkIndex(shown message: ClientMessageID) -> Int? { forks.firstIndex { $0.shown == message } }

  /// Takes out the forks within `messages` (those after one of them): they leave the screen with them.
  private mutating func forks(within messages: [Message]) -> [Fork] {
    // A switch of one answer leaves with one message: hashing its ID costs more than comparing it.
    let inside = messages.count > 8 ? Set(messages.map(\.clientID)) : nil
    func isInside(_ id: ClientMessageID) -> Bool {
      inside?.contains(id) ?? messages.contains { $0.clientID == id }
    }
    var taken: [Fork] = []
    forks.removeAll { fork in
      guard let after = fork.after, isInside(after) else { return false }
      taken.append(fork)
      return true
    }
    return taken
  }

  /// `replaced`, the path that followed `after` until a new path starting at `replacement` took its place
  /// (a regeneration), is kept as the sibling before it; the new path is shown, last of all.
  package mutating func keep(_ replaced: [Message], after: ClientMessageID?, replacedBy replacement: ClientMessageID) {
    guard let first = replaced.first else { return }
    let kept = Path(messages: replaced, forks: forks(within: replaced))
    if let index = forkIndex(shown: first.clientID) {
      forks[index].paths[forks[index].shownIndex] = kept
      forks[index].paths.append(Path())
      forks[index].shownIndex = forks[index].paths.count - 1
      forks[index].shown = replacement
    } else {
      forks.append(Fork(after: after, shown: replacement, paths: [kept, Path()], shownIndex: 1))
    }
  }

  /// Shows path `index` of the fork whose path on screen starts at `shown`, keeping `current` (that path, as
  /// it is on screen) in its place; returns the messages to show now, or nil when there is no such fork or
  /// path, or it is the one shown.
  package mutating func show(_ index: Int, atForkShowing shown: ClientMessageID, keeping current: [Message])
    -> [Message]?
  {
    guard let at = forkIndex(shown: shown), forks[at].paths.indices.contains(index), index != forks[at].shownIndex,
      !current.isEmpty
    else { return nil }
    let leaving = Path(messages: current, forks: forks(within: current))
    // Taking the inner forks out may have moved this one.
    guard let at = forkIndex(shown: shown) else { return nil }
    let coming = forks[at].paths[index]
    forks[at].paths[forks[at].shownIndex] = leaving
    forks[at].paths[index] = Path()
    forks[at].shownIndex = index
    forks[at].shown = coming.messages.first?.clientID ?? shown
    forks += coming.forks
    return coming.messages
  }

  /// Whether a path not on screen holds `message` (by its client ID, or its server ID when it has one): a
  /// server that knows nothing of branches sends such messages again (a history page, a sync), and they
  /// must not come back onto the path on screen. O(messages off screen).
  package func hides(_ message: Message) -> Bool {
    holdsOffScreen { kept in
      kept.clientID == message.clientID || (kept.serverID != nil && kept.serverID == message.serverID)
    }
  }

  /// Whether a path not on screen holds a message with client ID `clientID`.
  package func hides(_ clientID: ClientMessageID) -> Bool { holdsOffScreen { $0.clientID == clientID } }

  /// Every message on a path not on screen, in no particular order. O(messages off screen).
  package var messagesOffScreen: [Message] {
    func collect(_ path: Path, into messages: inout [Message]) {
      messages += path.messages
      for fork in path.forks { for inner in fork.paths { collect(inner, into: &messages) } }
    }
    var messages: [Message] = []
    for fork in forks { for path in fork.paths { collect(path, into: &messages) } }
    return messages
  }

  /// Drops the forks whose path on screen starts at one of `messages` (they left the conversation), and
  /// returns the messages of their other paths, which go with them.
  package mutating func dropForks(showing messages: Set<ClientMessageID>) -> [Message] {
    var dropped = ConversationBranches()
    forks.removeAll { fork in
      guard messages.contains(fork.shown) else { return false }
      dropped.forks.append(fork)
      return true
    }
    return dropped.messagesOffScreen
  }

  private func holdsOffScreen(_ matches: (Message) -> Bool) -> Bool {
    func holds(_ path: Path) -> Bool {
      path.messages.contains(where: matches) || path.forks.contains { $0.paths.contains(where: holds) }
    }
    return forks.contains { $0.paths.contains(where: holds) }
  }

  /// The path on screen at the fork showing `shown` is given up (an edit's message discarded before it was
  /// sent): it goes, and the sibling before it is shown (the one after, when it was the first). Returns that
  /// sibling's messages, to show; nil when no fork shows `shown`. A fork left with one path is no fork.
  package mutating func dropShown(_ shown: ClientMessageID) -> [Message]? {
    guard let at = forkIndex(shown: shown) else { return nil }
    var fork = forks[at]
    fork.paths.remove(at: fork.shownIndex)
    let index = max(fork.shownIndex - 1, 0)
    let coming = fork.paths[index]
    if fork.paths.count == 1 {
      forks.remove(at: at)
    } else {
      fork.paths[index] = Path()
      fork.shownIndex = index
      fork.shown = coming.messages.first?.clientID ?? shown
      forks[at] = fork
    }
    forks += coming.forks
    return coming.messages
  }

  /// The path on screen at the fork showing `shown` now starts at `next` (its first message left, and the
  /// next one took its place).
  package mutating func moveShown(_ shown: ClientMessageID, to next: ClientMessageID) {
    guard let at = forkIndex(shown: shown) else { return }
    forks[at].shown = next
  }

  /// Every rule the forks break; empty when sound.
  package var violations: [String] {
    var violations: [String] = []
    var shownSeen = Set<ClientMessageID>()
    for fork in forks {
      if !shownSeen.insert(fork.shown).inserted { violations.append("two forks show \(fork.shown)") }
      if fork.paths.count < 2 { violations.append("the fork showing \(fork.shown) has \(fork.paths.count) path") }
      if !fork.paths.indices.contains(fork.shownIndex) {
        violations.append("the fork showing \(fork.shown) shows path \(fork.shownIndex) of \(fork.paths.count)")
        continue
      }
      for (index, path) in fork.paths.enumerated() where (index == fork.shownIndex) != path.messages.isEmpty {
        violations.append("the fork showing \(fork.shown) keeps path \(index) wrongly (shown \(fork.shownIndex))")
      }
    }
    // No rule ties a fork's place to `after`'s: the messages on screen are in server order, and a server
    // that knows nothing of branches may put others between them, or move `after` (an edit's new time).
    // A fork is found by the message its path on screen starts with.
    return violations
  }
}
