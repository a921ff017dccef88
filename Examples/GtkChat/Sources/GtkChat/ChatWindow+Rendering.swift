import CGtk
import ConversationStore

extension ChatWindow {
  /// How much of a long message a row shows: its last characters. GTK lays a label out whole on every
  /// update, and a 1 MB label takes far longer than a frame; the row's point is the reply's newest text.
  /// Measured under Xvfb (software rendering, 2 cores) while a reply streams: a 2,000-character tail draws
  /// about 20 frames/s, 1,000 about 35, 500 above 50. The binding's own callbacks stay under 4 ms in all three.
  static let shownCharacters = 500

  /// Shows a conversation state: positional updates of the rows that changed, then the banner, the
  /// indicator and the buttons.
  func render(_ state: ConversationState, previous: ConversationState?, changes: ChangeSet<ClientMessageID>) {
    let rows = state.rows
    // Set first: GTK may bind a row while the splices below run.
    rowFactory.state = state
    messageRows.apply(
      changes, oldPosition: { previous?.rowIndex(of: $0) }, newPosition: { state.rowIndex(of: $0) },
      newCount: rows.count, text: { RowString.encode(rows[$0].id, Self.text(of: rows[$0])) })
    if !changes.isEmpty { follower?.follow() }
    // Rows whose message did not change are not bound again: their arrows follow here.
    if state.canChangeBranch != previous?.canChangeBranch {
      for row in rowFactory.boundRows { row.enableSiblingButtons(state.canChangeBranch) }
    }
    setText(of: banner, to: Self.bannerText(state))
    setText(of: indicator, to: Self.indicatorText(state))
    let answer = Self.lastAnswer(in: state)
    let hasFailed = state.messages.last.map { if case .failed = $0.delivery { true } else { false } } ?? false
    gtk_widget_set_sensitive(retryButton, answer != nil || hasFailed ? 1 : 0)
    gtk_widget_set_sensitive(upButton, answer != nil ? 1 : 0)
    gtk_widget_set_sensitive(downButton, answer != nil ? 1 : 0)
    setLabel(ofButton: upButton, to: answer?.rating == .up ? "👍 rated" : "👍")
    setLabel(ofButton: downButton, to: answer?.rating == .down ? "👎 rated" : "👎")
    didShow(state)
  }

  /// Shows the conversation list in the order a sidebar draws (`state.shown`: pinned first). The list holds
  /// tens of rows, and a pin or new activity moves a row, which a change set of IDs does not describe as
  /// positions: while the order stays, changed rows are replaced in place; when it changes, the rows are
  /// reloaded.
  func render(_ state: ConversationListState, previous: ConversationListState?, changes: ChangeSet<ConversationID>) {
    let rows = state.shown
    let text = { (position: Int) in Self.text(of: rows[position]) }
    if let previous, previous.shown.map(\.id) == rows.map(\.id), !changes.isReset {
      let positions = Dictionary(uniqueKeysWithValues: rows.enumerated().map { ($1.id, $0) })
      conversationRows.apply(
        changes, oldPosition: { positions[$0] }, newPosition: { positions[$0] }, newCount: rows.count, text: text)
    } else {
      conversationRows.reload(count: rows.count, text: text)
    }
    shownList = state
    setLabel(ofButton: pinButton, to: isPinned(in: state) ? "📌 Unpin this conversation" : "📌 Pin this conversation")
  }

  /// A row of the conversation list: a pin mark, the title, the unread count, then the last message.
  static func text(of summary: ConversationSummary) -> String {
    let pin = summary.isPinned ? "📌 " : ""
    let unread = summary.unreadCount > 0 ? "  (\(summary.unreadCount))" : ""
    let preview = summary.lastMessagePreview.map { "\n" + String($0.prefix(60)) } ?? ""
    return pin + (summary.title.isEmpty ? "New conversation" : summary.title) + unread + preview
  }

  private func isPinned(in list: ConversationListState) -> Bool {
    chat.state.conversationID.flatMap { list.conversations[$0] }?.isPinned ?? false
  }

  /// The text of one message row: who, how it is doing, then (the tail of) what it says.
  static func text(of row: ConversationRow) -> String {
    switch row {
    case .message(let message):
      let who =
        switch message.role {
        case .user: "You"
        case .assistant: message.agent?.name ?? "Agent"
        case .humanAgent: message.agent?.name ?? "Support"
        case .system: "System"
        }
      var notes: [String] = []
      switch message.delivery {
      case .pending, .sending: notes.append("sending…")
      case .queued: notes.append("queued")
      case .failed(let error): notes.append("not sent: \(error.message)")
      case .sent: break
      }
      if message.reply?.isCutShort == true { notes.append("cut short") }
      if message.rating == .up { notes.append("👍") }
      if message.rating == .down { notes.append("👎") }
      return ([who] + notes).joined(separator: " · ") + "\n" + tail(of: message.text)
    case .reply(let reply):
      // Read only the tail of the streamed text: O(shown), not O(reply), however long the reply grows.
      let end = reply.presentedUTF8Count ?? reply.text.utf8Count
      let start = max(0, end - 4 * shownCharacters)
      let text = tail(of: reply.text.substring(fromUTF8: start, toUTF8: end), cut: start > 0)
      return "\(reply.agent?.name ?? "Agent") · writing…\n" + text
    }
  }

  private static func tail(of text: String, cut: Bool = false) -> String {
    guard cut || text.utf8.count > shownCharacters else { return text }
    let tail = text.suffix(shownCharacters)
    return cut || tail.startIndex != text.startIndex ? "…" + tail : String(tail)
  }

  static func bannerText(_ state: ConversationState) -> String {
    let connection =
      switch state.connection {
      case .idle: "Not connected"
      case .connecting: "Connecting…"
      case .connected: "Connected"
      case .syncing: "Catching up…"
      case .reconnecting(let attempt, _): "Connection lost — reconnecting (attempt \(attempt))…"
      case .closed: "Closed"
      }
    let outbox = outboxText(state)
    guard let error = state.userError ?? state.backgroundError else { return connection + outbox }
    return connection + outbox + " — " + error.message
  }

  /// What waits to go out, and whether it waits for the connection: " · offline · 2 waiting to send".
  static func outboxText(_ state: ConversationState) -> String {
    let offline = state.connection.isOffline ? " · offline" : ""
    let waiting = waitingCount(state)
    return offline + (waiting > 0 ? " · \(waiting) waiting to send" : " · nothing waiting")
  }

  /// The user's messages not taken by the server yet (written offline, in flight, or held by the server for
  /// later), plus the follow-ups queued behind the running answer. The client's durable outbox count is not
  /// public, and this window runs without storage, so these are what wait.
  static func waitingCount(_ state: ConversationState) -> Int {
    let waiting = state.messages.outgoing.count { message in
      switch message.delivery {
      case .pending, .sending, .queued: true
      case .sent, .failed: false
      }
    }
    return waiting + state.followUps.turns.count
  }

  static func indicatorText(_ state: ConversationState) -> String {
    switch state.agentActivity {
    case .thinking: return "Agent is thinking…"
    case .runningTool(let name): return "Agent is running \(name)…"
    case .generating: return "Agent is typing…"
    case .idle: return state.typing.isEmpty ? " " : "Someone is typing…"
    }
  }

  /// Sets a label's text only when it changed, so an unchanged label is not laid out again.
  func setText(of label: UnsafeMutablePointer<GtkWidget>, to text: String) {
    guard remember(text, for: label) else { return }
    gtk_label_set_text(OpaquePointer(label), text)
  }

  /// Sets a button's label only when it changed.
  func setLabel(ofButton button: UnsafeMutablePointer<GtkWidget>, to text: String) {
    guard remember(text, for: button) else { return }
    gtk_button_set_label(gtkCast(button), text)
  }

  /// Records `text` as shown by `widget`; false when it already was.
  private func remember(_ text: String, for widget: UnsafeMutablePointer<GtkWidget>) -> Bool {
    let key = UInt(bitPattern: widget)
    guard shownTexts[key] != text else { return false }
    shownTexts[key] = text
    return true
  }
}
