import ConversationStore
import Foundation

/// The demo app: a real `ChatClient` on the simulated agent, the line the user is typing, and the screen
/// that results. Interactive and script modes drive it the same way: `submit` a line (text to send, or a
/// `/command`), then render `screen()`.
final class DemoSession: Sendable {
  /// What the user is doing in the UI, beside what the stores hold.
  struct Interface: Sendable {
    var open: ChatStore?
    var composer = ""
    var focus: DemoScreen.Focus = .conversation
    var selectedRow = 0
    var notice: String?
    var watcher: Task<Void, Never>?
    /// Whether reasoning shows whole (`/thoughts`, Ctrl-R) rather than collapsed to a line.
    var showsReasoning = false
    /// `/search`es still reading the disk.
    var searches = 0
    /// When each `/delete` was typed, for the seconds its undo notice counts down.
    var deletedAt: [ConversationID: Date] = [:]
  }

  let client: ChatClient
  /// The simulated agent, when the session runs on it (not with `--server`): `/drop` and `/fail` drive it.
  let agent: SimulatedAgent?
  let clock: any ChatClock
  /// Seconds a `/delete` can be taken back (`ChatPolicy.deleteUndoWindow`).
  let undoWindow: Double
  private let interface = StateLock(Interface())
  private let redrawSignal: AsyncStream<Void>.Continuation
  /// Yields whenever what the screen shows may have changed (coalesced: one pending redraw at most).
  let redraws: AsyncStream<Void>
  private let listWatcher: StateLock<Task<Void, Never>?> = StateLock(nil)

  /// A session on the simulated agent.
  convenience init(agent: SimulatedAgent, environment: StoreEnvironment, storage: ChatStorage?, user: String?) {
    self.init(backend: agent, agent: agent, environment: environment, storage: storage, user: user)
  }

  /// A session on any backend (`demo --server` passes an `HTTPChatBackend`); `workspace` keeps its stored
  /// conversations apart from other servers'; `credentials` is the client's credential provider.
  init(
    backend: any ChatBackend, agent: SimulatedAgent?, environment: StoreEnvironment, storage: ChatStorage?,
    user: String?, workspace: String = "demo", policy: ChatPolicy = ChatPolicy(),
    credentials: ConversationRuntime<ConversationReducer>.CredentialProvider? = nil
  ) {
    self.agent = agent
    clock = environment.clock
    undoWindow = policy.deleteUndoWindow
    let clock = environment.clock
    client = ChatClient(
      backend: backend, identity: user.map { UserIdentity(userID: $0) },
      options: ChatClientOptions(workspace: workspace, policy: policy, storage: storage), environment: environment,
      credentials: credentials,
      tools: [
        "lookupOrder": { arguments in
          try await clock.sleep(seconds: 1.2)  // long enough to read "looking up order 1042…"
          return ["id": arguments["id"] ?? arguments["order"] ?? .null, "status": "shipped", "eta": "on Thursday"]
        }
      ])
    (redraws, redrawSignal) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    let snapshots = client.list.snapshots()
    let signal = redrawSignal
    listWatcher.withLock {
      $0 = Task { [weak self] in
        for await snapshot in snapshots {
          self?.leaveIfDeleted(snapshot.state)
          signal.yield()
        }
      }
    }
    client.list.send(.load(pageSize: 20))
  }

  /// Opens `id` (or the first listed conversation) to start with.
  func start(opening id: ConversationID?) {
    if let id { open(client.conversation(id)) }
  }

  // MARK: What the user does

  /// Runs one line as if typed and entered; returns false for `/quit`.
  @discardableResult
  func submit(_ line: String) -> Bool {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    interface.withLock { $0.notice = nil }
    // A new line dismisses the list's last refusal, as it does the notice.
    if client.list.state.error != nil { client.list.send(.clearError) }
    defer { redrawSignal.yield() }
    guard trimmed.hasPrefix("/") else {
      guard !trimmed.isEmpty else { return true }
      let store = openStore() ?? openNew()
      store.sendMessage(trimmed)
      return true
    }
    let parts = trimmed.dropFirst().split(separator: " ", maxSplits: 1).map(String.init)
    let argument = parts.count > 1 ? parts[1] : nil
    return command(parts.first ?? "", argument)
  }

  /// Edits the composer (interactive mode).
  func edit(_ change: (inout String) -> Void) {
    interface.withLock { change(&$0.composer) }
    redrawSignal.yield()
  }

  /// Sends what is in the composer; false for `/quit`.
  func enter() -> Bool {
    let line = interface.withLock { interface in
      defer { interface.composer = "" }
      return interface.composer
    }
    return submit(line)
  }

  func switchFocus() {
    interface.withLock { $0.focus = $0.focus == .list ? .conversation : .list }
    redrawSignal.yield()
  }

  /// Moves the list cursor (list focus).
  func moveSelection(by offset: Int) {
    let count = client.list.state.shown.count
    interface.withLock { $0.selectedRow = max(0, min(count - 1, $0.selectedRow + offset)) }
    redrawSignal.yield()
  }

  /// Opens the conversation under the list cursor.
  func openSelected() {
    let row = interface.withLock { $0.selectedRow }
    _ = command("open", "\(row + 1)")
    interface.withLock { $0.focus = .conversation }
    redrawSignal.yield()
  }

  /// The screen as it is now.
  func screen() -> DemoScreen {
    let list = client.list.state
    let (store, ui) = interface.withLock { ($0.open, $0) }
    let now = clock.now()
    let undo = list.deleting.last { !$0.isCommitted }.map { deletion in
      let started = ui.deletedAt[deletion.row.id] ?? now
      return ListCommand.undoNotice(
        title: deletion.row.title, secondsLeft: undoWindow - now.timeIntervalSince(started))
    }
    return DemoScreen(
      list: list, conversation: store?.state, selectedRow: ui.selectedRow, composer: ui.composer, focus: ui.focus,
      user: client.identity?.userID, unread: list.unreadTotal, notice: ui.notice, undoNotice: undo, now: now,
      showsReasoning: ui.showsReasoning)
  }

  /// The open store's version (empty when none is open), for telling when a session went quiet.
  var openVersions: [UInt64] { openStore().map { [$0.version] } ?? [] }

  /// Whether the open conversation and the agent have nothing left in flight.
  var isSettled: Bool {
    guard agent?.isIdle ?? true else { return false }
    guard let state = openStore()?.state else { return true }
    return !state.isRestoring && state.isSettled && state.streamingReply == nil && state.outboxRecording.isEmpty
      && !state.messages.outgoing.contains { $0.delivery == .queued }
  }

  func close() async {
    // Taken out under the locks, cancelled after: nothing is cancelled while a lock is held.
    let watcher = interface.withLock { $0.watcher }
    let list = listWatcher.withLock { $0 }
    watcher?.cancel()
    list?.cancel()
    await client.close()
    redrawSignal.finish()
  }

  // MARK: -

  private func openStore() -> ChatStore? { interface.withLock { $0.open } }

  private func openNew() -> ChatStore {
    let store = client.newConversation()
    open(store)
    return store
  }

  private func open(_ store: ChatStore) {
    let snapshots = store.snapshots()
    let signal = redrawSignal
    let watcher = Task {
      for await snapshot in snapshots {
        signal.yield()
        // The open conversation is on screen: what arrives in it is read.
        if snapshot.state.unreadCount > 0, let last = snapshot.state.messages.lastCommitted?.serverID {
          store.send(.markRead(upTo: last))
        }
      }
    }
    let replaced = interface.withLock { interface in
      defer { (interface.open, interface.watcher) = (store, watcher) }
      return interface.watcher
    }
    replaced?.cancel()  // after the lock: nothing is cancelled while one is held
    if store.state.conversationID != nil && !store.state.history.hasLoadedFirstPage {
      store.send(.loadHistory(pageSize: 20))
    }
    // Opened: the unread mark the user put on it (`/unread`) comes off.
    if let id = store.state.conversationID, client.list.state.conversations[id]?.isMarkedUnread == true {
      client.list.send(.markRead(id))
    }
  }

  /// Once the conversation on screen is deleted for good (its undo window passed and the server confirmed,
  /// or another device deleted it), the client closes its store: the first conversation the list shows
  /// opens instead, or a new one when none is left.
  private func leaveIfDeleted(_ list: ConversationListState) {
    guard let id = openStore()?.state.conversationID, list.deleted.contains(id) else { return }
    if let next = list.shown.first ?? list.conversations.first(where: { _ in true }) {
      open(client.conversation(next.id))
      followSelection()
    } else {
      _ = openNew()
    }
  }

  /// Puts the list's cursor on the conversation open on screen, when the list shows it.
  private func followSelection() {
    guard let id = openStore()?.state.conversationID,
      let row = client.list.state.shown.firstIndex(where: { $0.id == id })
    else { return }
    interface.withLock { $0.selectedRow = row }
  }

  private func notice(_ text: String) { interface.withLock { $0.notice = text } }

  /// Searches what is stored, off this thread; the results become the notice.
  private func search(_ words: String) {
    interface.withLock { $0.searches += 1 }
    let client = client
    Task {
      let text: String
      do throws(PersistenceError) {
        text = SearchNotice.text(for: words, try await client.search(words, limit: SearchNotice.shown + 1))
      } catch {
        text = error.kind == .tooLarge ? "That search is too long: \(error.detail)." : "Search failed: \(error)"
      }
      interface.withLock { ui in
        ui.searches -= 1
        ui.notice = text
      }
      redrawSignal.yield()
    }
  }

  /// How many `/search`es are still reading (a script waits for them before it draws).
  var searchesInFlight: Int { interface.withLock { $0.searches } }

  // swift-format-ignore: a command table reads best as one switch
  private func command(_ name: String, _ argument: String?) -> Bool {
    let store = openStore()
    let state = store?.state
    switch name {
    case "quit", "q": return false
    case "new": _ = openNew()
    case "open":
      let rows = client.list.state.shown
      guard let number = argument.flatMap({ Int($0) }), rows.indices.contains(number - 1) else {
        notice("/open needs a row number from 1 to \(rows.count)")
        return true
      }
      interface.withLock { $0.selectedRow = number - 1 }
      open(client.conversation(rows[number - 1].id))
    case "older": store?.send(.loadMoreHistory(pageSize: 20))
    case "search":
      guard let words = argument, !words.isEmpty else {
        notice("/search needs words, for example /search refund")
        return true
      }
      search(words)
    case "retry", "discard":
      guard let failed = state?.messages.outgoing.last(where: { if case .failed = $0.delivery { true } else { false } })
      else {
        notice("No failed message to \(name).")
        return true
      }
      store?.send(name == "retry" ? .retry(failed.clientID) : .discard(failed.clientID))
    case "regen":
      guard let answer = state?.messages.last(where: { $0.role == .assistant && $0.isCommitted }) else {
        notice("No answer to regenerate yet.")
        return true
      }
      store?.send(.regenerate(answer.clientID))
    case "edit":
      switch Self.edit(argument, in: state) {
      case .notice(let text): notice(text)
      case .edit(let message, let text):
        guard let store else { return true }  // a message to edit means a conversation is open
        let replacement = OutgoingMessage(
          clientID: ClientMessageID(store.environment.makeID()), text: text, createdAt: store.environment.clock.now())
        store.send(.edit(message, replacement))  // a refusal (a reply still streaming) shows as the state's error
      }
    case "prev", "next":
      let choice: SiblingChoice = name == "prev" ? .previous : .next
      guard let state, state.messages.contains(where: { state.branches.place(of: $0.clientID) != nil }) else {
        notice("No message has siblings yet (/regen or /edit makes one).")
        return true
      }
      guard let shown = Self.messageToSwitch(choice, in: state) else {
        notice(
          name == "prev"
            ? "No message here has a sibling before it; /next goes the other way."
            : "No message here has a sibling after it; /prev goes the other way.")
        return true
      }
      store?.send(.showSibling(of: shown, choice))
    case "stop": store?.send(.stopReply)
    case "queue", "unqueue", "now", "editq", "resume":
      switch FollowUpCommand(name, argument, in: state) {
      case .notice(let text): notice(text)
      case .action(let action): store?.send(action)  // a refusal (a turn sent meanwhile) shows as the state's error
      }
    case "up", "down":
      guard let answer = state?.messages.last(where: { $0.role == .assistant && $0.isCommitted }) else {
        notice("No answer to rate yet.")
        return true
      }
      store?.send(.rateAnswer(answer.clientID, name == "up" ? .up : .down))
    case "feedback":
      switch argument {
      case "good": store?.send(.rateConversation(.up, comment: nil))
      case "bad": store?.send(.rateConversation(.down, comment: nil))
      case "dismiss": store?.send(.dismissFeedback)
      default: notice("/feedback good, /feedback bad or /feedback dismiss")
      }
    case "ticket":
      let subject = state?.title ?? "Help with my conversation"
      store?.send(.escalate(TicketDraft(subject: subject, body: "Opened from the demo.")))
    case "signin":
      guard let name = argument, !name.isEmpty else {
        notice("/signin needs a name, for example /signin alice")
        return true
      }
      let wasGuest = client.identity == nil
      let current = state?.conversationID
      client.identify(UserIdentity(userID: name), keepingGuestConversation: wasGuest)
      reopen(current, kept: wasGuest)
      client.list.send(.load(pageSize: 20))
    case "signout":
      client.signOut()
      interface.withLock { $0.open = nil }
      client.list.send(.load(pageSize: 20))
    case "drop", "fail":
      guard let agent else {
        notice("/\(name) drives the simulated agent; this session is on a server.")
        return true
      }
      if name == "drop" {
        agent.dropConnection()
        notice("Connection dropped: watch it reconnect and catch up.")
      } else if argument == "reply" {
        agent.spoilNextReply(.fail)
        notice("The next reply will fail halfway.")
      } else {
        agent.failNextRequest()
        notice("The next request will fail.")
      }
    case "cut", "break":
      guard let agent else {
        notice("/\(name) drives the simulated agent; this session is on a server.")
        return true
      }
      agent.spoilNextReply(name == "cut" ? .cut : .breakRules)
      notice(name == "cut" ? "The next reply will be cut off halfway." : "The next reply will break the rules.")
    case "approve", "deny", "answer":
      guard let request = state.flatMap(Self.openRequest) else {
        notice("Nothing is waiting for your answer.")
        return true
      }
      guard let answer = Self.answer(name, argument, to: request) else {
        notice(
          "The agent asks “\(request.message ?? "a question")”: answer with \(MessageLines.commands(for: request)).")
        return true
      }
      // `/approve always` remembers it for the person (every conversation), `/approve here` for this one.
      let memory: ApprovalMemory? =
        switch (name, argument) {
        case ("approve", "always"): .always
        case ("approve", "here"): .conversation
        default: nil
        }
      if let memory, let store {
        store.send(.approve(request.id, remembering: memory, at: store.environment.clock.now()))
      } else {
        store?.send(.answerInput(request.id, answer))
      }
    case "approvals":
      let here = state?.approvalGrants.map { "  \($0.toolName): in this conversation" } ?? []
      let always = state?.standingApprovals.map { "  \($0.toolName): always, in all your conversations" } ?? []
      notice(
        here.isEmpty && always.isEmpty
          ? "Nothing is approved without asking: /approve here or /approve always remembers one."
          : (["Approved without asking (/revoke TOOL forgets one):"] + here + always).joined(separator: "\n"))
    case "revoke":
      guard let tool = argument, !tool.isEmpty else {
        notice("/revoke TOOL: the next request to run TOOL asks you again. /approvals lists them.")
        return true
      }
      store?.send(.revokeApproval(toolName: tool))
    case "suggest":
      let shown = state?.shownSuggestions ?? []
      guard let number = argument.flatMap({ Int($0) }), shown.indices.contains(number - 1) else {
        notice(
          shown.isEmpty
            ? "No suggestions are shown: ask the agent to suggest what to do next."
            : "/suggest N sends suggestion N of the \(shown.count) under the answer.")
        return true
      }
      store?.sendSuggestion(number - 1)
    case "steer":
      guard let text = argument, !text.isEmpty else {
        notice("/steer TEXT: guidance for the running answer, sent next, ahead of what is queued.")
        return true
      }
      store?.steer(text)
    case "thoughts":
      interface.withLock { $0.showsReasoning.toggle() }
    case "rename", "pin", "unpin", "archive", "unarchive", "unread", "delete", "undo", "archived":
      let list = client.list
      switch ListCommand(name, argument, open: state, in: list.state, now: list.environment.clock.now()) {
      case .notice(let text): notice(text)
      case .action(let action):
        if case .delete(let id) = action { interface.withLock { $0.deletedAt[id] = list.environment.clock.now() } }
        list.send(action)  // a refusal (a title too long, an undo too late) shows as the list's error
        followSelection()
      }
    case "help": notice(DemoSession.help)
    default: notice("Unknown command /\(name).\n\(DemoSession.help)")
    }
    return true
  }

  /// The first request of the agent's still unanswered: on the streaming reply, else on the latest answer.
  static func openRequest(in state: ConversationState) -> InputRequest? {
    if let request = state.streamingReply?.inputRequests.first(where: { $0.answer == nil }) { return request }
    guard case .awaitingInput(let requests) = state.messages.last(where: { $0.role == .assistant })?.reply else {
      return nil
    }
    return requests.first { $0.answer == nil }
  }

  /// What `/approve`, `/deny [reason]` and `/answer TEXT` say to `request`; nil when the command does not
  /// fit it (`/approve` to a question, `/answer` to an approval or with nothing to say).
  static func answer(_ command: String, _ argument: String?, to request: InputRequest) -> InputAnswer? {
    switch (command, request.kind) {
    case ("approve", .toolApproval): return .approved
    case ("deny", .toolApproval): return .denied(reason: argument)
    case ("deny", .question): return .declined
    case ("answer", .question): return argument.map { .answered(.string($0)) }
    default: return nil
    }
  }

  /// What `/edit N TEXT` asks for: the user's message N and its new text, or the notice that says what is
  /// missing.
  enum EditCommand: Equatable {
    case edit(ClientMessageID, text: String)
    case notice(String)
  }

  /// Reads `/edit`'s argument against the conversation on screen, whose messages from the user (no one
  /// else's) are numbered 1, 2, … from the oldest; older history not loaded yet is not counted. The store
  /// judges the rest (a message not sent yet, a reply still streaming).
  static func edit(_ argument: String?, in state: ConversationState?) -> EditCommand {
    let mine = state.map { $0.messages.filter { $0.role == .user }.map(\.clientID) } ?? []
    guard !mine.isEmpty else { return .notice("You have no message here to edit yet.") }
    let numbering =
      mine.count == 1 ? "1 is your only message here" : "your messages are 1 to \(mine.count), oldest first"
    let parts = (argument ?? "").split(separator: " ", maxSplits: 1)
    guard let number = parts.first.flatMap({ Int($0) }) else {
      return .notice("Which one? /edit N TEXT, where \(numbering).")
    }
    guard (1...mine.count).contains(number) else {
      return .notice("You have no message \(number) here: \(numbering).")
    }
    let text = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
    guard !text.isEmpty else {
      return .notice("/edit \(number) needs the new text, for example /edit \(number) Where is order 1042?")
    }
    return .edit(mine[number - 1], text: text)
  }

  /// The message `/prev` or `/next` switches: the newest on screen that has a sibling that way. With one
  /// fork on screen that is the newest fork; with an older fork above it (a question edited after its answer
  /// was regenerated), the older one is switched once the newer is at its end, so every sibling is reached
  /// and a switch away from an edit can always come back.
  static func messageToSwitch(_ choice: SiblingChoice, in state: ConversationState) -> ClientMessageID? {
    state.messages.last { message in
      guard let place = state.branches.place(of: message.clientID) else { return false }
      switch choice {
      case .previous: return place.index > 0
      case .next: return place.index < place.count - 1
      case .index(let index): return index != place.index && (0..<place.count).contains(index)
      }
    }?.clientID
  }

  /// After an identity change: the same store when it was kept, otherwise nothing open.
  private func reopen(_ id: ConversationID?, kept: Bool) {
    guard kept, let id else {
      interface.withLock { $0.open = nil }
      return
    }
    open(client.conversation(id))
  }

  /// The commands, a few to a line: the notice shows each line as a row, and a row longer than the frame
  /// (80 columns at the smallest) would be cut.
  static let help = """
    Type to chat. /new /open N /older /search WORDS /retry /discard /stop /thoughts
    /regen: a new answer. /edit N TEXT: TEXT as a new version of your message N,
    counting your messages 1, 2, … from the oldest on screen. Both keep the old as
    a sibling: /prev and /next switch the newest ‹ 2/3 › that can go that way.
    A message sent while the agent answers waits its turn: /queue lists them,
    /unqueue N drops one, /editq N TEXT rewrites it, /now N sends it at once, and
    /resume sends the next after an answer that was stopped, failed or cut off.
    /steer TEXT: guidance sent next, ahead of the queue. /suggest N sends the
    answer's suggestion N. /approve [here|always]
    /deny [why] /answer TEXT /approvals /revoke TOOL /up /down /ticket
    /feedback good|bad|dismiss
    Your list, for the conversation on screen: /rename TEXT /pin /unpin /archive
    /unarchive /unread /delete (/undo takes it back for 5 s). /archived shows the
    archived ones instead of the others, and again the others.
    /signin NAME /signout /drop /fail [reply] /cut /break /quit
    """
}
