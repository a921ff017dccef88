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
    messageRows.apply(
      changes, oldPosition: { previous?.rowIndex(of: $0) }, newPosition: { state.rowIndex(of: $0) },
      newCount: rows.count, text: { Self.text(of: rows[$0]) })
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

  /// Shows the conversation list: the same positional updates, positions found by one pass over each list
  /// (the list holds tens of rows, not the message list's thousands).
  func render(_ state: ConversationListState, previous: ConversationListState?, changes: ChangeSet<ConversationID>) {
    let rows = Array(state.conversations)
    let newPositions = Dictionary(uniqueKeysWithValues: rows.enumerated().map { ($1.id, $0) })
    let oldPositions = Dictionary(
      uniqueKeysWithValues: (previous.map { Array($0.conversations) } ?? []).enumerated().map { ($1.id, $0) })
    conversationRows.apply(
      changes, oldPosition: { oldPositions[$0] }, newPosition: { newPositions[$0] }, newCount: rows.count,
      text: { position in
        let summary = rows[position]
        let unread = summary.unreadCount > 0 ? "  (\(summary.unreadCount))" : ""
        let preview = summary.lastMessagePreview.map { "\n" + String($0.prefix(60)) } ?? ""
        return (summary.title.isEmpty ? "New conversation" : summary.title) + unread + preview
      })
    shownList = state
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
    guard let error = state.userError ?? state.backgroundError else { return connection }
    return connection + " — " + error.message
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
