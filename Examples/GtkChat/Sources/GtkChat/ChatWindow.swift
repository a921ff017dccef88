import CGtk
import CGtkShims
import ConversationStore

/// The chat window: the conversation list on the left (pinned first, with Pin for the conversation on
/// screen); on the right the connection and outbox banner, the messages (each with its reasoning, tool calls,
/// approval, sources and sibling picker), the typing indicator, Retry and rating buttons for the last
/// answer, and the composer.
///
/// Everything here runs on the main thread: GTK's objects belong to it, and the class is `@MainActor` to say
/// so. The stores are fed from here (`send` is safe from any thread) and read through `MainLoopBinding`s.
@MainActor
final class ChatWindow {
  /// The app's one client: the conversation list and the conversation stores.
  let client: ChatClient
  /// The scripted agent behind `client`, told what to answer before each send.
  let agent: ScriptedAgent
  /// The conversation on screen.
  private(set) var chat: ChatStore
  /// The message rows, as the message list view shows them (`RowString`: each row's ID and text).
  let messageRows = StringListRows<ClientMessageID>()
  /// Makes and fills the message list's row widgets.
  let rowFactory = MessageRowFactory()
  /// The conversation rows of the left column.
  let conversationRows = StringListRows<ConversationID>()
  /// How long the bindings' main-loop callbacks take, and how often the window draws.
  let meter = RenderMeter()
  /// The conversation state the message list shows now.
  private(set) var shownChat: ConversationState?
  /// The list state the conversation list shows now.
  var shownList: ConversationListState?

  let window: UnsafeMutablePointer<GtkWidget>
  let banner = makeLabel(cssClass: "dim-label")
  let indicator = makeLabel(cssClass: "dim-label")
  let entry = gtk_entry_new()!
  let sendButton = gtk_button_new_with_label("Send")!
  let retryButton = gtk_button_new_with_label("Retry")!
  let upButton = gtk_button_new_with_label("👍")!
  let downButton = gtk_button_new_with_label("👎")!
  let pinButton = gtk_button_new_with_label("📌 Pin")!
  /// What the window's content looks like, kept up to date by GTK as it redraws: the screenshot's source.
  private(set) var contentPaintable: OpaquePointer!
  private var chatBinding: MainLoopBinding<ConversationState>?
  private var listBinding: MainLoopBinding<ConversationListState>?
  /// Keeps the newest message in view while the list changes.
  private(set) var follower: ScrollFollower?
  /// Texts last set on labels, so an unchanged label is not laid out again on every snapshot.
  var shownTexts: [UInt: String] = [:]

  init(client: ChatClient, agent: ScriptedAgent) {
    self.client = client
    self.agent = agent
    chat = client.newConversation()
    window = gtk_window_new()
    gtk_window_set_title(gtkCast(window), "ConversationStore — GTK chat")
    gtk_window_set_default_size(gtkCast(window), 1000, 720)
    rowFactory.actions = RowActions(
      answer: { [weak self] request, answer in self?.answer(request, answer) },
      showSibling: { [weak self] message, choice in self?.chat.send(.showSibling(of: message, choice)) })
    layOut()
    contentPaintable = gtk_widget_paintable_new(gtk_window_get_child(gtkCast(window)))
    connectSignals()
    bind()
  }

  /// Shows the window.
  func present() { gtk_window_present(gtkCast(window)) }

  /// Sends `text` in the conversation on screen, with the agent told how to answer it first.
  func send(_ text: String) {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty else { return }
    agent.queueAnswer(to: trimmed)
    chat.sendMessage(trimmed)
  }

  /// Sends `text`, with the agent told first how to answer it (`queue`): the self-test's way to script an
  /// answer with reasoning, tool calls, sources or an approval.
  func send(_ text: String, answeredBy queue: (ScriptedAgent) -> Void) {
    queue(agent)
    chat.sendMessage(text)
  }

  /// Sends `text` and has the agent answer it with a long reply (see `ScriptedAgent.queueLongAnswer`).
  func sendForLongAnswer(_ text: String, chunks: Int, wordsPerChunk: Int, chunkInterval: Double) {
    agent.queueLongAnswer(chunks: chunks, wordsPerChunk: wordsPerChunk, chunkInterval: chunkInterval)
    chat.sendMessage(text)
  }

  /// Answers the agent's approval `request`, with the agent told first how to go on (the run that
  /// continues the answer plays the next scripted reply).
  func answer(_ request: InputRequestID, _ answer: InputAnswer) {
    if case .awaitingInput(let requests)? = Self.lastAnswer(in: chat.state)?.reply,
      let asked = requests.first(where: { $0.id == request && $0.answer == nil }),
      case .toolApproval(let call) = asked.kind
    {
      agent.queueContinuation(of: call, approved: answer == .approved)
    }
    chat.send(.answerInput(request, answer))
  }

  /// Whether the message list shows exactly the store's current state.
  var isUpToDate: Bool { shownChat == chat.state }

  private func layOut() {
    let columns = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)!
    let left = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
    gtk_widget_set_size_request(left, 240, -1)
    let heading = makeLabel("Conversations", cssClass: "heading")
    gtk_widget_set_margin_start(heading, 8)
    gtk_widget_set_margin_top(heading, 8)
    gtk_box_append(gtkCast(left), heading)
    gtk_box_append(gtkCast(left), makeStringListView(conversationRows.model, selectable: true).scroller)
    for side in [gtk_widget_set_margin_start, gtk_widget_set_margin_end, gtk_widget_set_margin_bottom] {
      side(pinButton, 8)
    }
    gtk_box_append(gtkCast(left), pinButton)
    gtk_box_append(gtkCast(columns), left)
    gtk_box_append(gtkCast(columns), gtk_separator_new(GTK_ORIENTATION_VERTICAL))

    let right = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)!
    gtk_widget_set_hexpand(right, 1)
    for side in [GTK_POS_TOP, GTK_POS_BOTTOM, GTK_POS_LEFT, GTK_POS_RIGHT] { setMargin(right, side, 8) }
    gtk_box_append(gtkCast(right), banner)
    let messages = makeMessageListView(messageRows.model, factory: rowFactory)
    follower = ScrollFollower(messages.list) { [weak self] in self?.messageRows.count ?? 0 }
    gtk_box_append(gtkCast(right), messages.scroller)
    gtk_box_append(gtkCast(right), indicator)
    let actions = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
    for button in [retryButton, upButton, downButton] { gtk_box_append(gtkCast(actions), button) }
    gtk_box_append(gtkCast(right), actions)
    let composer = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
    gtk_widget_set_hexpand(entry, 1)
    gtk_entry_set_placeholder_text(gtkCast(entry), "Write a message")
    gtk_box_append(gtkCast(composer), entry)
    gtk_box_append(gtkCast(composer), sendButton)
    gtk_box_append(gtkCast(right), composer)
    gtk_box_append(gtkCast(columns), right)
    gtk_window_set_child(gtkCast(window), columns)
  }

  private func setMargin(_ widget: UnsafeMutablePointer<GtkWidget>, _ side: GtkPositionType, _ margin: Int32) {
    switch side {
    case GTK_POS_TOP: gtk_widget_set_margin_top(widget, margin)
    case GTK_POS_BOTTOM: gtk_widget_set_margin_bottom(widget, margin)
    case GTK_POS_LEFT: gtk_widget_set_margin_start(widget, margin)
    default: gtk_widget_set_margin_end(widget, margin)
    }
  }

  private func connectSignals() {
    connect(UnsafeMutableRawPointer(sendButton), "clicked", to: self) { _, data in
      MainActor.assumeIsolated { owner(data, as: ChatWindow.self).sendDraft() }
    }
    connect(UnsafeMutableRawPointer(entry), "activate", to: self) { _, data in
      MainActor.assumeIsolated { owner(data, as: ChatWindow.self).sendDraft() }
    }
    connect(UnsafeMutableRawPointer(retryButton), "clicked", to: self) { _, data in
      MainActor.assumeIsolated { owner(data, as: ChatWindow.self).retry() }
    }
    connect(UnsafeMutableRawPointer(upButton), "clicked", to: self) { _, data in
      MainActor.assumeIsolated { owner(data, as: ChatWindow.self).rateLastAnswer(.up) }
    }
    connect(UnsafeMutableRawPointer(downButton), "clicked", to: self) { _, data in
      MainActor.assumeIsolated { owner(data, as: ChatWindow.self).rateLastAnswer(.down) }
    }
    connect(UnsafeMutableRawPointer(pinButton), "clicked", to: self) { _, data in
      MainActor.assumeIsolated { owner(data, as: ChatWindow.self).togglePin() }
    }
    meter.observe(messageRows.model)
    meter.countFrames(of: window)
  }

  private func bind() {
    let meter = meter
    // Every binding callback is timed: the longest one is how long the binding blocked the main loop.
    let schedule: MainLoopBinding<ConversationState>.Schedule = { job in
      GLibMainLoop.schedule { meter.timeCallback(job) }
    }
    chatBinding = MainLoopBinding(chat, schedule: schedule) { [weak self] state, previous, changes in
      self?.render(state, previous: previous, changes: changes)
    }
    listBinding = MainLoopBinding(
      client.list, schedule: { job in GLibMainLoop.schedule(job) },
      render: { [weak self] state, previous, changes in self?.render(state, previous: previous, changes: changes) })
  }

  private func sendDraft() {
    let editable = OpaquePointer(entry)
    let text = String(cString: gtk_editable_get_text(editable))
    gtk_editable_set_text(editable, "")
    send(text)
  }

  /// Sends the failed message again, or asks for a new version of the last answer.
  private func retry() {
    let state = chat.state
    if let failed = state.messages.last(where: { if case .failed = $0.delivery { true } else { false } }) {
      chat.send(.retry(failed.clientID))
    } else if let answer = Self.lastAnswer(in: state) {
      // The scripted agent answers again in kind: an answer that worked with tools is researched again.
      if answer.toolCalls.isEmpty {
        agent.queueAnswer(to: "Please answer again")
      } else {
        agent.queueResearchedAnswer(variant: 2)
      }
      chat.send(.regenerate(answer.clientID))
    }
  }

  /// Pins the conversation on screen, or unpins it: it moves to the top of the list, or back among the others.
  private func togglePin() {
    guard let id = chat.state.conversationID, let row = client.list.state.conversations[id] else { return }
    client.list.send(.change(id, .pinned(!row.isPinned, at: client.list.environment.clock.now())))
  }

  private func rateLastAnswer(_ rating: Rating) {
    guard let answer = Self.lastAnswer(in: chat.state) else { return }
    // A second press on the rating it has takes it back.
    chat.send(.rateAnswer(answer.clientID, answer.rating == rating ? .none : rating))
  }

  /// The newest finished answer of the agent, which Retry and the rating buttons act on.
  static func lastAnswer(in state: ConversationState) -> Message? {
    guard state.streamingReply == nil, let last = state.messages.last, last.role == .assistant else { return nil }
    return last
  }

  /// Records the state the message list now shows.
  func didShow(_ state: ConversationState) { shownChat = state }
}
