import ConversationStore
import Foundation

/// The plain-text account of a session (`--plain`): each message once when it appears and again when its
/// delivery changes, connection and status changes, and notices. Streamed text is shown once committed.
/// The list (`≡`) is printed in the order a sidebar draws it whenever what the user made of it changes (a
/// title, a pin, the archive, an unread mark, a deletion, the archived filter); the order by activity alone
/// is each conversation's news, not the list's.
struct Transcript {
  private var printed: [ClientMessageID: String] = [:]
  private var connection: String?
  private var status: ConversationStatus?
  private var conversation: ConversationID??
  private var notice: String?
  private var escalation: String?
  private var feedback: String?
  private var user: String??
  /// The turns as last printed, in their order.
  private var queued: [OutgoingMessage] = []
  private var pause: String?
  /// What the user had made of the list when it was last printed, and the line printed.
  private var management = ListManagement()
  private var listed: String?
  private var listError: ChatError?
  /// The suggestions last printed.
  private var suggestions: [String] = []
  /// The deletions that could be taken back when last printed, with their titles.
  private var undoable: [ConversationID: String] = [:]

  /// The lines that are new since the last call.
  mutating func lines(for screen: DemoScreen) -> [String] {
    var lines: [String] = []
    if let notice = screen.notice, notice != self.notice { lines.append("! \(notice)") }
    notice = screen.notice
    if let user, user != screen.user { lines.append(screen.user.map { "· signed in as \($0)" } ?? "· signed out") }
    user = .some(screen.user)
    lines += listLines(screen)
    guard let state = screen.conversation else {
      if conversation != .some(nil) { lines.append("== no conversation open (\(screen.user ?? "guest")) ==") }
      conversation = .some(nil)
      return lines
    }
    if conversation != .some(state.conversationID) {
      let title =
        ConversationPane.userTitle(of: state, in: screen.list) ?? state.title ?? state.conversationID?.rawValue
        ?? "new conversation"
      lines.append("== \(title) (\(screen.user ?? "guest")) ==")
      conversation = .some(state.conversationID)
      connection = nil
      // Another conversation's turns did not leave: they are not on screen.
      (queued, pause) = ([], nil)
    }
    let connectionText = Self.describe(state.connection, needsCredentials: state.needsCredentials)
    if connectionText != connection { lines.append("· \(connectionText)") }
    connection = connectionText
    for message in state.messages {
      var line = Self.describe(message)
      if let place = state.branches.place(of: message.clientID) { line += "  \(MessageLines.siblingMark(place))" }
      if printed[message.clientID] != line { lines.append(line) }
      printed[message.clientID] = line
    }
    // A message that left the screen (a switch to a sibling path) is printed again when it comes back.
    if printed.count > state.messages.count { printed = printed.filter { state.messages.contains($0.key) } }
    lines += queueLines(state.followUps, in: state)
    let offered = state.shownSuggestions
    if offered != suggestions, let line = MessageLines.suggestionsLine(offered) { lines.append(line) }
    suggestions = offered
    if state.status != status, status != nil { lines.append("· \(Self.describe(state.status))") }
    status = state.status
    let moment = state.feedbackMoment.map(Self.describe)
    if let moment, moment != feedback { lines.append(moment) }
    feedback = moment
    let ticket = state.escalation.map(Self.describe)
    if let ticket, ticket != escalation { lines.append(ticket) }
    escalation = ticket
    if let error = state.userError, !lines.contains("! \(error.message)") { lines.append("! \(error.message)") }
    return lines
  }

  /// Each waiting turn when it is queued and again when its number or text changes, as messages are
  /// printed; a turn that leaves unsent says so (one sent shows as the user's message); then why the queue
  /// is paused, once.
  private mutating func queueLines(_ followUps: FollowUpQueue, in state: ConversationState) -> [String] {
    var lines: [String] = []
    for turn in queued where followUps.index(of: turn.clientID) == nil && !state.messages.contains(turn.clientID) {
      lines.append("⋯ taken out: \(turn.text)")
    }
    for (index, turn) in followUps.turns.enumerated() where !queued.indices.contains(index) || queued[index] != turn {
      lines.append(FollowUpLines.prefix(number: index + 1) + turn.text)
    }
    queued = followUps.turns
    let paused = FollowUpLines.pauseText(followUps)
    if let paused, paused != pause { lines.append("· \(paused)") }
    pause = paused
    return lines
  }

  /// The list's refusal, a deletion offered for undo and one done for good, and the list when what the user
  /// made of it changed and it reads differently.
  private mutating func listLines(_ screen: DemoScreen) -> [String] {
    let list = screen.list
    var lines: [String] = []
    if let error = list.shownError, error != listError { lines.append("! \(error.message)") }
    listError = list.shownError
    let offered = Dictionary(
      list.deleting.filter { !$0.isCommitted }.map { ($0.row.id, $0.row.title) }, uniquingKeysWith: { $1 })
    if let undo = screen.undoNotice, offered.keys.contains(where: { undoable[$0] == nil }) {
      lines.append("! \(undo)")
    }
    for (id, title) in undoable.sorted(by: { $0.value < $1.value }) where offered[id] == nil {
      if list.deleted.contains(id) { lines.append("· “\(title)” deleted") }
    }
    undoable = offered
    let now = ListManagement(list)
    if now != management {
      let line = Self.describe(list)
      if line != listed { lines.append(line) }
      listed = line
    }
    management = now
    return lines
  }

  /// The list in one line, as `shown` orders it: "≡ list: 📌 Trip · Welcome".
  static func describe(_ list: ConversationListState) -> String {
    let rows = list.shown.map { row in
      ListPane.title(row) + (row.isMarkedUnread ? " \(ListPane.unreadMark)" : "")
    }
    let name = list.showsArchived ? "archived" : "list"
    return "≡ \(name): " + (rows.isEmpty ? "nothing" : rows.joined(separator: " · "))
  }

  static func describe(_ message: Message) -> String {
    let who: String
    switch message.role {
    case .user: who = "you"
    case .assistant, .humanAgent: who = message.agent?.name ?? message.role.rawValue
    case .system: who = "system"
    }
    var line = "\(who): \(message.text)"
    switch message.delivery {
    case .pending: line += "  (waiting)"
    case .sending: line += "  (sending)"
    case .queued: line += "  (queued)"
    case .failed(let error): line += "  (failed: \(error.message))"
    case .sent: break
    }
    if let tag = ReplyOutcomeWords.tag(message.reply) { line += "  (\(tag))" }
    if message.rating != .none { line += "  [rated \(message.rating.rawValue)]" }
    for call in ToolCallDescription.shown(message) { line += "  [\(ToolCallDescription.status(call).text)]" }
    if case .awaitingInput(let requests) = message.reply {
      for request in requests where request.answer == nil { line += "  [asks: \(request.message ?? "an answer")]" }
    }
    if message.parts.contains(where: { if case .reasoning = $0.content { true } else { false } }) {
      line += "  [reasoning]"
    }
    for source in message.sources { line += "  [source \(source.title)]" }
    return line
  }

  static func describe(_ status: ConversationStatus) -> String {
    switch status {
    case .ongoing: return "the conversation is open again"
    case .takenOver: return "a person from support has taken over"
    case .ended: return "the conversation has ended"
    case .notFound: return "the conversation no longer exists"
    case .unavailable: return "chat is unavailable"
    }
  }

  static func describe(_ moment: FeedbackMoment) -> String {
    switch moment.phase {
    case .open: return "· the agent asks: \(moment.question) (/feedback good|bad|dismiss)"
    case .rated(let rating, _): return "· feedback sent: \(rating.rawValue)"
    case .dismissed: return "· feedback dismissed"
    }
  }

  static func describe(_ escalation: Escalation) -> String {
    switch escalation {
    case .creating: return "· creating a support ticket"
    case .created(let receipt): return "· ticket \(receipt.ticketID) created"
    case .failed(_, let error): return "· ticket failed: \(error.message)"
    }
  }

  static func describe(_ connection: ConnectionState, needsCredentials: Bool) -> String {
    if needsCredentials { return "needs sign-in" }
    switch connection {
    case .idle: return "not connected"
    case .connecting: return "connecting"
    case .connected: return "connected"
    case .syncing: return "syncing"
    case .reconnecting(let attempt, _): return "reconnecting (attempt \(attempt))"
    case .closed: return "offline"
    }
  }
}

/// What the user made of their list: titles they gave, pins, the archive, unread marks, deletions and the
/// filter. The transcript prints the list when this changes.
private struct ListManagement: Equatable {
  struct Marks: Equatable {
    var title: String?
    var pinnedAt: Date?
    var isArchived: Bool
    var isMarkedUnread: Bool
  }

  var rows: [ConversationID: Marks] = [:]
  var deleting: Set<ConversationID> = []
  var deleted: Set<ConversationID> = []
  var showsArchived = false

  init() {}

  init(_ list: ConversationListState) {
    for row in list.conversations where row.isTitleSetByUser || row.isPinned || row.isArchived || row.isMarkedUnread {
      rows[row.id] = Marks(
        title: row.isTitleSetByUser ? row.title : nil, pinnedAt: row.pinnedAt, isArchived: row.isArchived,
        isMarkedUnread: row.isMarkedUnread)
    }
    deleting = Set(list.deleting.map(\.row.id))
    deleted = list.deleted
    showsArchived = list.showsArchived
  }
}
